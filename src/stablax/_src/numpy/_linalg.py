"""jnp.linalg decompositions and solvers, composed from the lax.linalg ops.

Inputs are promoted to an inexact dtype as in JAX; every function accepts stacks of matrices
(leading batch dimensions) and broadcasts those of its operands.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit as _eager
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax import _linalg as ll
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._linalg_reductions import geqrf
from stablax._src.lax._reduce_monoids import reduce_prod, reduce_sum
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import (
    broadcast_shapes,
    broadcast_to_shape,
    check_arraylike,
    promote_dtypes_inexact,
)
from stablax._src.numpy._ufuncs import multiply


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class EigResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


class QRResult(NamedTuple):
    Q: Any
    R: Any


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


# The functions for which JAX raises TypeError (not ValueError) for an argument of rank < 2, and
# for a non-square one.
_RANK_TYPE_ERROR = {"cholesky", "qr", "eigh", "svd", "eig", "eigvals", "matrix_power", "lstsq"}
_SQUARE_TYPE_ERROR = {"cholesky", "eigh", "svd", "matrix_power"}  # with symmetrize_input


def matrices(name: str, a: Any, square: bool = True) -> Any:
    """`a` as an inexact array of (stacked) matrices, or JAX's error class naming `name`."""
    (a,) = promote_dtypes_inexact(asarray(a))
    shape = a.aval.shape
    if len(shape) < 2 or (square and shape[-1] != shape[-2]):
        want = "[..., n, n]" if square else "[..., m, n]"
        error = _RANK_TYPE_ERROR if len(shape) < 2 else _SQUARE_TYPE_ERROR
        raise (TypeError if name in error else ValueError)(
            f"jnp.linalg.{name}: argument must have shape {want}, got {shape}{mlir.where_suffix()}"
        )
    return a


def _hermitian(name: str, a: Any, symmetrize_input: bool) -> Any:
    # JAX's classes for a non-square input: (a + a^H) / 2 fails to broadcast (TypeError), an
    # unsymmetrized one fails its square check (ValueError).
    shape = np.shape(a)
    if not symmetrize_input and len(shape) >= 2 and shape[-1] != shape[-2]:
        raise ValueError(
            f"jnp.linalg.{name}: argument must have shape [..., n, n], got {shape}"
            f"{mlir.where_suffix()}"
        )
    return matrices(name, a)


# --- decompositions ----------------------------------------------------------------------------


def _cholesky_impl(a, upper, symmetrize_input):
    a = _hermitian("cholesky", a, symmetrize_input)
    factor = ll.cholesky(a, symmetrize_input=symmetrize_input)
    return u.H(factor) if upper else factor


def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """Cholesky factor of Hermitian positive-definite matrices (numpy.linalg.cholesky).

    Returns the lower factor L with a = L L^H, or the upper U = L^H with `upper=True`; NaNs where
    a matrix is not positive definite.
    """
    return _cholesky(a, bool(upper), bool(symmetrize_input))


_cholesky = _eager(_cholesky_impl, static_argnums=(1, 2))


def _qr_impl(a, mode="reduced"):
    a = asarray(a)  # an array first, then mode, then the shape: JAX's order
    if mode not in ("reduced", "complete", "r", "raw", "full"):  # "full": JAX's alias of reduced
        raise ValueError(f"jnp.linalg.qr: unsupported mode {mode!r}{mlir.where_suffix()}")
    a = matrices("qr", a, square=False)
    if mode == "raw":
        raise NotImplementedError(
            f"jnp.linalg.qr: mode='raw' is not supported{mlir.where_suffix()}"
        )
    q, r = ll.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


qr = _eager(_qr_impl, static_argnames=("mode",))


def _eigh_impl(a, UPLO=None, symmetrize_input=True):  # noqa: N803 (NumPy's name)
    a = asarray(a)  # an array first, then UPLO, then the shape: JAX's order
    if UPLO not in (None, "L", "U"):
        raise ValueError(
            f"jnp.linalg.eigh: UPLO must be 'L' or 'U', got {UPLO!r}{mlir.where_suffix()}"
        )
    a = _hermitian("eigh", a, symmetrize_input)
    v, w = ll.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


eigh = _eager(_eigh_impl, static_argnames=("UPLO", "symmetrize_input"))


