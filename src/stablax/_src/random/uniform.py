"""The samplers everything else is built from: `bits`, `uniform`, `randint`, `normal`,
`truncated_normal`, `bernoulli`.

Each public function checks its arguments and calls a jitted implementation taking the raw key;
the implementations (`*_impl`) are what the other samplers compose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax, runtime
from stablax._src.jit import jit
from stablax._src.random import threefry
from stablax._src.random.keys import check_key, split_data
from stablax._src.random.params import broadcast_shape, check_shape, dtype_arg, shape_arg

UINT_DTYPES = threefry.UINT_DTYPES


def split_key(key: Any, num: int = 2) -> list[Any]:
    """`num` raw subkeys of a raw key, as a list."""
    keys = split_data(key, (num,))
    return [lax.index_in_dim(keys, i, keepdims=False) for i in range(num)]


# --- bits ----------------------------------------------------------------------------------------


def bits(key: Any, shape: Any = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Uniform random bits as unsigned integers.

    Args:
      key: a PRNG key.
      shape: the result shape.
      dtype: an unsigned integer dtype (default uint32, uint64 with x64).
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.bits")
    data, _ = check_key("bits", key)
    dtype = dtype_arg("bits", dtype, "uint", dtypes.default_uint_dtype())
    return _bits(data, dtype.itemsize * 8, shape_arg("bits", shape))


_bits = jit(threefry.random_bits, static_argnums=(1, 2))


# --- uniform -------------------------------------------------------------------------------------


def uniform_impl(key: Any, minval: Any, maxval: Any, shape: tuple, dtype: np.dtype) -> Any:
    # Random mantissa bits under the exponent of 1.0 give a float in [1, 2); minus one, scaled.
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dtype}.")
    minval = jnp.broadcast_to(lax.convert_element_type(minval, dtype), shape)
    maxval = jnp.broadcast_to(lax.convert_element_type(maxval, dtype), shape)
    rng_bits = 8 if nmant < 8 else nbits
    uint_dtype = UINT_DTYPES[nbits]
    raw = threefry.random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        raw = lax.convert_element_type(raw, uint_dtype)
    float_bits = lax.shift_right_logical(raw, np.array(rng_bits - nmant, uint_dtype))
    float_bits = lax.bitwise_or(float_bits, np.array(1.0, dtype).view(uint_dtype))
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), np.array(1.0, dtype))
    return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


_uniform = jit(uniform_impl, static_argnums=(3, 4))


def uniform(
    key: Any,
    shape: Any = (),
    dtype: Any = None,
    minval: Any = 0.0,
    maxval: Any = 1.0,
    *,
    out_sharding: Any = None,
):
    """Uniform floats in [minval, maxval).

    Args:
      key: a PRNG key.
      shape: the result shape; minval and maxval broadcast to it.
      dtype: a float dtype (default float32, float64 with x64).
      minval, maxval: the bounds (inclusive, exclusive).
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.uniform")
    data, _ = check_key("uniform", key)
    dtype = dtype_arg("uniform", dtype, "float")
    shape = shape_arg("uniform", shape)
    check_shape("uniform", shape, np.shape(minval), np.shape(maxval))
    return _uniform(data, minval, maxval, shape, dtype)


# --- randint -------------------------------------------------------------------------------------


def _convert_and_clip_integer(value: Any, dtype: np.dtype) -> Any:
    """`value` in an integer `dtype`, clipped to its range instead of wrapping."""
    source = dtypes.iinfo(value.dtype)
    target = dtypes.iinfo(dtype)
    low = np.array(max(source.min, target.min), value.dtype)
    high = np.array(min(source.max, target.max), value.dtype)
    return lax.convert_element_type(lax.min(lax.max(value, low), high), dtype)


