"""Diagonals and triangles: diagonal, diag, diagflat, trace, tri, tril, triu."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.lax._argcheck import axis_arg, int_arg
from stablax._src.numpy import _reductions
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import diagonal_offset
from stablax._src.numpy._shape import moveaxis, ravel


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The `offset` diagonal of the (axis1, axis2) planes, as a new last axis (`np.diagonal`)."""
    a = asarray(a)
    ndim = a.aval.ndim
    if ndim < 2:
        raise ValueError("jnp.diagonal requires an array of at least two dimensions")
    ax1 = axis_arg(axis1, ndim, "jnp.diagonal")
    ax2 = axis_arg(axis2, ndim, "jnp.diagonal")
    if ax1 == ax2:
        raise ValueError("jnp.diagonal: axis1 and axis2 cannot be the same")
    offset = operator.index(offset)
    a = moveaxis(a, (ax1, ax2), (-2, -1))
    *batch, n, m = a.aval.shape
    # Rows r and columns r + offset: the length that stays in range on both sides.
    length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
    row0, col0 = max(-offset, 0), max(offset, 0)
    if length == 0:
        return lax.full((*batch, 0), 0, a.aval.dtype)
    rows = np.arange(row0, row0 + length, dtype=np.int32)
    cols = np.arange(col0, col0 + length, dtype=np.int32)
    nb = len(batch)
    out = lax.index_take(a, [asarray(rows), asarray(cols)], [nb, nb + 1])
    return moveaxis(out, 0, -1)


def diag(v: Any, k: int = 0) -> Any:
    """The k-th diagonal of a 2-D array, or a 2-D array with a 1-D array on its k-th diagonal."""
    v = asarray(v)
    if v.aval.ndim == 1:
        return _diag_matrix(v, operator.index(k))
    if v.aval.ndim == 2:
        return diagonal(v, k)
    raise ValueError("jnp.diag: input must be 1- or 2-d")


def _diag_matrix(v: Any, k: int) -> Any:
    n = v.aval.shape[0]
    size = n + abs(k)
    rows = lax.broadcasted_iota(np.int32, (size, size), 0)
    cols = lax.broadcasted_iota(np.int32, (size, size), 1)
    on_diag = lax.eq(lax.add(rows, np.int32(k)), cols)
    # Row r holds v[r] (k >= 0) or v[r + k] (k < 0); pad v to the matrix size first.
    padded = lax.pad(v, lax.full((), 0, v.aval.dtype), [(max(-k, 0), max(k, 0), 0)])
    values = lax.broadcast_in_dim(padded, (size, size), (0,))
    return lax.select(on_diag, values, lax.full((size, size), 0, v.aval.dtype))


def diagflat(v: Any, k: int = 0) -> Any:
    """A 2-D array with the flattened input on its k-th diagonal."""
    return _diag_matrix(ravel(asarray(v)), operator.index(k))


def trace(
    a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: None = None
) -> Any:
    """Sum along the `offset` diagonal (`np.trace`); integer sums widen like `jnp.sum`."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    a = asarray(a)
    ndim = a.aval.ndim
    # JAX's order: the axes, the dtype, then the offset (through its eye); diagonal checks the rest.
    if ndim >= 2 and axis_arg(axis1, ndim, "jnp.trace") != axis_arg(axis2, ndim, "jnp.trace"):
        if dtype is not None:
            dtypes.check_user_dtype(dtype, "jnp.trace")
        offset = diagonal_offset(offset, "jnp.trace", python_bool=False)
    return _reductions.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
    """An (N, M) array with ones at and below the k-th diagonal (float32 by default)."""
    N = int_arg(N, "N", "jnp.tri")  # noqa: N806
    M = N if M is None else int_arg(M, "M", "jnp.tri")  # noqa: N806
    _refuse_bool_offset(k, "jnp.tri")
    k = int_arg(k, "k", "jnp.tri")
    dtype = (
        np.dtype(np.float32)  # float32 whatever x64 says, as JAX
        if dtype is None
        else dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "jnp.tri"))
    )
    return lax.convert_element_type(_tri_mask((N, M), k), dtype)


def _refuse_bool_offset(k: Any, name: str) -> None:
    """JAX's tri (and tril, which passes k through) refuses a bool diagonal offset."""
    if isinstance(k, (bool, np.bool_)):
        raise TypeError(f"{name}: k must be an integer, got {k!r}{mlir.where_suffix()}")


def _tri_mask(shape: tuple[int, int], k: int) -> Any:
    rows = lax.broadcasted_iota(np.int32, shape, 0)
    cols = lax.broadcasted_iota(np.int32, shape, 1)
    # A k past either corner selects everything or nothing: clamped, any integer fits int32.
    k = max(-max(shape[0], 0), min(operator.index(k), max(shape[1], 0)))
    return lax.ge(lax.add(rows, np.int32(k)), cols)


def _triangle(m: Any, k: int, lower: bool, name: str) -> Any:
    m = asarray(m)
    if m.aval.ndim < 2:  # before k, in JAX's order
        raise ValueError(f"{name}: input array must be at least 2-d")
    if lower:
        _refuse_bool_offset(k, name)
    elif isinstance(k, (bool, np.bool_)):  # JAX's triu computes k - 1, which is an int
        k = int(k)
    k = int_arg(k, "k", name)
    shape = m.aval.shape
    # tril keeps col <= row + k; triu keeps col >= row + k, i.e. not (col <= row + k - 1).
    mask = _tri_mask(shape[-2:], k if lower else k - 1)
    if not lower:
        mask = lax.bitwise_not(mask)
    mask = lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))
    return lax.select(mask, m, lax.full(shape, 0, m.aval.dtype))


def tril(m: Any, k: int = 0) -> Any:
    """The lower triangle of the last two axes (below and on the k-th diagonal); zeros above."""
    return _triangle(m, k, True, "jnp.tril")


def triu(m: Any, k: int = 0) -> Any:
    """The upper triangle of the last two axes (above and on the k-th diagonal); zeros below."""
    return _triangle(m, k, False, "jnp.triu")
