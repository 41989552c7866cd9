"""lax.linalg's decompositions (cholesky, lu, qr, eigh, svd, eig): one marker op each, registered
with its rules (`_linalg_ad`) and kernels (`_linalg_kernels`), and the public functions that bind
them. All accept leading batch dimensions; triangular_solve lives in `_linalg_solve`."""

from __future__ import annotations

import enum
import warnings
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._argcheck import sequence
from stablax._src.lax._linalg_ad import (
    _cholesky_jvp,
    _eig_jvp,
    _eigh_jvp,
    _lu_jvp,
    _qr_jvp,
    _svd_jvp,
)
from stablax._src.lax._linalg_kernels import EXPANSIONS
from stablax._src.lax._linalg_markers import (
    CHOLESKY,
    EIG,
    EIGH,
    LU,
    QR,
    SVD,
    check_matrix,
    def_linalg_op,
)
from stablax._src.lax._linalg_solve import lu_pivots_to_permutation
from stablax._src.lax._linalg_solve import triangular_solve as triangular_solve
from stablax._src.lax._shapes import convert_element_type, full

# --- shape rules -------------------------------------------------------------------------------


def _cholesky_rule(x: ShapedArray) -> ShapedArray:
    check_matrix("cholesky", x, square=True)
    return x  # a weak input stays weak, as in JAX


def _lu_rule(x: ShapedArray) -> tuple[ShapedArray, ShapedArray]:
    m, n = check_matrix("lu", x, square=False)
    return x.strip_weak_type(), ShapedArray((*x.shape[:-2], min(m, n)), np.int32)


def _qr_rule(x: ShapedArray, *, full_matrices: bool, pivoting: bool = False) -> tuple:
    m, n = check_matrix("qr", x, square=False, empty_any_float=True)
    k = m if full_matrices else min(m, n)
    batch = x.shape[:-2]
    q, r = ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)
    return (q, r, ShapedArray((*batch, n), np.int32)) if pivoting else (q, r)


def _eigh_rule(x: ShapedArray, *, lower: bool) -> tuple[ShapedArray, ShapedArray]:
    check_matrix("eigh", x, square=True)
    return x.strip_weak_type(), ShapedArray(x.shape[:-1], u.real_dtype(x.dtype))


def _svd_rule(
    x: ShapedArray, *, full_matrices: bool, compute_uv: bool, gesvd: bool = False
) -> tuple:
    m, n = check_matrix("svd", x, square=False, empty_any_float=True)
    batch, k = x.shape[:-2], min(m, n)
    s = ShapedArray((*batch, k), u.real_dtype(x.dtype))
    if not compute_uv:
        return (s,)
    rows, cols = (m, n) if full_matrices else (k, k)
    return s, ShapedArray((*batch, m, rows), x.dtype), ShapedArray((*batch, cols, n), x.dtype)


def _eig_rule(
    x: ShapedArray,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool = False,
) -> tuple:
    check_matrix("eig", x, square=True)
    complex_dtype = u.complex_dtype(x.dtype)
    vectors = ShapedArray(x.shape, complex_dtype)
    outs = [ShapedArray(x.shape[:-1], complex_dtype)]
    outs += [vectors] * (int(compute_left_eigenvectors) + int(compute_right_eigenvectors))
    return tuple(outs)


# --- registration ------------------------------------------------------------------------------


def_linalg_op("cholesky", _cholesky_rule, jvp=_cholesky_jvp, expand=EXPANSIONS["cholesky"])
def_linalg_op("lu", _lu_rule, jvp=_lu_jvp, expand=EXPANSIONS["lu"])
def_linalg_op("qr", _qr_rule, jvp=_qr_jvp, expand=EXPANSIONS["qr"])
def_linalg_op("eigh", _eigh_rule, jvp=_eigh_jvp, expand=EXPANSIONS["eigh"])
def_linalg_op("svd", _svd_rule, jvp=_svd_jvp, expand=EXPANSIONS["svd"])
def_linalg_op("eig", _eig_rule, jvp=_eig_jvp, expand=EXPANSIONS["eig"])


