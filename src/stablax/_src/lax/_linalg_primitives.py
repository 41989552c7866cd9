"""The `*_p` objects of jax.lax.linalg: each `.bind(*args, **params)` applies one linalg op.

They take JAX's primitive parameters and return what JAX's primitives return (a list for the
ops with several results); the wrapped functions are those of `_linalg*`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax._src.dispatch import bind
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _linalg as ll
from stablax._src.lax import _linalg_composites as lc
from stablax._src.lax import _linalg_reductions as lr
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._linalg_markers import CHOLESKY, TRIANGULAR_SOLVE


class LinalgPrimitive:
    """A named linalg operation with JAX's `Primitive.bind` calling convention."""

    def __init__(self, name: str, impl: Callable[..., Any], multiple_results: bool) -> None:
        self.name = name
        self.multiple_results = multiple_results
        self._impl = impl

    def bind(self, *args: Any, **params: Any) -> Any:
        out = self._impl(*args, **params)
        return list(out) if self.multiple_results else out

    def __repr__(self) -> str:
        return self.name


def _cholesky(x):
    # LAPACK's potrf leaves the strictly upper triangle of its input in place.
    return ew.add(bind(CHOLESKY, x), u.triu(x, 1))


def _eigh(x, *, lower=True, sort_eigenvalues=True, subset_by_index=None, algorithm=None):
    return ll.eigh(
        x,
        lower=lower,
        symmetrize_input=False,
        sort_eigenvalues=sort_eigenvalues,
        subset_by_index=subset_by_index,
        implementation=algorithm,
    )


def _lu(x):
    return ll.lu(x)


def _qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    return ll.qr(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)


def _svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    out = ll.svd(
        x,
        full_matrices=full_matrices,
        compute_uv=compute_uv,
        subset_by_index=subset_by_index,
        algorithm=algorithm,
    )
    if not compute_uv:
        return [out]
    left, s, right = out
    return [s, left, right]


def _schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    out = lr.schur(
        x,
        compute_schur_vectors=compute_schur_vectors,
        sort_eig_vals=sort_eig_vals,
        select_callable=select_callable,
    )
    return out if compute_schur_vectors else [out]


def _triangular_solve(a, b, **params):
    return bind(
        TRIANGULAR_SOLVE,
        a,
        b,
        **{
            k: bool(params.get(k, False))
            for k in ("left_side", "lower", "transpose_a", "conjugate_a", "unit_diagonal")
        },
    )


cholesky_p = LinalgPrimitive("cholesky", _cholesky, False)
cholesky_update_p = LinalgPrimitive("cholesky_update", lc.cholesky_update, False)
eig_p = LinalgPrimitive("eig", ll.eig, True)
eigh_p = LinalgPrimitive("eigh", _eigh, True)
hessenberg_p = LinalgPrimitive("hessenberg", lr.hessenberg, True)
householder_product_p = LinalgPrimitive("householder_product", lr.householder_product, False)
lu_p = LinalgPrimitive("lu", _lu, True)
lu_pivots_to_permutation_p = LinalgPrimitive(
    "lu_pivots_to_permutation", ll.lu_pivots_to_permutation, False
)
ormqr_p = LinalgPrimitive("ormqr", lr.ormqr, False)
qr_p = LinalgPrimitive("qr", _qr, True)
schur_p = LinalgPrimitive("schur", _schur, True)
svd_p = LinalgPrimitive("svd", _svd, True)
symmetric_product_p = LinalgPrimitive("symmetric_product", lc.symmetric_product, False)
triangular_solve_p = LinalgPrimitive("triangular_solve", _triangular_solve, False)
tridiagonal_p = LinalgPrimitive("tridiagonal", lr.tridiagonal, True)
tridiagonal_solve_p = LinalgPrimitive("tridiagonal_solve", lr.tridiagonal_solve, False)