def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Any:  # noqa: N803
    """Eigenvalues of Hermitian matrices, ascending (numpy.linalg.eigvalsh)."""
    return eigh(a, UPLO=UPLO, symmetrize_input=symmetrize_input).eigenvalues


def _svd_impl(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    a = matrices("svd", a, square=hermitian)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    out = ll.svd(
        a, full_matrices=full_matrices, compute_uv=compute_uv, subset_by_index=subset_by_index
    )
    return SVDResult(*out) if compute_uv else out


def _hermitian_svd(a, compute_uv):
    # From the eigendecomposition: s = |w| sorted descending, V^H = (U sign(w))^H.
    v, w = ll.eigh(a)
    s = unary.abs(w)
    n = u.shape(s)[-1]
    nd = len(u.shape(s))
    positions = lax.broadcasted_iota(np.int32, u.shape(s), nd - 1)
    # JAX's order: a stable ascending sort, reversed, so equal |w| come last-first (the
    # singular vectors of a repeated singular value are not unique; this picks JAX's)
    _, order = lax.sort((s, positions), dimension=nd - 1, num_keys=1)
    order = lax.rev(order, (nd - 1,))
    s = _take_last(s, order)
    if not compute_uv:
        return s
    left = u.mT(u.permute_rows(u.mT(v), order))
    signs = u.cast(ew.sign(_take_last(w, order)), u.dtype(a))
    right = u.H(ew.mul(left, u.bcast_rows(signs, n)))
    return SVDResult(left, s, right)


def _take_last(x, order):
    # x[..., order] for vectors, as a one-hot product.
    column = u.permute_rows(lax.expand_dims(x, (len(u.shape(x)),)), order)
    return lax.squeeze(column, (len(u.shape(column)) - 1,))


svd = _eager(
    _svd_impl, static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index")
)


def svdvals(x: Any, /) -> Any:
    """Singular values, descending (numpy.linalg.svdvals)."""
    return svd(x, compute_uv=False)


@_eager
def eig(a: Any) -> EigResult:
    """Eigenvalues and right eigenvectors of general square matrices (numpy.linalg.eig; CPU).

    Both are complex; eigenvectors are the unit-norm columns.
    """
    w, v = ll.eig(matrices("eig", a), compute_left_eigenvectors=False)
    return EigResult(w, v)


@_eager
def eigvals(a: Any) -> Any:
    """Eigenvalues of general square matrices, complex (numpy.linalg.eigvals; CPU)."""
    (w,) = ll.eig(
        matrices("eigvals", a), compute_left_eigenvectors=False, compute_right_eigenvectors=False
    )
    return w


# --- determinants ------------------------------------------------------------------------------


def _lu_parts(a):
    factors, pivots, _ = ll.lu(a)
    diagonal = u.diagonal(factors)
    nd = len(u.shape(pivots))
    swapped = ew.ne(pivots, lax.broadcasted_iota(np.int32, u.shape(pivots), nd - 1))
    swaps = reduce_sum(u.cast(swapped, np.dtype(np.int32)), (nd - 1,))
    odd = ew.eq(
        ew.rem(swaps, lax.full(u.shape(swaps), 2, np.int32)), lax.full(u.shape(swaps), 1, np.int32)
    )
    parity = ew.select(
        odd, lax.full(u.shape(swaps), -1, u.dtype(a)), lax.full(u.shape(swaps), 1, u.dtype(a))
    )
    return diagonal, parity


def _half_in_float32(a: Any) -> tuple[Any, Any]:
    """float16/bfloat16 matrices widened to float32 (LAPACK has no half precision) and the
    function narrowing results back."""
    dtype = u.dtype(a)
    if dtype.itemsize >= 4 or dtype.kind == "c":
        return a, lambda x: x
    return u.cast(a, np.dtype(np.float32)), lambda x: u.cast(x, dtype)


@_eager
def det(a: Any) -> Any:
    """Determinants of square matrices, from an LU decomposition (numpy.linalg.det)."""
    a, narrow = _half_in_float32(matrices("det", a))
    diagonal, parity = _lu_parts(a)
    return narrow(ew.mul(parity, reduce_prod(diagonal, (len(u.shape(diagonal)) - 1,))))


def _slogdet_impl(a, method=None):
    if not isinstance(a, (list, tuple)):  # None and other non-arrays: JAX's TypeError, named
        check_arraylike("jnp.linalg.slogdet", a)
    a, narrow = _half_in_float32(matrices("slogdet", a))  # the array before method: JAX's order
    if method not in (None, "lu", "qr"):
        raise ValueError(
            f"jnp.linalg.slogdet: unsupported method {method!r}; the methods are 'lu' (None) "
            f"and 'qr'{mlir.where_suffix()}"
        )
    if method == "qr":
        if u.is_complex(a):  # JAX's class
            raise NotImplementedError(
                f"jnp.linalg.slogdet: method='qr' is not implemented for complex inputs"
                f"{mlir.where_suffix()}"
            )
        sign, logabsdet = _slogdet_qr(a)
    else:
        sign, logabsdet = _slogdet_parts(a)
    return SlogdetResult(narrow(sign), narrow(logabsdet))


def _slogdet_qr_parts(a):
    """slogdet from Householder QR (no row pivoting, which batches well on TPUs): |det| is the
    product of R's diagonal, and each reflection actually made (tau != 0) flips the sign."""
    factors, taus = geqrf(a)
    diagonal = u.diagonal(factors)
    axis = (len(u.shape(diagonal)) - 1,)
    logabsdet = reduce_sum(unary.log(unary.abs(diagonal)), axis)
    sign = reduce_prod(ew.sign(diagonal), axis)
    n = u.shape(a)[-1]
    batch = u.shape(taus)[:-1]
    made = lax.slice(taus, (0,) * len(u.shape(taus)), (*batch, max(n - 1, 0)))
    flips = ew.select(
        ew.ne(made, lax.full(u.shape(made), 0, u.dtype(made))),
        lax.full(u.shape(made), -1, u.dtype(a)),
        lax.full(u.shape(made), 1, u.dtype(a)),
    )
    return ew.mul(sign, reduce_prod(flips, axis)), logabsdet


def _slogdet_jvp(primals, tangents):
    """JAX's rule for a real input: d log|det a| = trace(a^-1 da); the sign is piecewise
    constant."""
    (a,), (da,) = primals, tangents
    sign, logabsdet = _slogdet_qr_parts(a)
    solved = solve(a, da)
    return (sign, logabsdet), (
        lax.full_like(sign, 0),
        reduce_sum(u.diagonal(solved), (solved.aval.ndim - 2,)),
    )


_slogdet_qr = custom_jvp(_slogdet_qr_parts)
_slogdet_qr.defjvp(_slogdet_jvp)


def _slogdet_parts(a):
    diagonal, parity = _lu_parts(a)
    axis = (len(u.shape(diagonal)) - 1,)
    magnitude = unary.abs(diagonal)
    logabsdet = reduce_sum(unary.log(magnitude), axis)
    zero = lax.full(u.shape(magnitude), 0, u.dtype(magnitude))
    singular = lax.reduce_or(ew.eq(magnitude, zero), axis)
    if u.is_complex(a):
        unit = ew.div(
            diagonal,
            u.cast(ew.select(ew.eq(magnitude, zero), ew.add(zero, 1.0), magnitude), u.dtype(a)),
        )
        sign = ew.mul(parity, reduce_prod(unit, axis))
    else:
        sign = ew.mul(parity, reduce_prod(ew.sign(diagonal), axis))
    sign = ew.select(singular, lax.full(u.shape(sign), 0, u.dtype(sign)), sign)
    logabsdet = ew.select(
        singular, lax.full(u.shape(logabsdet), -np.inf, u.dtype(logabsdet)), logabsdet
    )
    return sign, logabsdet


slogdet = _eager(_slogdet_impl, static_argnames=("method",))


# --- solvers -----------------------------------------------------------------------------------


def lu_solve_matrices(factors, permutation, b):
    """Solves a x = b given a's LU factors (b of shape (..., n, k))."""
    y = ll.triangular_solve(
        factors, u.permute_rows(b, permutation), left_side=True, lower=True, unit_diagonal=True
    )
    return ll.triangular_solve(factors, y, left_side=True, lower=False)


@_eager
def solve(a: Any, b: Any) -> Any:
    """Solves a x = b for x (numpy.linalg.solve), by LU with partial pivoting.

    b is a vector (n,) or a stack of right-hand-side matrices (..., n, k); batch dimensions
    broadcast against a's.
    """
    a, b = promote_dtypes_inexact(asarray(a), asarray(b))
    a = matrices("solve", a)
    n = a.aval.shape[-1]
    vector = b.aval.ndim == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    if b.aval.ndim < 2 or b.aval.shape[-2] != n:
        raise ValueError(
            f"jnp.linalg.solve: incompatible shapes {a.aval.shape} and "
            f"{b.aval.shape[:-1] if vector else b.aval.shape}{mlir.where_suffix()}"
        )
    batch = broadcast_shapes("jnp.linalg.solve", a.aval.shape[:-2], b.aval.shape[:-2])
    a = broadcast_to_shape(a, (*batch, n, n))
    b = broadcast_to_shape(b, (*batch, *b.aval.shape[-2:]))
    factors, _, permutation = ll.lu(a)
    x = lu_solve_matrices(factors, permutation, b)
    x = lax.squeeze(x, (x.aval.ndim - 1,)) if vector else x
    # As JAX (its linear solve keeps the operands' type): weak when both operands are.
    weak = a.aval.weak_type and b.aval.weak_type
    return lax.convert_element_type(x, x.aval.dtype, weak_type=True) if weak else x


@_eager
def inv(a: Any) -> Any:
    """Inverses of square matrices (numpy.linalg.inv), by LU with partial pivoting."""
    a = matrices("inv", a)
    *batch, n, _ = a.aval.shape
    factors, _, permutation = ll.lu(a)
    return lu_solve_matrices(factors, permutation, u.eye(n, a.aval.dtype, tuple(batch)))


def _default_rtol(shape, dt) -> float:
    return float(max(shape[-2:]) * dtypes.finfo(u.real_dtype(np.dtype(dt))).eps)


def _pinv_impl(a, rtol=None, hermitian=False):
    a = matrices("pinv", a, square=False)
    *batch, m, n = a.aval.shape
    if m == 0 or n == 0:
        return lax.full((*batch, n, m), 0, a.aval.dtype)
    left, s, right = _svd_impl(a, full_matrices=False, hermitian=hermitian)
    rtol = 10.0 * _default_rtol(a.aval.shape, a.aval.dtype) if rtol is None else rtol
    largest = lax.slice_in_dim(s, 0, 1, axis=len(batch))
    rtol = asarray(rtol)
    if rtol.aval.ndim:  # one tolerance per matrix: aligned with the batch dimensions
        rtol = lax.expand_dims(rtol, (rtol.aval.ndim,))
    if broadcast_shapes("jnp.linalg.pinv", rtol.aval.shape, largest.aval.shape) != u.shape(largest):
        raise ValueError(  # NumPy's class; JAX 0.10.2 broadcasts the result to more dimensions
            f"jnp.linalg.pinv: rtol of shape {rtol.aval.shape[:-1]} does not broadcast to the "
            f"batch shape {tuple(batch)} of a{mlir.where_suffix()}"
        )
    cutoff = multiply(u.cast(rtol, u.dtype(s)), largest)
    cutoff = broadcast_to_shape(cutoff, u.shape(s))
    kept = ew.gt(s, cutoff)
    ones = lax.full(u.shape(s), 1, u.dtype(s))
    s_inv = ew.select(kept, ew.div(ones, ew.select(kept, s, ones)), ew.sub(ones, ones))
    scaled = ew.mul(u.H(right), u.bcast_rows(u.cast(s_inv, a.aval.dtype), n))
    return u.matmul(scaled, u.H(left))


_pinv = _eager(_pinv_impl, static_argnames=("hermitian",))


def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
    """Moore-Penrose pseudo-inverse via the SVD (numpy.linalg.pinv).

    Singular values below `rtol` times the largest (default 10 max(m, n) eps) count as zero.
    """
    if rcond is not None:
        if rtol is not None:  # JAX's check
            raise ValueError(
                f"jnp.linalg.pinv: only one of rtol and rcond may be specified{mlir.where_suffix()}"
            )
        rtol = rcond
    return _pinv(a, rtol, hermitian=bool(hermitian))


def _lstsq_impl(a, b, rcond=None, numpy_resid=False):
    a, b = promote_dtypes_inexact(asarray(a), asarray(b))
    if a.aval.ndim and b.aval.ndim and a.aval.shape[0] != b.aval.shape[0]:  # JAX's order
        raise ValueError(
            f"jnp.linalg.lstsq: leading dimensions of a {a.aval.shape} and b {b.aval.shape} "
            f"must match{mlir.where_suffix()}"
        )
    a = matrices("lstsq", a, square=False)
    if a.aval.ndim != 2:
        raise TypeError(f"jnp.linalg.lstsq: a must be 2-D, got {a.aval.shape}{mlir.where_suffix()}")
    vector = b.aval.ndim == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    m, n = a.aval.shape
    if b.aval.ndim != 2 or b.aval.shape[0] != m:
        raise TypeError(
            f"jnp.linalg.lstsq: leading dimensions of a {a.aval.shape} and b "
            f"{b.aval.shape} must match{mlir.where_suffix()}"
        )
    dt = a.aval.dtype
    rtol = _default_rtol(a.aval.shape, dt) if rcond is None else rcond
    left, s, right = ll.svd(a, full_matrices=False)
    k = u.shape(s)[-1]
    if k == 0:
        x = lax.full((n, b.aval.shape[1]), 0, dt)
        rank = lax.full((), 0, dtypes.default_int_dtype())  # JAX's: a sum of booleans
    else:
        cutoff = ew.mul(
            lax.full((k,), rtol, u.dtype(s)),
            lax.broadcast_in_dim(lax.slice_in_dim(s, 0, 1), (k,), (0,)),
        )
        kept = ew.gt(s, cutoff)
        ones = lax.full((k,), 1, u.dtype(s))
        s_inv = ew.select(kept, ew.div(ones, ew.select(kept, s, ones)), ew.sub(ones, ones))
        coefficients = ew.mul(
            u.matmul(u.H(left), b), u.bcast_cols(u.cast(s_inv, dt), b.aval.shape[1])
        )
        x = u.matmul(u.H(right), coefficients)
        rank = reduce_sum(u.cast(kept, dtypes.default_int_dtype()), (0,))
    residual = ew.sub(b, u.matmul(a, x))
    squared = (
        unary.real(ew.mul(residual, ew.conj(residual)))
        if u.is_complex(residual)
        else ew.mul(residual, residual)
    )
    resid = reduce_sum(squared, (0,))
    if numpy_resid and m <= n:  # full-rank overdetermined systems only: see lstsq
        resid = lax.full((0,), 0, u.dtype(resid))
    if vector:
        x = lax.squeeze(x, (1,))
    return x, resid, rank, s


_lstsq = _eager(_lstsq_impl, static_argnames=("rcond", "numpy_resid"))


def lstsq(a: Any, b: Any, rcond: float | None = None, *, numpy_resid: bool = False) -> Any:
    """The least-squares solution x of a @ x = b, with the residuals, rank and singular values
    of `a` (NumPy's `linalg.lstsq`, through an SVD).

    With `numpy_resid`, the residuals are empty unless the system is overdetermined and of full
    rank, as NumPy's; that needs a concrete rank when a has more rows than columns (as JAX).
    """
    x, resid, rank, s = _lstsq(a, b, rcond, numpy_resid)
    if numpy_resid and resid.shape[0] and bool(rank < x.shape[0]):
        resid = lax.full((0,), 0, resid.dtype)
    return x, resid, rank, s


def _matrix_power_impl(a, n):
    a = asarray(a)
    if n < 0 or a.aval.ndim < 2:  # integer matrices keep their dtype unless inverted, as JAX
        a = matrices("matrix_power", a)
    elif a.aval.shape[-1] != a.aval.shape[-2]:
        raise TypeError(
            f"jnp.linalg.matrix_power: argument must have shape [..., n, n], got "
            f"{a.aval.shape}{mlir.where_suffix()}"
        )
    *batch, size, _ = a.aval.shape
    if n == 0:
        return u.eye(size, a.aval.dtype, tuple(batch))
    if n < 0:
        a, n = inv(a), -n
    result = None
    power = a
    while n:  # binary exponentiation: O(log n) products
        if n & 1:
            result = power if result is None else u.matmul(result, power)
        n >>= 1
        if n:
            power = u.matmul(power, power)
    return result


_matrix_power = _eager(_matrix_power_impl, static_argnums=(1,))


def matrix_power(a: Any, n: int) -> Any:
    """a raised to the integer power n (numpy.linalg.matrix_power); n < 0 inverts first."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(
            f"jnp.linalg.matrix_power: exponent must be an integer, got {n!r}"
        ) from None
    return _matrix_power(a, n)
