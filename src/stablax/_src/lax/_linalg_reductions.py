"""lax.linalg: reductions to condensed forms and Householder products, one op each.

hessenberg, tridiagonal, schur, householder_product, ormqr and tridiagonal_solve are
`stablax.linalg.<name>` custom calls like the decompositions of `_linalg`, replaced by LAPACK
kernels before compilation (`_linalg_reduction_kernels`). All accept leading batch dimensions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.arraylike import is_arraylike
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import Tracer
from stablax._src.dispatch import bind
from stablax._src.interpreters.ad import is_undefined, jvp_not_implemented
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._linalg_markers import (
    GEQRF,
    HESSENBERG,
    HOUSEHOLDER_PRODUCT,
    ORMQR,
    SCHUR,
    TRIDIAGONAL,
    TRIDIAGONAL_SOLVE,
    check_matrix,
    def_linalg_op,
    linalg_error,
)
from stablax._src.lax._linalg_reduction_kernels import EXPANSIONS
from stablax._src.lax._shapes import full
from stablax._src.lax._slice_pad import pad
from stablax._src.lax._slice_pad import slice as lax_slice

# --- shape rules -------------------------------------------------------------------------------


def _hessenberg_rule(a: ShapedArray) -> tuple[ShapedArray, ShapedArray]:
    check_matrix("hessenberg", a, square=True)
    n = a.shape[-1]
    return a.strip_weak_type(), ShapedArray((*a.shape[:-2], max(n - 1, 0)), a.dtype)


def _tridiagonal_rule(a: ShapedArray, *, lower: bool) -> tuple[ShapedArray, ...]:
    # JAX's shape rule (a non-empty square matrix) comes before its dtype rule.
    if a.ndim >= 2 and a.shape[-2] == a.shape[-1] == 0:
        raise linalg_error(
            "tridiagonal", f"expected a non-empty square matrix, got {a.str_short()}", ValueError
        )
    check_matrix("tridiagonal", a, square=True)
    n = a.shape[-1]
    batch, real = a.shape[:-2], u.real_dtype(a.dtype)
    return (
        a.strip_weak_type(),
        ShapedArray((*batch, n), real),
        ShapedArray((*batch, n - 1), real),
        ShapedArray((*batch, n - 1), a.dtype),
    )


def _schur_rule(x: ShapedArray, *, compute_schur_vectors: bool) -> tuple[ShapedArray, ...]:
    check_matrix("schur", x, square=True)
    x = x.strip_weak_type()
    return (x, x) if compute_schur_vectors else (x,)


def _geqrf_rule(a: ShapedArray, *, pivoting: bool) -> tuple[ShapedArray, ...]:
    m, n = check_matrix("geqrf", a, square=False)
    batch = a.shape[:-2]
    outs = (a.strip_weak_type(), ShapedArray((*batch, min(m, n)), a.dtype))
    return (*outs, ShapedArray((*batch, n), np.int32)) if pivoting else outs


def _same_batch(name: str, *avals: ShapedArray, ranks: tuple[int, ...]) -> tuple[int, ...]:
    batches = []
    for i, (aval, rank) in enumerate(zip(avals, ranks, strict=True)):
        if aval.ndim < rank:
            raise linalg_error(
                name, f"input {i} must have rank at least {rank}, got {aval.str_short()}"
            )
        batches.append(aval.shape[: aval.ndim - rank])
    if any(b != batches[0] for b in batches):
        shapes = ", ".join(a.str_short() for a in avals)
        raise linalg_error(name, f"inputs must share their batch dimensions, got {shapes}")
    if any(a.dtype != avals[0].dtype for a in avals):
        shapes = ", ".join(a.str_short() for a in avals)
        raise linalg_error(name, f"inputs must have equal dtypes, got {shapes}")
    if not u.is_inexact_linalg_dtype(avals[0].dtype):
        raise linalg_error(
            name, f"expected float32, float64, complex64 or complex128, got {avals[0].str_short()}"
        )
    return batches[0]


def _householder_product_rule(a: ShapedArray, taus: ShapedArray) -> ShapedArray:
    name = "householder_product"
    if a.ndim < 2 or taus.ndim < 1:
        _same_batch(name, a, taus, ranks=(2, 1))  # raises the rank error
    if a.ndim - 2 != taus.ndim - 1:  # JAX's first check, and class
        raise linalg_error(
            name,
            f"inputs must have the same number of batch dimensions, got {a.str_short()} and "
            f"{taus.str_short()}",
        )
    # Then the core shapes, then the batch dimensions and dtypes, as JAX.
    m, n = a.shape[-2:]
    if m < n:
        raise linalg_error(
            name, f"a must have at least as many rows as columns, got {a.str_short()}", ValueError
        )
    if taus.shape[-1] > min(m, n):
        raise linalg_error(
            name,
            f"taus must not be longer than min(m, n), got {a.str_short()} and {taus.str_short()}",
            ValueError,
        )
    _same_batch(name, a, taus, ranks=(2, 1))
    return a.strip_weak_type()


def _ormqr_rule(
    a: ShapedArray, taus: ShapedArray, c: ShapedArray, *, left: bool, transpose: bool
) -> ShapedArray:
    _same_batch("ormqr", a, taus, c, ranks=(2, 1, 2))
    m = a.shape[-2]
    if (c.shape[-2] if left else c.shape[-1]) != m:
        side = "rows" if left else "columns"
        raise linalg_error(
            "ormqr",
            f"with left={left}, c must have as many {side} as a has rows, got {a.str_short()} "
            f"and {c.str_short()}",
            ValueError,
        )
    if taus.shape[-1] > min(a.shape[-2:]):
        raise linalg_error(
            "ormqr",
            f"taus must not be longer than min(m, n), got {a.str_short()} and {taus.str_short()}",
            ValueError,
        )
    return c.strip_weak_type()


def _tridiagonal_solve_rule(
    dl: ShapedArray, d: ShapedArray, du: ShapedArray, b: ShapedArray, *, perturb_singular: bool
) -> ShapedArray:
    name = "tridiagonal_solve"
    if not (dl.shape == d.shape == du.shape):
        raise linalg_error(
            name,
            "all diagonal arguments must have the same shape, got "
            f"{dl.str_short()}, {d.str_short()}, {du.str_short()}",
        )
    if b.ndim < 2 or dl.shape != b.shape[:-1]:
        raise linalg_error(
            name,
            "the leading ndim-1 dimensions of b must equal the dimensions of the diagonals, got "
            f"{d.str_short()} and {b.str_short()}",
        )
    _same_batch(name, dl, d, du, b, ranks=(1, 1, 1, 2))
    return b.strip_weak_type()


# --- public functions ---------------------------------------------------------------------------


def hessenberg(a: Any) -> tuple[Any, Any]:
    """Reduces square matrices to upper Hessenberg form (LAPACK gehrd; CPU).

    Returns:
      `(a, taus)`: the Hessenberg matrix in the upper triangle and first subdiagonal of `a`,
      the Householder reflectors below it, and their scalar factors `taus` (..., n - 1).
    """
    return bind(HESSENBERG, a)


def tridiagonal(a: Any, *, lower: bool = True) -> tuple[Any, Any, Any, Any]:
    """Reduces Hermitian matrices to real symmetric tridiagonal form (LAPACK sytrd/hetrd; CPU).

    Args:
      a: matrices (..., n, n); only the triangle named by `lower` is read.
      lower: use the lower (else the upper) triangle.

    Returns:
      `(a, d, e, taus)`: `a` holds the tridiagonal form and the reflectors, `d` the (real)
      diagonal, `e` the (real) off-diagonal and `taus` the reflectors' scalar factors.
    """
    return bind(TRIDIAGONAL, a, lower=bool(lower))


def schur(
    x: Any,
    *,
    compute_schur_vectors: bool = True,
    sort_eig_vals: bool = False,
    select_callable: Callable[..., Any] | None = None,
) -> Any:
    """Schur decomposition x = Q T Q^H (LAPACK gees; CPU).

    T is upper triangular (quasi-triangular with 2x2 blocks for real input).

    Args:
      x: square matrices (..., n, n).
      compute_schur_vectors: also return Q.
      sort_eig_vals: unsupported, as in JAX (raises NotImplementedError when True).
      select_callable: unused.

    Returns:
      `(T, Q)`, or T alone when `compute_schur_vectors` is False.
    """
    static = {
        "compute_schur_vectors": compute_schur_vectors,
        "sort_eig_vals": sort_eig_vals,
        "select_callable": select_callable,
    }
    for name, value in static.items():  # static parameters: JAX hashes them first, when binding
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"lax.linalg.schur: {name} must be hashable (a static parameter), got "
                f"{type(value).__name__}{mlir.where_suffix()}"
            ) from None
    if sort_eig_vals:  # after the input's checks, as in JAX
        _schur_rule(aval_of(x), compute_schur_vectors=bool(compute_schur_vectors))
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
    outs = bind(SCHUR, x, compute_schur_vectors=bool(compute_schur_vectors))
    return tuple(outs) if compute_schur_vectors else outs[0]


def householder_product(a: Any, taus: Any) -> Any:
    """The product of elementary Householder reflectors (LAPACK orgqr/ungqr; CPU).

    Args:
      a: (..., m, n) with m >= n; reflector i is below the diagonal of column i.
      taus: (..., k) scalar factors, k <= n.

    Returns:
      The (..., m, n) matrix with orthonormal columns H_1 H_2 ... H_k [I; 0].
    """
    return bind(HOUSEHOLDER_PRODUCT, a, taus)


def ormqr(a: Any, taus: Any, c: Any, *, left: bool = True, transpose: bool = False) -> Any:
    """Multiplies c by Q of a packed QR factorization without forming Q (LAPACK ormqr/unmqr).

    Computes Q c, Q^H c (left) or c Q, c Q^H (right); Q is the product of the reflectors
    stored below the diagonal of `a` (..., m, n) with scalar factors `taus` (..., k).

    Returns:
      An array of c's shape.
    """
    # JAX's order: the operands are interpreted as arrays first, then the flags (hashed as
    # static parameters, so an array flag is a TypeError there too).
    for position, operand in enumerate((a, taus, c)):
        if not is_arraylike(operand):
            raise TypeError(
                f"lax.linalg.ormqr: the argument at position {position} must be an array, got "
                f"{type(operand).__name__}{mlir.where_suffix()}"
            )
    for name, flag in (("left", left), ("transpose", transpose)):
        if isinstance(flag, (np.ndarray, Array, Tracer)):
            raise TypeError(
                f"lax.linalg.ormqr: {name} must be a Python bool, got an array{mlir.where_suffix()}"
            )
    return bind(ORMQR, a, taus, c, left=bool(left), transpose=bool(transpose))


def geqrf(a: Any, *, pivoting: bool = False) -> tuple[Any, ...]:
    """LAPACK's packed QR factorization (geqrf, or geqp3 with column pivoting; CPU).

    Returns:
      `(a, taus)`, or `(a, taus, p)` when pivoting: R on and above the diagonal of `a`, the
      Householder reflectors below it with their scalar factors `taus` (..., min(m, n)), and
      the 0-based column permutation p with x[..., :, p] = Q R.
    """
    return bind(GEQRF, a, pivoting=bool(pivoting))


def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any, *, perturb_singular: bool = False) -> Any:
    """Solves the tridiagonal systems A X = B (LAPACK gtsv on CPU).

    Args:
      dl: (..., m) sub-diagonal, A[i, i-1] = dl[i]; dl[0] is ignored.
      d: (..., m) diagonal.
      du: (..., m) super-diagonal, A[i, i+1] = du[i]; du[m-1] is ignored.
      b: (..., m, n) right-hand sides.
      perturb_singular: perturb tiny pivots (by about eps max|U|) so that singular systems
        still give finite results.

    Returns:
      X of b's shape (NaN where a system is singular and `perturb_singular` is False).
    """
    return bind(TRIDIAGONAL_SOLVE, dl, d, du, b, perturb_singular=bool(perturb_singular))


def tridiagonal_product(dl: Any, d: Any, du: Any, b: Any) -> Any:
    """A B for the tridiagonal A of (dl, d, du); dl[0] and du[m-1] multiply zeros."""
    *batch, m, n = aval_of(b).shape
    nd = len(batch) + 2
    product = ew.mul(u.bcast_cols(d, n), b)
    if m < 2:
        return product
    zero, keep = full((), 0, u.dtype(b)), [(0, 0, 0)] * (nd - 2)
    above = lax_slice(b, (0,) * nd, (*batch, m - 1, n))  # b[i - 1] moved to row i
    below = lax_slice(b, (0,) * (nd - 2) + (1, 0), (*batch, m, n))  # b[i + 1] to row i
    product = ew.add(
        product, ew.mul(u.bcast_cols(dl, n), pad(above, zero, [*keep, (1, 0, 0), (0, 0, 0)]))
    )
    return ew.add(
        product, ew.mul(u.bcast_cols(du, n), pad(below, zero, [*keep, (0, 1, 0), (0, 0, 0)]))
    )


# --- tridiagonal_solve's derivatives: nonlinear in the diagonals, linear in b -------------------


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    *diagonals, b = primals
    *diagonal_tangents, db = tangents
    x = bind(TRIDIAGONAL_SOLVE, *diagonals, b, perturb_singular=perturb_singular)
    rhs = db
    if any(t is not None for t in diagonal_tangents):
        filled = [
            full(u.shape(p), 0, u.dtype(p)) if t is None else t
            for p, t in zip(diagonals, diagonal_tangents, strict=True)
        ]
        change = tridiagonal_product(*filled, x)
        rhs = unary.neg(change) if rhs is None else ew.sub(rhs, change)
    dx = (
        None
        if rhs is None
        else bind(TRIDIAGONAL_SOLVE, *diagonals, rhs, perturb_singular=perturb_singular)
    )
    return x, dx


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    if any(is_undefined(v) for v in (dl, d, du)):
        raise NotImplementedError("[transpose] tridiagonal_solve is not linear in the diagonals")
    if ct is None:
        return [None, None, None, None]
    # A^T has sub-diagonal du shifted down by one and super-diagonal dl shifted up by one.
    nd = len(u.shape(d))
    zero, keep = full((), 0, u.dtype(d)), [(0, 0, 0)] * (nd - 1)
    m = u.shape(d)[-1]
    dl_t = pad(
        lax_slice(du, (0,) * nd, (*u.shape(du)[:-1], max(m - 1, 0))), zero, [*keep, (1, 0, 0)]
    )
    du_t = pad(lax_slice(dl, (0,) * (nd - 1) + (min(1, m),), u.shape(dl)), zero, [*keep, (0, 1, 0)])
    return [
        None,
        None,
        None,
        bind(TRIDIAGONAL_SOLVE, dl_t, d, du_t, ct, perturb_singular=perturb_singular),
    ]


# --- registration ------------------------------------------------------------------------------

# JAX differentiates none of the reductions but tridiagonal_solve (its jvp raises
# NotImplementedError for them, as here).
for _name, _rule in [
    ("hessenberg", _hessenberg_rule),
    ("tridiagonal", _tridiagonal_rule),
    ("schur", _schur_rule),
    ("householder_product", _householder_product_rule),
    ("ormqr", _ormqr_rule),
    ("geqrf", _geqrf_rule),
]:
    def_linalg_op(_name, _rule, jvp=jvp_not_implemented(_name), expand=EXPANSIONS[_name])
def_linalg_op(
    "tridiagonal_solve",
    _tridiagonal_solve_rule,
    jvp=_tridiagonal_solve_jvp,
    transpose=_tridiagonal_solve_transpose,
    expand=EXPANSIONS["tridiagonal_solve"],
)