# --- public functions ---------------------------------------------------------------------------


def symmetrize(x: Any) -> Any:
    """(x + x^H) / 2: the Hermitian part, so that only a symmetric input is decomposed.

    As JAX's array arithmetic: the sum is in x's own dtype (integers wrap, booleans OR), then a
    true division by a weak 2, so a boolean or weak input gives a weak float."""
    weak = u.dtype(x) == np.bool_ or aval_of(x).weak_type
    total = ew.add(x, u.H(x))
    dtype = dtypes.to_inexact_dtype(u.dtype(x))
    if weak and dtype != u.dtype(x):  # a bool or weak int meets the weak 2: the default float
        dtype = dtypes.default_float_dtype()
    if dtype != u.dtype(x):
        total = convert_element_type(total, dtype)
    half = ew.div(total, full((), 2, dtype))
    return convert_element_type(half, dtype, weak_type=True) if weak else half


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor L of Hermitian positive-definite x = L L^H (NaN if it fails).

    Args:
      x: matrices of shape (..., n, n), float or complex.
      symmetrize_input: decompose (x + x^H) / 2 rather than the lower triangle of x.

    Returns:
      L of x's shape; a matrix that is not positive definite gives NaNs.
    """
    if symmetrize_input:
        x = symmetrize(x)
    return bind(CHOLESKY, x)


def lu(x: Any) -> tuple[Any, Any, Any]:
    """LU decomposition with partial pivoting: P x = L U (LAPACK getrf on CPU).

    Returns:
      `(lu, pivots, permutation)`: L below the diagonal (unit diagonal implied) and U on and
      above it; the row swaps (0-based, int32) and the row permutation they amount to.
    """
    factors, pivots = bind(LU, x)
    return factors, pivots, lu_pivots_to_permutation(pivots, u.shape(x)[-2])


class EigImplementation(enum.Enum):
    """Algorithm choice for `eig` (only LAPACK exists on CPU)."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class EighImplementation(enum.Enum):
    """Algorithm choice for `eigh` (QR on CPU; Jacobi and QDWH are accelerator-only)."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """Algorithm choice for `svd`: DEFAULT/DIVIDE_AND_CONQUER (gesdd) or QR (gesvd) on CPU."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def qr(
    x: Any, *, pivoting: bool = False, full_matrices: bool = True, use_magma: bool | None = None
) -> tuple[Any, ...]:
    """QR decomposition x = Q R (LAPACK geqrf/geqp3 + orgqr/ungqr on CPU).

    Args:
      x: matrices of shape (..., m, n).
      pivoting: column pivoting (geqp3): x[..., :, p] = Q R with |diag(R)| non-increasing.
      full_matrices: Q of shape (..., m, m) and R (..., m, n); otherwise the reduced
        (..., m, k) and (..., k, n) with k = min(m, n).
      use_magma: ignored (a GPU option in JAX).

    Returns:
      `(q, r)`, or `(q, r, p)` with the int32 column permutation p when pivoting.
    """
    del use_magma
    return bind(QR, x, full_matrices=bool(full_matrices), pivoting=bool(pivoting))


def eigh(
    x: Any,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    implementation: EighImplementation | None = None,
) -> tuple[Any, Any]:
    """Eigendecomposition of Hermitian matrices (LAPACK syevd/heevd on CPU).

    Args:
      x: matrices of shape (..., n, n).
      lower: read the lower triangle (else the upper) when `symmetrize_input` is False.
      symmetrize_input: decompose (x + x^H) / 2.
      sort_eigenvalues: eigenvalues come in ascending order (always true here).
      subset_by_index: only None or (0, n) (all eigenpairs), as on JAX's CPU backend.
      implementation: None or `EighImplementation.QR`; Jacobi and QDWH are TPU/GPU-only.

    Returns:
      `(v, w)`: eigenvectors in the columns of v, real eigenvalues w in ascending order.
    """
    del sort_eigenvalues  # LAPACK returns them sorted
    # JAX's order: the symmetrization, the operand's shape, subset_by_index, the algorithm
    if symmetrize_input:
        x = symmetrize(x)
    _, n = check_matrix("eigh", aval_of(x), square=True)
    if subset_by_index is not None and tuple(
        sequence(subset_by_index, "subset_by_index", "lax.linalg.eigh")
    ) != (0, n):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    if implementation == EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    if implementation == EighImplementation.JACOBI:
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    return bind(EIGH, x, lower=bool(lower))


