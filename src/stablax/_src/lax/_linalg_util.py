"""Matrix helpers on stacks of matrices (leading batch dimensions), written with lax ops.

The linalg ops' derivative rules, their kernel expansions and jnp.linalg share them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src.avals import aval_of
from stablax._src.lax import _elementwise as ew
from stablax._src.lax._dot import Precision, dot_general
from stablax._src.lax._gather import GatherDimensionNumbers, gather
from stablax._src.lax._shapes import (
    broadcast_in_dim,
    broadcasted_iota,
    convert_element_type,
    full,
    reshape,
    transpose,
)
from stablax._src.lax._slice_pad import slice as lax_slice


def shape(x: Any) -> tuple[int, ...]:
    return aval_of(x).shape


def dtype(x: Any) -> np.dtype:
    return aval_of(x).dtype


def real_dtype(dt: np.dtype) -> np.dtype:
    return (
        np.dtype(np.float32)
        if dt == np.complex64
        else np.dtype(np.float64 if dt == np.complex128 else dt)
    )


def is_complex(x: Any) -> bool:
    return dtype(x).kind == "c"


def mT(x: Any) -> Any:
    """Swaps the last two axes."""
    nd = len(shape(x))
    return transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def conj(x: Any) -> Any:
    return ew.conj(x) if is_complex(x) else x


def H(x: Any) -> Any:
    return conj(mT(x))


def matmul(a: Any, b: Any) -> Any:
    """a @ b on stacks with equal batch dimensions, at full precision."""
    nb = len(shape(a)) - 2
    batch = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)), precision=Precision.HIGHEST)


def cast(x: Any, dt: np.dtype) -> Any:
    return x if dtype(x) == dt else convert_element_type(x, dt)


def _band_mask(shp: tuple[int, ...], k: int, lower: bool) -> Any:
    nd = len(shp)
    rows = broadcasted_iota(np.int32, shp, nd - 2)
    cols = broadcasted_iota(np.int32, shp, nd - 1)
    shifted = ew.add(rows, full((), k, np.int32)) if k else rows
    return ew.ge(shifted, cols) if lower else ew.le(shifted, cols)


def tril(x: Any, k: int = 0) -> Any:
    """Zeroes the entries above the k-th diagonal of the last two axes."""
    return ew.select(_band_mask(shape(x), k, True), x, full(shape(x), 0, dtype(x)))


def triu(x: Any, k: int = 0) -> Any:
    """Zeroes the entries below the k-th diagonal of the last two axes."""
    return ew.select(_band_mask(shape(x), k, False), x, full(shape(x), 0, dtype(x)))


def eye(n: int, dt: Any, batch: tuple[int, ...] = (), m: int | None = None) -> Any:
    """Identity matrices of shape batch + (n, m)."""
    shp = (*batch, n, n if m is None else m)
    nd = len(shp)
    on_diagonal = ew.eq(
        broadcasted_iota(np.int32, shp, nd - 2), broadcasted_iota(np.int32, shp, nd - 1)
    )
    return convert_element_type(on_diagonal, dt)


def diagonal(x: Any) -> Any:
    """The main diagonals of a stack of matrices: shape batch + (min(m, n),).

    Read exactly (no masking arithmetic, so infinities elsewhere do not leak in): the leading
    k x k block flattened, every (k + 1)-th entry.
    """
    *batch, m, n = shape(x)
    k = min(m, n)
    nb = len(batch)
    square = lax_slice(x, (0,) * (nb + 2), (*batch, k, k))
    flat = reshape(square, (*batch, k * k))
    if k == 0:
        return flat
    return lax_slice(flat, (0,) * (nb + 1), (*batch, k * k), (*(1 for _ in batch), k + 1))


def diag_embed(d: Any) -> Any:
    """Square matrices with `d` (shape batch + (n,)) on the diagonal."""
    *batch, n = shape(d)
    nd = len(batch) + 2
    spread = broadcast_in_dim(d, (*batch, n, n), (*range(nd - 2), nd - 1))
    return ew.mul(spread, eye(n, dtype(d), tuple(batch)))


def bcast_rows(v: Any, n_rows: int) -> Any:
    """A vector stack batch + (n,) as batch + (n_rows, n): one copy per row."""
    *batch, n = shape(v)
    nd = len(batch) + 2
    return broadcast_in_dim(v, (*batch, n_rows, n), (*range(nd - 2), nd - 1))


def bcast_cols(v: Any, n_cols: int) -> Any:
    """A vector stack batch + (m,) as batch + (m, n_cols): one copy per column."""
    *batch, m = shape(v)
    nd = len(batch) + 2
    return broadcast_in_dim(v, (*batch, m, n_cols), tuple(range(nd - 1)))


def where_ok(ok: Any, x: Any) -> Any:
    """x where the per-matrix flag `ok` (shape batch) holds, NaN elsewhere (failed kernels)."""
    shp = shape(x)
    nb = len(shape(ok))
    mask = broadcast_in_dim(ok, shp, tuple(range(nb)))
    dt = dtype(x)
    nan = full(shp, complex(np.nan, np.nan) if dt.kind == "c" else np.nan, dt)  # as JAX
    return ew.select(mask, x, nan)


def permute_rows(x: Any, permutation: Any) -> Any:
    """x[..., permutation, :], one gather over the batch (a one-hot product would turn an inf or
    NaN of x into NaN everywhere, 0 * inf)."""
    *batch, m, n = shape(x)
    nb = len(batch)
    k = shape(permutation)[-1]
    if m == 0 or 0 in batch:  # nothing to gather a slice of (a one-row slice is too big)
        return full((*batch, k, n), 0, aval_of(x).dtype)
    dims = GatherDimensionNumbers(
        offset_dims=(nb + 1,),
        collapsed_slice_dims=(nb,),
        start_index_map=(nb,),
        operand_batching_dims=tuple(range(nb)),
        start_indices_batching_dims=tuple(range(nb)),
    )
    indices = broadcast_in_dim(permutation, (*batch, k, 1), tuple(range(nb + 1)))
    return gather(x, indices, dims, (*(1,) * nb, 1, n))


def is_inexact_linalg_dtype(dt: np.dtype) -> bool:
    return np.dtype(dt) in (
        np.dtype(np.float32),
        np.dtype(np.float64),
        np.dtype(np.complex64),
        np.dtype(np.complex128),
    )


def complex_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex128 if np.dtype(dt) in (np.float64, np.complex128) else np.complex64)
