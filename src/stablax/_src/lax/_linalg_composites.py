"""lax.linalg functions composed from other lax ops: cholesky_update, symmetric_product, qdwh.

None needs a kernel of its own (JAX lowers them the same way on CPU).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.dispatch import to_array, weak_scalar
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._control_flow_while import fori_loop, while_loop
from stablax._src.lax._linalg import cholesky, qr
from stablax._src.lax._linalg_solve import triangular_solve
from stablax._src.lax._reduce_monoids import reduce_max, reduce_sum
from stablax._src.lax._shapes import broadcast_in_dim, broadcasted_iota, full
from stablax._src.lax._slice_pad import concatenate
from stablax._src.lax._slice_pad import slice as lax_slice
from stablax._src.lax._slicing import (
    dynamic_index_in_dim,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice_in_dim,
)


def _const(value: Any, dt: np.dtype) -> Any:
    return full((), value, dt)


def _scale(value: Any, x: Any) -> Any:
    """value * x, with a Python scalar (or 0-d array) value taking x's dtype."""
    if not hasattr(value, "aval") and not isinstance(value, np.ndarray):
        value = _const(value, u.dtype(x))
    return ew.mul(broadcast_in_dim(u.cast(value, u.dtype(x)), u.shape(x), ()), x)


# --- cholesky_update ----------------------------------------------------------------------------


def cholesky_update(r_matrix: Any, w_vector: Any) -> Any:
    """The Cholesky factor of A + w w^T from that of A = R^T R, in O(n^2) (Givens rotations).

    Args:
      r_matrix: the upper-triangular factor R (n, n), float.
      w_vector: the update vector w (n,).

    Returns:
      The upper-triangular R' with R'^T R' = R^T R + w w^T.
    """
    r_aval, w_aval = aval_of(r_matrix), aval_of(w_vector)
    if r_aval.ndim != 2 or w_aval.ndim != 1:
        raise TypeError(
            "lax.linalg.cholesky_update: expects a matrix and a vector, got "
            f"{r_aval.str_short()} and {w_aval.str_short()}{mlir.where_suffix()}"
        )
    n = r_aval.shape[0]
    if r_aval.shape[1] != n or w_aval.shape[0] != n:
        raise ValueError(
            "lax.linalg.cholesky_update: Rank-1 update to Cholesky decomposition takes a square "
            f"matrix and a vector of the same size as input. Got shapes {r_aval.shape} and "
            f"{w_aval.shape} instead{mlir.where_suffix()}"
        )
    if r_aval.dtype != w_aval.dtype or r_aval.dtype.kind != "f":
        raise TypeError(
            "lax.linalg.cholesky_update: expects two float arrays of one dtype, got "
            f"{r_aval.str_short()} and {w_aval.str_short()}{mlir.where_suffix()}"
        )
    dt = r_aval.dtype
    one, zero = _const(1, dt), _const(0, dt)

    def rotation(x, y):  # a numerically stable Givens rotation zeroing y
        ax, ay = unary.abs(x), unary.abs(y)
        scale = ew.select(ew.gt(ax, ay), ax, ay)
        x, y = ew.div(x, scale), ew.div(y, scale)
        rh = ew.div(one, unary.sqrt(ew.add(ew.mul(x, x), ew.mul(y, y))))
        flat = ew.eq(y, zero)
        return (
            ew.select(flat, one, ew.mul(x, rh)),
            ew.select(flat, zero, unary.neg(ew.mul(y, rh))),
        )

    def step(k, carry):
        r, z = carry
        row = dynamic_index_in_dim(r, k, 0, keepdims=False)
        c, s = rotation(
            dynamic_index_in_dim(row, k, 0, keepdims=False),
            dynamic_index_in_dim(z, k, 0, keepdims=False),
        )
        c, s = broadcast_in_dim(c, (n,), ()), broadcast_in_dim(s, (n,), ())
        new_row = ew.sub(ew.mul(c, row), ew.mul(s, z))
        z = ew.add(ew.mul(c, z), ew.mul(s, row))
        return dynamic_update_index_in_dim(r, new_row, k, 0), z

    return fori_loop(0, n, step, (r_matrix, w_vector))[0] if n else r_matrix


# --- symmetric_product --------------------------------------------------------------------------


