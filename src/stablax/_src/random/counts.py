"""Count-valued samplers: poisson (Knuth's product of uniforms below 10, Hörmann's transformed
rejection above), binomial (geometric inversion or BTRS rejection) and multinomial (a scan of
conditional binomials), in JAX's algorithms and key order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax, runtime
from stablax._src.jit import jit
from stablax._src.lax import scan, while_loop
from stablax._src.random.keys import check_key, split_data
from stablax._src.random.params import dtype_arg, shape_arg
from stablax._src.random.uniform import split_key, uniform_impl


def _full(shape: tuple, value: Any, dtype: Any) -> Any:
    return lax.full(shape, value, dtype)


# --- poisson -------------------------------------------------------------------------------------


def _poisson_knuth(key, lam, shape, dtype, max_iters):
    # Multiply uniforms until the product drops below exp(-lam); count the factors.
    def body(carry):
        i, k, rng, log_prod = carry
        rng, subkey = split_key(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = uniform_impl(subkey, 0.0, 1.0, shape, np.dtype(np.float32))
        return i + 1, k, rng, log_prod + jnp.log(u)

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return jnp.any(log_prod > -lam) & (i < max_iters)

    init = (0, _full(shape, 0, dtype), key, _full(shape, 0, np.float32))
    k = while_loop(cond, body, init)[1]
    return (k - 1).astype(dtype)


def _poisson_rejection(key, lam, shape, dtype, max_iters):
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split_key(key, 3)
        u = uniform_impl(subkey_0, 0.0, 1.0, shape, lam.dtype) - 0.5
        v = uniform_impl(subkey_1, 0.0, 1.0, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        i, _, accepted, _ = carry
        return jnp.any(~accepted) & (i < max_iters)

    init = (0, _full(shape, -1, lam.dtype), _full(shape, False, np.bool_), key)
    return while_loop(cond, body, init)[1].astype(dtype)


def _poisson(key, lam, shape, dtype):
    use_knuth = jnp.isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(dtypes.iinfo(dtype).max)
    result = lax.select(
        use_knuth,
        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters),
    )
    return lax.select(lam == 0, jnp.zeros_like(result), result)


_poisson_jit = jit(_poisson, static_argnums=(2, 3))


def poisson(
    key: Any, lam: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Poisson(lam) counts.

    Args:
      key: a PRNG key.
      lam: the rate, broadcast to `shape` (computed in float32, as in JAX).
      shape: the result shape (default: lam's shape).
      dtype: an integer dtype (default int32, int64 with x64).
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.poisson")
    data, _ = check_key("poisson", key)
    dtype = dtype_arg("poisson", dtype, "any", int)
    shape = np.shape(lam) if shape is None else shape_arg("poisson", shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    return _poisson_jit(data, lam, shape, dtype)


# --- binomial ------------------------------------------------------------------------------------

_STIRLING_TAIL = np.array(
    [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ]
)


def _stirling_approx_tail(k):
    table = jnp.asarray(_STIRLING_TAIL.astype(k.dtype))
    use_table = k <= 9
    k = lax.clamp(np.array(0.0, k.dtype), k, np.array(9.0, k.dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    index = jnp.asarray(jnp.floor(k), dtype=np.int32)
    looked_up = jnp.reshape(lax.index_take(table, [jnp.ravel(index)], [0]), k.shape)
    return lax.select(use_table, looked_up, approx)


def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    log1minusprob = jnp.log1p(-prob)

    def body(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = split_key(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = uniform_impl(subkey, 0.0, 1.0, shape, prob.dtype)
        geom = jnp.ceil(jnp.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return jnp.any(geom_sum <= count) & (i < max_iters)

    zeros = _full(shape, 0, prob.dtype)
    k = while_loop(cond, body, (0, zeros, zeros, key))[1]
    return (k - 1).astype(dtype)


def _btrs(key, count, prob, shape, dtype, max_iters):
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split_key(key, 3)
        u = uniform_impl(subkey_0, 0.0, 1.0, shape, prob.dtype)
        v = uniform_impl(subkey_1, 0.0, 1.0, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = (
            (m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
            + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
            + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
            + _stirling_approx_tail(m)
            + _stirling_approx_tail(count - m)
            - _stirling_approx_tail(k)
            - _stirling_approx_tail(count - k)
        )
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        i, accepted = carry[0], carry[2]
        return jnp.any(~accepted) & (i < max_iters)

    init = (0, _full(shape, -1, prob.dtype), _full(shape, False, np.bool_), key)
    return while_loop(cond, body, init)[1].astype(dtype)


def binomial_impl(key, count, prob, shape, dtype):
    if shape is None:
        shape = tuple(np.broadcast_shapes(np.shape(count), np.shape(prob)))
    prob = jnp.asarray(prob)
    if not dtypes.issubdtype(prob.dtype, np.inexact):
        prob = prob.astype(dtypes.default_float_dtype())
    count = jnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = jnp.isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = jnp.isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)  # NumPy's behaviour for non-integer counts
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(
        use_inversion,
        _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
        _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters),
    )
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & ~invalid, jnp.full_like(samples, np.inf, dtype), samples)
    return lax.select(
        p_lt_half | count_nan_or_neg | q_is_nan | count_inf,
        samples,
        count.astype(dtype) - samples,
    )


_binomial = jit(binomial_impl, static_argnums=(3, 4))


def binomial(key: Any, n: Any, p: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Binomial(n, p) counts, as floats (NaN for invalid n or p, inf for infinite n).

    Args:
      key: a PRNG key.
      n: the number of trials (floored), broadcast with p.
      p: the success probability.
      shape: the result shape (default: the broadcast shape of n and p).
      dtype: a float dtype.
    """
    data, _ = check_key("binomial", key)
    dtype = dtype_arg("binomial", dtype, "float")
    shape = None if shape is None else shape_arg("binomial", shape)
    return _binomial(data, n, p, shape, dtype)


# --- multinomial ---------------------------------------------------------------------------------


def _multinomial(key, n, p, shape, dtype):
    n, p = jnp.asarray(n), jnp.asarray(p)
    inexact = dtypes.result_type(n, p, dtypes.default_float_dtype())
    n, p = n.astype(inexact), p.astype(inexact)
    shape = p.shape if shape is None else shape
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)
    remaining = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining == 0, 1, remaining)
    keys = split_data(key, (ratios.shape[0],))

    def draw(remainder, ratio_key):
        ratio, k = ratio_key
        count = binomial_impl(k, remainder, jnp.clip(ratio, 0, 1), None, remainder.dtype)
        return remainder - count, count

    _, counts = scan(draw, n, (ratios, keys))
    return jnp.moveaxis(counts, 0, -1).astype(dtype)


_multinomial_jit = jit(_multinomial, static_argnums=(3, 4))


def multinomial(key: Any, n: Any, p: Any, *, shape: Any = None, dtype: Any = None, unroll=1):
    """Multinomial counts of `n` trials over the categories of `p`'s last axis (as floats)."""
    data, _ = check_key("multinomial", key)
    dtype = dtype_arg("multinomial", dtype, "float")
    shape = None if shape is None else shape_arg("multinomial", shape)
    return _multinomial_jit(data, n, p, shape, dtype)
