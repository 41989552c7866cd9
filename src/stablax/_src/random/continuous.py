"""Samplers that transform uniforms or normals in closed form: exponential, laplace, logistic,
cauchy, gumbel, pareto, lognormal, weibull_min, rayleigh, wald, geometric, triangular, maxwell,
double_sided_maxwell, rademacher.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax, runtime
from stablax._src.config import config
from stablax._src.jit import jit
from stablax._src.random import threefry
from stablax._src.random.keys import check_key
from stablax._src.random.params import broadcast_shape, check_safe_cast, dtype_arg, shape_arg
from stablax._src.random.uniform import bernoulli_impl, normal_impl, split_key, uniform_impl


def _sampler(name: str, impl: Any) -> Any:
    """A public sampler `f(key, shape=(), dtype=None, *, out_sharding=None)` over
    `impl(key, shape, dtype)`."""
    jitted = jit(impl, static_argnums=(1, 2))

    def sample(key: Any, shape: Any = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
        runtime.check_sharding(out_sharding, f"random.{name}")
        data, _ = check_key(name, key)
        return jitted(data, shape_arg(name, shape), dtype_arg(name, dtype, "float"))

    sample.__name__ = sample.__qualname__ = name
    return sample


def _exponential(key, shape, dtype):
    u = uniform_impl(key, 0.0, 1.0, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # log(1 - u): u = 0 is possible, u = 1 is not


def _laplace(key, shape, dtype):
    u = uniform_impl(key, -1.0 + dtypes.finfo(dtype).epsneg, 1.0, shape, dtype)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def _logistic(key, shape, dtype):
    x = uniform_impl(key, dtypes.finfo(dtype).tiny, 1.0, shape, dtype)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def _cauchy(key, shape, dtype):
    u = uniform_impl(key, dtypes.finfo(dtype).eps, 1.0, shape, dtype)
    return lax.tan(lax.mul(np.array(np.pi, dtype), lax.sub(u, np.array(0.5, dtype))))


_SHARDING_DOC = "\n\n`out_sharding` is None or a sharding on stablax's one device."
exponential = _sampler("exponential", _exponential)
laplace = _sampler("laplace", _laplace)
logistic = _sampler("logistic", _logistic)
cauchy = _sampler("cauchy", _cauchy)
exponential.__doc__ = "Standard exponential values, -log(1 - U)." + _SHARDING_DOC
laplace.__doc__ = "Standard Laplace values (density exp(-|x|) / 2)." + _SHARDING_DOC
logistic.__doc__ = "Standard logistic values, log(U / (1 - U))." + _SHARDING_DOC
cauchy.__doc__ = "Standard Cauchy values, tan(pi * (U - 1/2))." + _SHARDING_DOC


# --- gumbel --------------------------------------------------------------------------------------


def _u32_pair_to_float(pair: Any) -> Any:
    # A 64-bit fixed-point fraction (two uint32 words, high first) rounded down to a float32.
    finfo = dtypes.finfo(np.float32)
    u32 = np.uint32
    clz = lax.clz(pair)
    hi_clz, lo_clz = (lax.index_in_dim(clz, i, keepdims=False) for i in (0, 1))
    hi, lo = (lax.index_in_dim(pair, i, keepdims=False) for i in (0, 1))
    hi_empty = lax.eq(hi_clz, u32(32))
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hi_clz),
        lax.select(
            hi_empty, lax.shift_left(lo, lo_clz), lax.shift_right_logical(lo, u32(32) - hi_clz)
        ),
    )
    mantissa = lax.shift_right_logical(mantissa, u32(finfo.bits - finfo.nmant - 1))
    mantissa = lax.bitwise_and(mantissa, u32((1 << finfo.nmant) - 1))
    leading = lax.select(hi_empty, lax.add(lo_clz, u32(32)), hi_clz)
    exponent = lax.shift_left(lax.sub(u32(-finfo.minexp), leading), u32(finfo.nmant))
    exponent = lax.bitwise_and(exponent, u32((1 << (finfo.bits - 2)) - (1 << (finfo.nmant - 1))))
    return lax.bitcast_convert_type(lax.bitwise_or(exponent, mantissa), np.float32)


def gumbel_impl(key: Any, shape: tuple, dtype: np.dtype, mode: str) -> Any:
    info = dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        raw = threefry.random_bits(key, 32, (2, *shape))
        flipped = lax.bitwise_not(raw)
        lo_flipped = lax.index_in_dim(flipped, 1, keepdims=False)
        # 1 - bits as a 64-bit fixed-point number: carry into the high word on overflow.
        carry = lax.convert_element_type(lax.eq(lo_flipped, np.uint32(0xFFFFFFFF)), np.uint32)
        flipped = lax.add(flipped, jnp.stack([carry, lax.full_like(carry, 1)]))
        small = lax.lt(lax.index_in_dim(raw, 0, keepdims=False), np.uint32(1 << 31))
        x = _u32_pair_to_float(jnp.where(small, raw, flipped))
        return jnp.where(small, -jnp.log(-jnp.log1p(-x)), -jnp.log(-jnp.log(x)))
    if mode in ("high", "highest"):
        u = uniform_impl(key, 0.0, 1.0, (2, *shape), dtype)
        high, low = lax.index_in_dim(u, 0, keepdims=False), lax.index_in_dim(u, 1, keepdims=False)
        x = jnp.where(high >= 0.5, high, high + 2**-(info.nmant) * low + info.tiny)
        return -jnp.log(-jnp.log1p(-x))
    return -jnp.log(-jnp.log(uniform_impl(key, info.tiny, 1.0, shape, dtype)))


_gumbel = jit(gumbel_impl, static_argnums=(1, 2, 3))


def gumbel_mode(mode: str | None) -> str:
    if mode is None:  # jax_high_dynamic_range_gumbel chooses the default
        mode = "high" if config.jax_high_dynamic_range_gumbel else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return mode


def gumbel(
    key: Any,
    shape: Any = (),
    dtype: Any = None,
    mode: str | None = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """Standard Gumbel values, -log(-log(U)).

    Args:
      key: a PRNG key.
      shape: the result shape.
      dtype: a float dtype.
      mode: "low" (default), "high" (two uniforms per value, resolving tails near 0) or
        "highest" (float32: 64 random bits per value).
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.gumbel")
    data, _ = check_key("gumbel", key)
    dtype = dtype_arg("gumbel", dtype, "float")
    return _gumbel(data, shape_arg("gumbel", shape), dtype, gumbel_mode(mode))