def symmetric_product(
    a_matrix: Any,
    c_matrix: Any,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    symmetrize_output: bool = False,
) -> Any:
    """alpha A A^T + beta C for float matrices A (..., m, n) and symmetric C (..., m, m).

    Only the lower triangle is guaranteed on every backend; `symmetrize_output` mirrors it
    into the upper one.
    """
    a_aval, c_aval = aval_of(a_matrix), aval_of(c_matrix)

    def batch_error() -> TypeError:
        return TypeError(
            "lax.linalg.symmetric_product: expects matrices with equal batch dimensions, got "
            f"{a_aval.str_short()} and {c_aval.str_short()}{mlir.where_suffix()}"
        )

    for name, value in (("alpha", alpha), ("beta", beta)):
        if np.ndim(value) != 0:  # JAX's are static parameters, read before the shapes
            raise TypeError(
                f"lax.linalg.symmetric_product: {name} must be a scalar, got "
                f"{type(value).__name__} of shape {np.shape(value)}{mlir.where_suffix()}"
            )
    # JAX's order: the ranks, the matrices' shapes, then the batch dimensions' sizes.
    if a_aval.ndim < 2 or c_aval.ndim != a_aval.ndim:
        raise batch_error()
    if a_aval.shape[-2] != c_aval.shape[-1] or c_aval.shape[-2] != c_aval.shape[-1]:
        raise ValueError(
            "lax.linalg.symmetric_product: expects a rectangular matrix of shape (m, n) and a "
            f"square matrix of shape (m, m). Got shapes {a_aval.shape} and {c_aval.shape}"
            f"{mlir.where_suffix()}"
        )
    if a_aval.shape[:-2] != c_aval.shape[:-2]:
        raise batch_error()
    if a_aval.dtype != c_aval.dtype or a_aval.dtype.kind != "f":
        raise TypeError(
            "lax.linalg.symmetric_product: expects float arrays of one dtype, got "
            f"{a_aval.str_short()} and {c_aval.str_short()}{mlir.where_suffix()}"
        )
    result = ew.add(_scale(alpha, u.matmul(a_matrix, u.mT(a_matrix))), _scale(beta, c_matrix))
    if symmetrize_output:
        result = ew.add(u.tril(result), u.mT(u.tril(result, -1)))
    return result


# --- qdwh: the polar decomposition by dynamically weighted Halley iterations -------------------
# Nakatsukasa, Bai and Gygi, SIAM J. Matrix Anal. Appl. 31 (2010) 2700-2720.

_CHOLESKY_CUTOFF = 100


def _mask(x: Any, dims: tuple[Any, ...], alternative: Any = None) -> Any:
    # x outside the leading dims[i] entries of each axis replaced by `alternative` (default 0).
    keep = None
    for axis, size in enumerate(dims):
        if size is None:
            continue
        inside = ew.lt(
            broadcasted_iota(np.int32, u.shape(x), axis),
            broadcast_in_dim(u.cast(size, np.dtype(np.int32)), u.shape(x), ()),
        )
        keep = inside if keep is None else ew.bitwise_and(keep, inside)
    if keep is None:
        return x
    other = full(u.shape(x), 0, u.dtype(x)) if alternative is None else alternative
    return ew.select(keep, x, other)


def _halley_coefficients(eps: float, max_iterations: int) -> tuple[list, list]:
    # The (a, b, c) weights of each iteration, from the lower bound l of the singular values.
    def qr_params(a, b, c):
        e = b / c
        return ((a - e) / c**0.5, c**0.5, e)

    def cholesky_params(a, b, c):
        e = b / c
        return (a - e, c, e)

    qr_coefs, cholesky_coefs = [], []
    lower, tol_l, k = eps, 10.0 * eps / 2.0, 0
    while lower + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = lower * lower
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** 0.5
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** 0.5
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        lower = lower * (a + b * l2) / (1 + c * l2)
        if c > _CHOLESKY_CUTOFF:
            qr_coefs.append(qr_params(a, b, c))
        else:
            cholesky_coefs.append(cholesky_params(a, b, c))
    return qr_coefs, cholesky_coefs


def _qr_step(x, m, n, params):
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    rows, cols = u.shape(x)
    dt = u.dtype(x)
    top = _scale(sqrt_c, x)
    identity = u.eye(cols, dt)
    if m is None:
        y = concatenate([top, identity], 0)
    else:  # the identity right below the true m rows
        padded = concatenate([top, full((cols, cols), 0, dt)], 0)
        y = dynamic_update_slice_in_dim(padded, identity, m, 0)
    q, _ = qr(y, full_matrices=False)
    q1 = _mask(lax_slice(q, (0, 0), (rows, cols)), (m, n))
    q2 = dynamic_slice_in_dim(q, rows if m is None else m, cols, 0)
    q2 = u.H(_mask(q2, (n, n)))
    return ew.add(_scale(e, x), _scale(a_minus_e_by_sqrt_c, u.matmul(q1, q2)))


def _cholesky_step(x, m, n, params):
    a_minus_e, c, e = params
    cols = u.shape(x)[1]
    dt = u.dtype(x)
    identity = u.eye(cols, dt)
    gram = ew.add(_scale(c, u.matmul(u.H(x), x)), identity)
    gram = _mask(gram, (n, n), identity)  # identity in the padding keeps it positive definite
    factor = cholesky(gram, symmetrize_input=False)
    z = u.conj(triangular_solve(factor, u.mT(x), left_side=True, lower=True, conjugate_a=True))
    z = u.H(
        triangular_solve(factor, z, left_side=True, lower=True, transpose_a=True, conjugate_a=True)
    )
    return ew.add(_scale(e, x), _scale(a_minus_e, z))