def svd(
    x: Any,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: SvdAlgorithm | None = None,
) -> Any:
    """Singular value decomposition x = U diag(s) V^H (LAPACK gesdd, or gesvd, on CPU).

    Args:
      x: matrices of shape (..., m, n).
      full_matrices: U (..., m, m) and V^H (..., n, n); else the reduced (..., m, k), (..., k, n).
      compute_uv: return U and V^H too, else only s.
      subset_by_index: only None or (0, min(m, n)), as on JAX's CPU backend.
      algorithm: None, DEFAULT or DIVIDE_AND_CONQUER (gesdd), QR (gesvd).

    Returns:
      `(u, s, vh)` when `compute_uv`, else `s`; s is real, descending.
    """
    aval = aval_of(x)
    if subset_by_index is not None and aval.ndim >= 2:
        rank = min(aval.shape[-2:])
        if full_matrices and not isinstance(subset_by_index, (tuple, list)):
            # JAX's first check: a non-sequence is never the whole range (0, rank)
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        subset = tuple(sequence(subset_by_index, "subset_by_index", "lax.linalg.svd"))
        if full_matrices and subset != (0, rank):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        if subset != (0, rank):
            raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    if algorithm in (SvdAlgorithm.JACOBI, SvdAlgorithm.POLAR):
        raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on CPU.")
    outs = bind(
        SVD,
        x,
        full_matrices=bool(full_matrices),
        compute_uv=bool(compute_uv),
        gesvd=algorithm == SvdAlgorithm.QR,
    )
    if not compute_uv:
        return outs[0]
    s, left, right = outs
    return left, s, right


def eig(
    x: Any,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation: EigImplementation | None = None,
    use_magma: bool | None = None,
) -> list[Any]:
    """Eigendecomposition of general square matrices (LAPACK geev, CPU only).

    Args:
      x: matrices of shape (..., n, n).
      compute_left_eigenvectors, compute_right_eigenvectors: which eigenvectors to return.
      enable_eigvec_derivs: allow differentiating the eigenvectors (valid for distinct
        eigenvalues, under LAPACK's normalisation: unit norm, real largest component).
      implementation: None or `EigImplementation.LAPACK` on CPU.
      use_magma: deprecated alias of `implementation`.

    Returns:
      `[w]` followed by the left eigenvectors `vl` and the right eigenvectors `vr` (columns,
      unit norm) when requested; all complex.
    """
    if use_magma is not None:
        warnings.warn(
            "use_magma is deprecated, please use implementation=EigImplementation.MAGMA instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        implementation = EigImplementation.MAGMA if use_magma else EigImplementation.LAPACK
    try:  # a static parameter: JAX hashes it when binding, before it looks at x
        hash(implementation)
    except TypeError:
        raise TypeError(
            "lax.linalg.eig: implementation must be an EigImplementation or None, got the "
            f"unhashable {implementation!r}{mlir.where_suffix()}"
        ) from None
    if implementation is not None and implementation != EigImplementation.LAPACK:
        # After the input's checks, as in JAX (its shape and dtype rules, then the lowering).
        _eig_rule(
            aval_of(x),
            compute_left_eigenvectors=bool(compute_left_eigenvectors),
            compute_right_eigenvectors=bool(compute_right_eigenvectors),
        )
        raise ValueError("Only the lapack implementation is supported on CPU.")
    outs = bind(
        EIG,
        x,
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
    )
    return list(outs)
