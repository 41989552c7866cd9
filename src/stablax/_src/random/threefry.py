"""The threefry2x32 generator from lax integer ops: hash, seed, split, fold_in and random bits.

Keys here are raw `uint32[2]` arrays. Both of JAX's stream layouts are implemented, chosen by
`config.jax_threefry_partitionable` at trace time (the flag is part of every jit cache key).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax._src import lax
from stablax._src.config import config

_U32 = np.dtype(np.uint32)
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32, 64: np.dtype(np.uint64)}


def hash_2x32(k0: Any, k1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """Threefry-2x32 with 20 rounds of the counter pair (x0, x1) under the scalar key (k0, k1)."""
    return lax.threefry2x32(k0, k1, x0, x1)


def _key_words(key: Any) -> tuple[Any, Any]:
    return lax.index_in_dim(key, 0, keepdims=False), lax.index_in_dim(key, 1, keepdims=False)


def hash_counts(key: Any, counts: Any) -> Any:
    """`threefry_2x32(key, counts)`: the flat counts split in two halves (padded with one zero
    when odd) that are hashed as pairs; the output has the shape of `counts`."""
    k0, k1 = _key_words(key)
    shape = counts.shape
    flat = lax.reshape(counts, (math.prod(shape),))
    odd = flat.shape[0] % 2
    if odd:
        flat = lax.concatenate([flat, lax.full((1,), 0, _U32)], 0)
    half = flat.shape[0] // 2
    y0, y1 = hash_2x32(
        k0, k1, lax.slice(flat, (0,), (half,)), lax.slice(flat, (half,), (2 * half,))
    )
    out = lax.concatenate([y0, y1], 0)
    if odd:
        out = lax.slice(out, (0,), (2 * half - 1,))
    return lax.reshape(out, shape)


def _counts_2x32(shape: tuple[int, ...]) -> tuple[Any, Any]:
    """The flat index of each position of `shape` as (high word, low word) uint32 arrays."""
    size = math.prod(shape)
    if size > 2**32:
        raise NotImplementedError(
            f"stablax.random: arrays of more than 2**32 random values ({size}) are not supported"
        )
    if not shape:
        zero = lax.full((), 0, _U32)
        return zero, zero
    low = lax.reshape(lax.iota(_U32, size), shape)
    return lax.full(shape, 0, _U32), low


def seed(value: Any) -> Any:
    """The raw key of an integer seed: its high and low 32-bit words (high is 0 for 32-bit)."""
    if value.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {value!r}.")
    if value.dtype.kind not in "iu":
        raise TypeError(f"PRNG key seed must be an integer; got {value!r}")
    high = lax.shift_right_logical(value, np.array(32, value.dtype))
    if value.dtype.itemsize == 8:
        low = lax.bitwise_and(value, np.array(0xFFFFFFFF, value.dtype))
    else:
        low = value  # its own low word: the conversion to uint32 below keeps the bits
    words = [lax.convert_element_type(w, _U32) for w in (high, low)]
    return lax.concatenate([lax.reshape(w, (1,)) for w in words], 0)


def split(key: Any, shape: tuple[int, ...]) -> Any:
    """`shape` new raw keys, as a uint32 array of shape (*shape, 2)."""
    if config.jax_threefry_partitionable:
        k0, k1 = _key_words(key)
        high, low = _counts_2x32(shape)
        y0, y1 = hash_2x32(k0, k1, high, low)
        return lax.concatenate([lax.expand_dims(y, (len(shape),)) for y in (y0, y1)], len(shape))
    counts = lax.iota(_U32, math.prod(shape) * 2)
    return lax.reshape(hash_counts(key, counts), (*shape, 2))


def fold_in(key: Any, data: Any) -> Any:
    """A new raw key from `key` and a uint32 scalar: the hash of the counter pair (0, data)."""
    counts = lax.concatenate([lax.full((1,), 0, _U32), lax.reshape(data, (1,))], 0)
    return hash_counts(key, counts)


def random_bits(key: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """Uniform random unsigned integers of `bit_width` bits and the given shape."""
    if bit_width not in UINT_DTYPES:
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    dtype = UINT_DTYPES[bit_width]
    if config.jax_threefry_partitionable:
        k0, k1 = _key_words(key)
        high, low = _counts_2x32(shape)
        y0, y1 = hash_2x32(k0, k1, high, low)
        if bit_width == 64:
            wide = [lax.convert_element_type(y, dtype) for y in (y0, y1)]
            return lax.bitwise_or(lax.shift_left(wide[0], np.uint64(32)), wide[1])
        bits = lax.bitwise_xor(y0, y1)
        return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)
    return _random_bits_original(key, bit_width, dtype, shape)


def _random_bits_original(key: Any, bit_width: int, dtype: np.dtype, shape: tuple) -> Any:
    size = math.prod(shape)
    num_words = -(-bit_width * size // 32)
    if num_words >= np.iinfo(np.uint32).max:
        raise NotImplementedError(
            f"stablax.random: {num_words} random words in the legacy threefry layout are not "
            "supported; set jax_threefry_partitionable=True"
        )
    bits = hash_counts(key, lax.iota(_U32, num_words))
    if bit_width == 64:
        half = num_words // 2
        high = lax.convert_element_type(lax.slice(bits, (0,), (half,)), dtype)
        low = lax.convert_element_type(lax.slice(bits, (half,), (num_words,)), dtype)
        bits = lax.bitwise_or(lax.shift_left(high, np.uint64(32)), low)
    elif bit_width in (8, 16):
        # Each 32-bit word yields 32 // bit_width values, lowest bits first (a little-endian view).
        per_word = 32 // bit_width
        grid = (num_words, per_word)
        shifts = lax.mul(np.uint32(bit_width), lax.broadcasted_iota(_U32, grid, 1))
        parts = lax.shift_right_logical(lax.broadcast_in_dim(bits, grid, (0,)), shifts)
        parts = lax.bitwise_and(parts, np.uint32(np.iinfo(dtype).max))
        parts = lax.reshape(parts, (num_words * per_word,))
        bits = lax.slice(lax.convert_element_type(parts, dtype), (0,), (size,))
    return lax.reshape(bits, shape)