# --- samplers with parameters --------------------------------------------------------------------


def draw_with_params(
    name: str, jitted: Any, key: Any, params: tuple, shape: Any, dtype: Any, out_sharding: Any
) -> Any:
    """`jitted(key, *params, shape, dtype)` after JAX's checks: `shape` (None: the parameters'
    broadcast shape) must be what the parameters broadcast to; they must cast safely to `dtype`."""
    runtime.check_sharding(out_sharding, f"random.{name}")
    data, _ = check_key(name, key)
    dtype = dtype_arg(name, dtype, "float")
    shape = broadcast_shape(name, shape, *params)
    check_safe_cast(name, dtype, *params)
    return jitted(data, *params, shape, dtype)


def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    return lax.exp(jnp.divide(_exponential(key, shape, dtype), b))


def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(jnp.multiply(normal_impl(key, shape, dtype), sigma))


def _rayleigh(key, scale, shape, dtype):
    u = uniform_impl(key, 0.0, 1.0, shape, dtype)
    scale = jnp.broadcast_to(jnp.asarray(scale).astype(dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), lax.full_like(scale, -2))))


def _wald(key, mean, shape, dtype):
    k1, k2 = split_key(key)
    mean = jnp.broadcast_to(jnp.asarray(mean).astype(dtype), shape)
    v = normal_impl(k1, shape, dtype)
    z = uniform_impl(k2, 0.0, 1.0, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def _triangular(key, left, mode, right, shape, dtype):
    left = jnp.broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = jnp.broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = jnp.broadcast_to(lax.convert_element_type(mode, dtype), shape)
    fc = (mode - left) / (right - left)
    u = uniform_impl(key, 0.0, 1.0, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


_pareto_jit = jit(_pareto, static_argnums=(2, 3))
_lognormal_jit = jit(_lognormal, static_argnums=(2, 3))
_rayleigh_jit = jit(_rayleigh, static_argnums=(2, 3))
_wald_jit = jit(_wald, static_argnums=(2, 3))
_triangular_jit = jit(_triangular, static_argnums=(4, 5))


def pareto(
    key: Any, b: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Pareto values of shape `b`: exp(E / b), E standard exponential.

    `shape` defaults to `b`'s shape; `out_sharding` is None or a sharding on the one device.
    """
    return draw_with_params("pareto", _pareto_jit, key, (b,), shape, dtype, out_sharding)


_ONE_F32 = np.float32(1)


def lognormal(
    key: Any,
    sigma: Any = _ONE_F32,
    shape: Any = None,
    dtype: Any = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """Log-normal values, exp(sigma * N(0, 1)).

    `shape` defaults to `sigma`'s shape; `out_sharding` is None or a sharding on the one device.
    """
    return draw_with_params("lognormal", _lognormal_jit, key, (sigma,), shape, dtype, out_sharding)


def rayleigh(
    key: Any, scale: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Rayleigh values of scale `scale`: scale * sqrt(-2 log U).

    `shape` defaults to `scale`'s shape; `out_sharding` is None or a sharding on the one device.
    """
    return draw_with_params("rayleigh", _rayleigh_jit, key, (scale,), shape, dtype, out_sharding)


def wald(
    key: Any, mean: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Wald (inverse Gaussian) values of mean `mean`.

    `shape` defaults to `mean`'s shape; `out_sharding` is None or a sharding on the one device.
    """
    return draw_with_params("wald", _wald_jit, key, (mean,), shape, dtype, out_sharding)


def triangular(
    key: Any,
    left: Any,
    mode: Any,
    right: Any,
    shape: Any = None,
    dtype: Any = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """Triangular values on [left, right] peaking at `mode`.

    `shape` defaults to the parameters' broadcast shape; `out_sharding` is None or a sharding on
    the one device.
    """
    params = (left, mode, right)
    return draw_with_params("triangular", _triangular_jit, key, params, shape, dtype, out_sharding)


def _weibull_min(key, scale, concentration, shape, dtype):
    u = uniform_impl(key, 0, 1, shape, dtype)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale  # the inverse CDF


_weibull_min_jit = jit(_weibull_min, static_argnums=(3, 4))


def weibull_min(key: Any, scale: Any, concentration: Any, shape: Any = (), dtype: Any = None):
    """Weibull values: scale * (-log(1 - U)) ** (1 / concentration)."""
    data, _ = check_key("weibull_min", key)
    dtype = dtype_arg("weibull_min", dtype, "float")
    return _weibull_min_jit(data, scale, concentration, shape_arg("weibull_min", shape), dtype)


def _geometric(key, p, shape, dtype):
    p = jnp.asarray(p)
    if not dtypes.issubdtype(p.dtype, np.inexact):
        p = p.astype(dtypes.default_float_dtype())
    u = uniform_impl(key, 0.0, 1.0, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)  # JAX maps u = 0 to 1 so log(u) stays finite
    log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
    return (lax.floor(lax.div(lax.log(u), log_one_minus_p)) + 1).astype(dtype)


_geometric_jit = jit(_geometric, static_argnums=(2, 3))


def geometric(
    key: Any, p: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Geometric values: the number of Bernoulli(p) trials up to the first success (>= 1).

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.geometric")
    data, _ = check_key("geometric", key)
    dtype = dtype_arg("geometric", dtype, "int", int)
    shape = broadcast_shape("geometric", shape, p)
    return _geometric_jit(data, p, shape, dtype)


# --- maxwell and rademacher ----------------------------------------------------------------------


def _maxwell(key, shape, dtype):
    samples = normal_impl(key, (*shape, 3), dtype)
    return jnp.sqrt(jnp.sum(samples * samples, axis=-1))  # the norm of a 3-d standard normal


def _rademacher(key, shape, dtype):
    coins = bernoulli_impl(key, jnp.asarray(0.5, dtype=dtypes.default_float_dtype()), shape, "low")
    coins = coins.astype(dtype)
    return (2 * coins - 1).astype(dtype)


maxwell = _sampler("maxwell", _maxwell)
maxwell.__doc__ = "Maxwell values: the length of a 3-d standard normal vector." + _SHARDING_DOC
_rademacher_jit = jit(_rademacher, static_argnums=(1, 2))


def rademacher(key: Any, shape: Any = (), dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Random signs, -1 or +1 with equal probability.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.rademacher")
    data, _ = check_key("rademacher", key)
    dtype = dtype_arg("rademacher", dtype, "any", int)
    return _rademacher_jit(data, shape_arg("rademacher", shape), dtype)


def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = tuple(np.broadcast_shapes(np.shape(loc), np.shape(scale)))
    shape = (shape or params_shape) + params_shape  # JAX's rule, params_shape twice for shape=()
    maxwell_key, sign_key = split_key(key)
    magnitudes = _maxwell(maxwell_key, shape, dtype)
    signs = _rademacher(sign_key, shape, dtype)
    return signs * magnitudes * scale + loc


_double_sided_maxwell_jit = jit(_double_sided_maxwell, static_argnums=(3, 4))


def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Any = (), dtype: Any = None):
    """Maxwell magnitudes with random signs, scaled by `scale` and shifted by `loc`.

    As in JAX, the result shape is `shape + broadcast(loc.shape, scale.shape)`, where an empty
    `shape` counts as the broadcast shape itself.
    """
    data, _ = check_key("double_sided_maxwell", key)
    dtype = dtype_arg("double_sided_maxwell", dtype, "float")
    shape = shape_arg("double_sided_maxwell", shape)
    return _double_sided_maxwell_jit(data, loc, scale, shape, dtype)