def randint_impl(key: Any, minval: Any, maxval: Any, shape: tuple, dtype: np.dtype) -> Any:
    # Two words of bits per value, reduced modulo the span: bias O(span**2 / 2**(2 * nbits)).
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    dtype_max = _convert_and_clip_integer(
        jnp.asarray(dtypes.iinfo(dtype).max, dtype=dtype), maxval.dtype
    )
    maxval_out_of_range = jnp.broadcast_to(lax.gt(maxval, dtype_max), shape)
    minval = jnp.broadcast_to(_convert_and_clip_integer(minval, dtype), shape)
    maxval = jnp.broadcast_to(_convert_and_clip_integer(maxval, dtype), shape)
    nbits = dtypes.iinfo(dtype).bits
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"randint only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dtype}")
    k1, k2 = split_key(key)
    higher_bits = threefry.random_bits(k1, nbits, shape)
    lower_bits = threefry.random_bits(k2, nbits, shape)
    unsigned = UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = lax.full(shape, 1, unsigned)
    span = lax.select(lax.le(maxval, minval), one, span)  # an empty range returns minval
    span = lax.select(
        lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)), lax.add(span, one), span
    )
    # 2**nbits % span without overflow: (2**(nbits/2) % span)**2 % span.
    multiplier = lax.rem(lax.full(shape, 2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


_randint = jit(randint_impl, static_argnums=(3, 4))


def randint(
    key: Any, shape: Any, minval: Any, maxval: Any, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Uniform integers in [minval, maxval).

    Args:
      key: a PRNG key.
      shape: the result shape; minval and maxval broadcast to it.
      minval, maxval: integer bounds (inclusive, exclusive), clipped to the dtype's range.
      dtype: an integer dtype (default int32, int64 with x64).
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.randint")
    data, _ = check_key("randint", key)
    dtype = dtype_arg("randint", dtype, "any", int)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    shape = shape_arg("randint", shape)
    check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    info = dtypes.iinfo(dtype)
    if info.bits >= 32:
        return _randint(data, minval, maxval, shape, dtype)
    # Narrow integers are drawn as int32 in the clipped range (JAX's way to limit the bias).
    minval = jnp.clip(jnp.asarray(minval).astype(np.int32), int(info.min), int(info.max))
    maxval = jnp.clip(jnp.asarray(maxval).astype(np.int32), int(info.min), int(info.max) + 1)
    return _randint(data, minval, maxval, shape, np.dtype(np.int32)).astype(dtype)


# --- normal --------------------------------------------------------------------------------------


def _normal_real(key: Any, shape: tuple, dtype: np.dtype) -> Any:
    low = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = uniform_impl(key, low, np.array(1.0, dtype), shape, dtype)
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


def normal_impl(key: Any, shape: tuple, dtype: np.dtype) -> Any:
    if not dtypes.issubdtype(dtype, np.complexfloating):
        return _normal_real(key, shape, dtype)
    key_re, key_im = split_key(key)
    real_dtype = np.finfo(dtype).dtype
    re = lax.convert_element_type(_normal_real(key_re, shape, real_dtype), dtype)
    im = lax.convert_element_type(_normal_real(key_im, shape, real_dtype), dtype)
    return lax.div(lax.add(re, lax.mul(np.array(1j, dtype), im)), np.array(np.sqrt(2), dtype))


_normal = jit(normal_impl, static_argnums=(1, 2))


def normal(key: Any, shape: Any = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Standard normal values (complex dtypes: real and imaginary parts each of variance 1/2).

    Args:
      key: a PRNG key.
      shape: the result shape.
      dtype: a float or complex dtype (default float32, float64 with x64).
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.normal")
    data, _ = check_key("normal", key)
    dtype = dtype_arg("normal", dtype, "inexact")
    return _normal(data, shape_arg("normal", shape), dtype)


def _truncated_normal_impl(key, lower, upper, shape, dtype):
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    out = lax.mul(sqrt2, lax.erf_inv(uniform_impl(key, a, b, shape, dtype)))
    # Keep rounding from reaching the bounds: clamp to the open interval (lower, upper).
    low = lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype))
    high = lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype))
    return jnp.minimum(high, jnp.maximum(low, out))


_truncated_normal = jit(_truncated_normal_impl, static_argnums=(3, 4))


def truncated_normal(
    key: Any,
    lower: Any,
    upper: Any,
    shape: Any = None,
    dtype: Any = None,
    *,
    out_sharding: Any = None,
):
    """Standard normal values conditioned on lying in (lower, upper).

    Args:
      key: a PRNG key.
      lower, upper: the bounds, broadcast to `shape`.
      shape: the result shape (default: the bounds' broadcast shape).
      dtype: a float dtype.
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.truncated_normal")
    data, _ = check_key("truncated_normal", key)
    dtype = dtype_arg("truncated_normal", dtype, "float")
    shape = broadcast_shape("truncated_normal", shape, lower, upper)
    return _truncated_normal(data, lower, upper, shape, dtype)


# --- bernoulli -----------------------------------------------------------------------------------


def bernoulli_impl(key: Any, p: Any, shape: tuple, mode: str) -> Any:
    dtype = p.dtype
    if mode == "high":
        u = uniform_impl(key, 0.0, 1.0, (2, *shape), dtype)
        u1, u2 = lax.index_in_dim(u, 0, keepdims=False), lax.index_in_dim(u, 1, keepdims=False)
        u2 = lax.mul(u2, np.array(2.0 ** -dtypes.finfo(dtype).nmant, dtype))
        return jnp.less(u2, jnp.subtract(p, u1))
    return jnp.less(uniform_impl(key, 0.0, 1.0, shape, dtype), p)


_bernoulli = jit(bernoulli_impl, static_argnums=(2, 3))


def bernoulli(
    key: Any, p: Any = 0.5, shape: Any = None, mode: str = "low", *, out_sharding: Any = None
) -> Any:
    """Booleans that are True with probability `p`.

    Args:
      key: a PRNG key.
      p: the probability (a float array or scalar), broadcast to `shape`.
      shape: the result shape (default: p's shape).
      mode: "low", or "high" to resolve probabilities below 2**-nmant with a second uniform.
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.bernoulli")
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data, _ = check_key("bernoulli", key)
    p = jnp.asarray(p)
    if not dtypes.issubdtype(p.dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {p.dtype}.")
    shape = broadcast_shape("bernoulli", shape, p)
    return _bernoulli(data, p, shape, mode)
