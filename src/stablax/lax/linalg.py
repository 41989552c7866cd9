"""stablax.lax.linalg: matrix decompositions, reductions and solves (batched over leading axes)."""

from stablax._src.lax._linalg import (
    EighImplementation,
    EigImplementation,
    SvdAlgorithm,
    cholesky,
    eig,
    eigh,
    lu,
    lu_pivots_to_permutation,
    qr,
    svd,
    symmetrize,
    triangular_solve,
)
from stablax._src.lax._linalg_composites import cholesky_update, qdwh, symmetric_product
from stablax._src.lax._linalg_primitives import (
    cholesky_p,
    cholesky_update_p,
    eig_p,
    eigh_p,
    hessenberg_p,
    householder_product_p,
    lu_p,
    lu_pivots_to_permutation_p,
    ormqr_p,
    qr_p,
    schur_p,
    svd_p,
    symmetric_product_p,
    triangular_solve_p,
    tridiagonal_p,
    tridiagonal_solve_p,
)
from stablax._src.lax._linalg_reductions import (
    hessenberg,
    householder_product,
    ormqr,
    schur,
    tridiagonal,
    tridiagonal_solve,
)

__all__ = [
    "EigImplementation",
    "EighImplementation",
    "SvdAlgorithm",
    "cholesky",
    "cholesky_p",
    "cholesky_update",
    "cholesky_update_p",
    "eig",
    "eig_p",
    "eigh",
    "eigh_p",
    "hessenberg",
    "hessenberg_p",
    "householder_product",
    "householder_product_p",
    "lu",
    "lu_p",
    "lu_pivots_to_permutation",
    "lu_pivots_to_permutation_p",
    "ormqr",
    "ormqr_p",
    "qdwh",
    "qr",
    "qr_p",
    "schur",
    "schur_p",
    "svd",
    "svd_p",
    "symmetric_product",
    "symmetric_product_p",
    "symmetrize",
    "triangular_solve",
    "triangular_solve_p",
    "tridiagonal",
    "tridiagonal_p",
    "tridiagonal_solve",
    "tridiagonal_solve_p",
]

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import traceback_util as _traceback_util

_traceback_util.wrap_public_functions(globals())
