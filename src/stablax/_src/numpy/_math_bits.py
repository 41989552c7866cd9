"""Bit packing: packbits and unpackbits (eight booleans per uint8, big- or little-endian)."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src.jit import jit as _eager
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._reductions_common import single_axis

_ORDERS = ("big", "little")


def _bit_weights(bitorder: str, shape: tuple[int, ...], axis: int) -> Any:
    """1 << position of each of 8 bits, laid along `axis` of `shape` (size 8 there)."""
    position = lax.broadcasted_iota(np.uint8, shape, axis)
    if bitorder == "big":
        position = lax.sub(np.uint8(7), position)
    return lax.shift_left(lax.full(shape, 1, np.uint8), position)


def _check_bitorder(bitorder: str, name: str) -> None:
    if bitorder not in _ORDERS:
        raise ValueError(f"jnp.{name}: bitorder must be 'big' or 'little', got {bitorder!r}")


def _packbits_impl(a, axis=None, bitorder="big"):
    a = asarray(a)
    if dtypes.KIND.get(a.aval.dtype) not in ("b", "i", "u"):  # int4's numpy kind is "V"
        raise TypeError("jnp.packbits: expected an input array of integer or boolean data type")
    _check_bitorder(bitorder, "packbits")  # after the dtype, in JAX's order
    bits = lax.convert_element_type(lax.ne(a, lax.full_like(a, 0)), np.uint8)
    if axis is None:
        bits = lax.reshape(bits, (bits.aval.size,))
        axis = 0
    axis = single_axis(axis, bits.aval.ndim, "packbits")
    size = bits.aval.shape[axis]
    groups = -(-size // 8)
    padding = [(0, 0, 0)] * bits.aval.ndim
    padding[axis] = (0, groups * 8 - size, 0)
    bits = lax.pad(bits, np.uint8(0), padding)
    shape = list(bits.aval.shape)
    grouped = (*shape[:axis], groups, 8, *shape[axis + 1 :])
    bits = lax.reshape(bits, grouped)
    return lax.reduce_or(lax.mul(bits, _bit_weights(bitorder, grouped, axis + 1)), (axis + 1,))


_packbits = _eager(_packbits_impl, static_argnames=("axis", "bitorder"))


def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """Packs the truthiness of elements into uint8 bytes along `axis` (flattened if None)."""
    return _packbits(a, axis, bitorder)


def _unpackbits_impl(a, axis=None, count=None, bitorder="big"):
    a = asarray(a)
    if a.aval.dtype != np.uint8:  # the dtype first, in JAX's order
        raise TypeError("jnp.unpackbits: expected an input array of unsigned byte data type")
    _check_bitorder(bitorder, "unpackbits")
    if axis is None:
        a = lax.reshape(a, (a.aval.size,))
        axis = 0
    axis = single_axis(axis, a.aval.ndim, "unpackbits")
    shape = a.aval.shape
    expanded = (*shape[: axis + 1], 8, *shape[axis + 1 :])
    dims = tuple(i for i in range(len(expanded)) if i != axis + 1)
    spread = lax.broadcast_in_dim(a, expanded, dims)
    weights = _bit_weights(bitorder, expanded, axis + 1)
    bits = lax.convert_element_type(lax.ne(lax.bitwise_and(spread, weights), np.uint8(0)), np.uint8)
    flat_shape = (*shape[:axis], shape[axis] * 8, *shape[axis + 1 :])
    bits = lax.reshape(bits, flat_shape)
    if count is None:
        return bits
    total = flat_shape[axis]
    keep = count if count >= 0 else max(total + count, 0)
    if keep <= total:
        return lax.slice_in_dim(bits, 0, keep, axis=axis)
    padding = [(0, 0, 0)] * bits.aval.ndim
    padding[axis] = (0, keep - total, 0)
    return lax.pad(bits, np.uint8(0), padding)


_unpackbits = _eager(_unpackbits_impl, static_argnames=("axis", "count", "bitorder"))


def unpackbits(
    a: Any, axis: int | None = None, count: int | None = None, bitorder: str = "big"
) -> Any:
    """Unpacks uint8 bytes into 0/1 bits along `axis`, keeping the first `count` of them."""
    return _unpackbits(a, axis, count, bitorder)


__all__ = ["packbits", "unpackbits"]
