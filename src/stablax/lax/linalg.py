"""stablax.lax.linalg: matrix decompositions and triangular solves (batched over leading axes)."""

from stablax._src.lax._linalg import (
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

__all__ = [
    "cholesky",
    "eig",
    "eigh",
    "lu",
    "lu_pivots_to_permutation",
    "qr",
    "svd",
    "symmetrize",
    "triangular_solve",
]

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import traceback_util as _traceback_util

_traceback_util.wrap_public_functions(globals())
