"""scipy.linalg solvers and their relatives: solve, solve_triangular, det, inv."""

from __future__ import annotations

import functools
from typing import Any

from stablax import numpy as jnp
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.lax import _linalg as ll
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.scipy.linalg._decompositions import _solve_vectorized, cho_factor, cho_solve


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """Determinants of square matrices (scipy.linalg.det)."""
    del overwrite_a, check_finite
    return jnp.linalg.det(a)


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """Inverses of square matrices (scipy.linalg.inv)."""
    del overwrite_a, check_finite
    return jnp.linalg.inv(a)


def _check_solve_shapes(a, b):
    if not (
        a.ndim >= 2
        and b.ndim in (a.ndim, a.ndim - 1)
        and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]
    ):
        raise ValueError(
            "The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or "
            f"b=[..., m]; got a={a.shape} and b={b.shape}"
        )


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _positive_definite_solve(lower, a, b):
    return cho_solve(cho_factor(a, lower=lower), b)


@_positive_definite_solve.defjvp
def _positive_definite_solve_jvp(lower, primals, tangents):
    # Implicit differentiation of a x = b with the whole of a (not only its factored triangle):
    # dx = a^-1 (db - da x), reusing the factorization.
    a, b = primals
    da, db = tangents
    factors = cho_factor(a, lower=lower)
    x = cho_solve(factors, b)
    vector = b.ndim == a.ndim - 1
    product = (da @ x[..., None])[..., 0] if vector else da @ x
    return x, cho_solve(factors, db - product)


@jit(static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a, lower):
    if assume_a != "pos":
        return jnp.linalg.solve(a, b)
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    _check_solve_shapes(a, b)
    # b's unit dimensions take a's sizes, as in JAX.
    shape = tuple(
        da if db == 1 else db for da, db in zip((*a.shape[:-1], 1), b.shape, strict=False)
    )
    return _positive_definite_solve(lower, a, jnp.broadcast_to(b, shape))


def solve(
    a: Any,
    b: Any,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
) -> Any:
    """Solves a x = b (scipy.linalg.solve).

    Args:
      a: square matrices (..., n, n).
      b: (..., n) or (..., n, k).
      lower: with assume_a="pos", use a's lower triangle (else the upper).
      assume_a: "gen", "sym" or "her" (LU with partial pivoting) or "pos" (Cholesky).
    """
    del overwrite_a, overwrite_b, debug, check_finite
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    return _solve(a, b, assume_a, bool(lower))


@jit(static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower, unit_diagonal):
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))

    def one(m, rhs):
        return ll.triangular_solve(
            m,
            rhs,
            left_side=True,
            lower=lower,
            transpose_a=transpose_a,
            conjugate_a=conjugate_a,
            unit_diagonal=unit_diagonal,
        )

    return _solve_vectorized(one, a, b, "solve_triangular")


def solve_triangular(
    a: Any,
    b: Any,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug: Any = None,
    check_finite: bool = True,
) -> Any:
    """Solves op(a) x = b for triangular a (scipy.linalg.solve_triangular).

    Args:
      trans: 0/"N" (a), 1/"T" (a^T) or 2/"C" (a^H).
      lower: use a's lower triangle (else the upper).
      unit_diagonal: take a's diagonal as ones.
    """
    del overwrite_b, debug, check_finite
    return _solve_triangular(a, b, trans, bool(lower), bool(unit_diagonal))