def _frobenius(x):
    magnitude = unary.abs(x)
    return unary.sqrt(reduce_sum(ew.mul(magnitude, magnitude), (0, 1)))


def _qdwh(x, m, n, max_iterations, eps):
    dt = u.dtype(x)
    real = u.real_dtype(dt)
    if eps is None:
        eps = float(dtypes.finfo(real).eps)
    magnitude = unary.abs(x)
    one_norm = reduce_max(reduce_sum(magnitude, (0,)), (0,))
    inf_norm = reduce_max(reduce_sum(magnitude, (1,)), (0,))
    alpha_inverse = ew.mul(unary.rsqrt(one_norm), unary.rsqrt(inf_norm))
    alpha_inverse = ew.select(ew.eq(one_norm, _const(0, real)), _const(1, real), alpha_inverse)
    x_scaled = _scale(u.cast(alpha_inverse, dt), x)
    tol_norm = _const(np.cbrt(10.0 * eps / 2.0), real)
    qr_coefs, cholesky_coefs = _halley_coefficients(eps, max_iterations)

    def step(update, coefs, test_convergence, k, state):
        current, _ = state
        params = (
            tuple(dynamic_index_in_dim(c, k, 0, keepdims=False) for c in coefs)
            if coefs is not None
            else (3.0 - 1.0 / 3.0, 3.0, 1.0 / 3.0)  # Halley's method: a, b, c = 3, 1, 3
        )
        following = update(current, m, n, params)
        if not test_convergence:
            return following, full((), True, np.bool_)
        return following, ew.gt(_frobenius(ew.sub(following, current)), tol_norm)

    def run(state, update, coefs, test_convergence):
        if not coefs:
            return state
        table = np.asarray(coefs, np.float64).T.astype(dt)  # one row per parameter
        columns = tuple(to_array(row) for row in table)
        body = functools.partial(step, update, columns, test_convergence)
        return fori_loop(0, len(coefs), body, state)

    state = (x_scaled, full((), True, np.bool_))
    state = run(state, _qr_step, qr_coefs, False)
    state = run(state, _cholesky_step, cholesky_coefs, True)

    count = dtypes.canonicalize_dtype(np.int64)  # a Python int in JAX: int64 under x64

    def cond(carry):
        k, _, not_converged = carry
        return ew.bitwise_and(not_converged, ew.lt(k, _const(max_iterations, count)))

    def body(carry):
        k, current, _ = carry
        current, not_converged = step(_cholesky_step, None, True, k, (current, None))
        return ew.add(k, weak_scalar(1, count)), current, not_converged

    start = weak_scalar(len(qr_coefs) + len(cholesky_coefs), count)  # weak, as JAX's int
    num_iters, unitary, not_converged = while_loop(cond, body, (start, *state))
    # One Newton-Schulz step refines the unitary factor.
    unitary = ew.sub(
        _scale(1.5, unitary), _scale(0.5, u.matmul(unitary, u.matmul(u.H(unitary), unitary)))
    )
    h = u.matmul(u.H(unitary), x)
    h = _scale(0.5, ew.add(h, u.H(h)))
    return unitary, h, num_iters, unary.bitwise_not(not_converged)


def qdwh(
    x: Any,
    *,
    is_hermitian: bool = False,
    max_iterations: int | None = None,
    eps: float | None = None,
    dynamic_shape: tuple[int, int] | None = None,
) -> tuple[Any, Any, Any, Any]:
    """Polar decomposition x = u h by QR-based dynamically weighted Halley iteration.

    Args:
      x: a full-rank (M, N) matrix with M >= N, possibly padded from its true `dynamic_shape`.
      is_hermitian: unused (kept for compatibility).
      max_iterations: at most this many iterations (default 10).
      eps: convergence tolerance parameter (default: the dtype's machine epsilon).
      dynamic_shape: the unpadded (m, n) of x.

    Returns:
      `(u, h, num_iters, is_converged)`: the unitary and Hermitian positive semidefinite
      factors, the number of iterations taken and whether they converged.
    """
    del is_hermitian
    try:
        max_iterations = 10 if max_iterations is None else int(max_iterations)
    except TypeError:
        raise TypeError(
            "lax.linalg.qdwh: max_iterations must be a real number, got "
            f"{type(max_iterations).__name__}{mlir.where_suffix()}"
        ) from None
    aval = aval_of(x)
    if aval.ndim != 2:
        raise TypeError(f"lax.linalg.qdwh: expects a matrix, got {aval.str_short()}")
    rows, cols = aval.shape
    if rows < cols:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    if dynamic_shape is not None:
        if not isinstance(dynamic_shape, (tuple, list)) or len(dynamic_shape) != 2:
            raise TypeError(
                "lax.linalg.qdwh: dynamic_shape must be a pair (m, n), got "
                f"{dynamic_shape!r}{mlir.where_suffix()}"
            )
        m, n = dynamic_shape
        x = _mask(x, (m, n))
    else:
        m = n = None
    return _qdwh(x, m, n, max_iterations, eps)
