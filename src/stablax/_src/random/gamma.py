"""Gamma and the distributions built from it: gamma, loggamma, beta, dirichlet, chisquare, f, t,
generalized_normal, ball.

Gamma uses Marsaglia and Tsang's rejection method, one `lax.while_loop` per sample, vectorized
with `vmap` over one subkey per element, exactly as JAX draws it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax, runtime
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.lax import while_loop
from stablax._src.primitive import Primitive
from stablax._src.random.continuous import _exponential, _rademacher, draw_with_params
from stablax._src.random.keys import check_key, split_data
from stablax._src.random.params import broadcast_shape, dtype_arg, shape_arg
from stablax._src.random.uniform import normal_impl, split_key, uniform_impl
from stablax._src.transforms.vmap_api import vmap


def _gamma_one(key: Any, alpha: Any, log_space: bool) -> Any:
    dtype = alpha.dtype

    def const(value: float) -> Any:
        return lax.full((), value, dtype)

    zero, one, minus_one, two = const(0), const(1), const(-1), const(2)
    one_over_two, one_over_three, squeeze = const(0.5), const(1.0 / 3.0), const(0.0331)
    # alpha < 1 is boosted: Gamma(alpha) ~ Gamma(alpha + 1) * U ** (1 / alpha).
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, one_over_three)
    c = lax.div(one_over_three, lax.sqrt(d))

    def rejected(state):
        _, x_sq, v, u = state
        squeeze_fails = lax.ge(u, lax.sub(one, lax.mul(squeeze, lax.mul(x_sq, x_sq))))
        bound = lax.add(
            lax.mul(x_sq, one_over_two), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))
        )
        return lax.bitwise_and(squeeze_fails, lax.ge(lax.log(u), bound))

    def next_candidate(state):
        key = state[0]
        key, x_key, u_key = split_key(key, 3)

        def next_normal(kxv):
            key, subkey = split_key(kxv[0])
            x = normal_impl(subkey, (), dtype)
            return key, x, lax.add(one, lax.mul(x, c))

        _, x, v = while_loop(
            lambda kxv: lax.le(kxv[2], zero), next_normal, (x_key, zero, minus_one)
        )
        u = uniform_impl(u_key, 0.0, 1.0, (), dtype)
        return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    key, subkey = split_key(key)
    _, _, v, _ = while_loop(rejected, next_candidate, (key, zero, one, two))
    if log_space:
        log_samples = lax.neg(_exponential(subkey, (), dtype))
        log_boost = lax.select(
            lax.bitwise_or(boost_mask, lax.eq(log_samples, zero)),
            zero,
            lax.mul(log_samples, lax.div(one, alpha_orig)),
        )
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    samples = lax.sub(1.0, uniform_impl(subkey, 0.0, 1.0, (), dtype))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, v), boost)


def _gamma_raw(key: Any, a: Any, shape: tuple, dtype: np.dtype, log_space: bool) -> Any:
    a = lax.convert_element_type(a, dtype)
    if a.shape != shape:
        a = jnp.broadcast_to(a, shape)
    keys = split_data(key, (math.prod(shape),))
    samples = vmap(lambda k, alpha: _gamma_one(k, alpha, log_space))(keys, jnp.ravel(a))
    return jnp.reshape(samples, shape)


# Differentiating through the rejection loop would give a wrong (pathwise) derivative in `a`;
# samples are differentiated implicitly instead: the CDF value P(a, sample) is held fixed.
_gamma_implicit = custom_jvp(_gamma_raw, nondiff_argnums=(2, 3, 4))


@_gamma_implicit.defjvp
def _gamma_jvp(shape, dtype, log_space, primals, tangents):
    key, a = primals
    samples = _gamma_implicit(key, a, shape, dtype, log_space)
    a_tangent = tangents[1]
    if a_tangent is None:
        return samples, lax.full_like(samples, 0)
    alpha = jnp.broadcast_to(lax.convert_element_type(a, dtype), shape)
    if log_space:
        # d log(x) = dx / x; exp(log x) may round to 0, so use the smallest normal instead.
        x = lax.exp(samples)
        x = lax.select(lax.eq(x, lax.full_like(x, 0)), lax.full_like(x, jnp.finfo(dtype).tiny), x)
        sample_grad = lax.div(lax.random_gamma_grad(alpha, x), x)
    else:
        sample_grad = lax.random_gamma_grad(alpha, samples)
    a_tangent = jnp.broadcast_to(lax.convert_element_type(a_tangent, dtype), shape)
    return samples, lax.mul(a_tangent, sample_grad)


def _gamma_per_key_raw(keys: Any, a: Any, log_space: bool) -> Any:
    samples = vmap(lambda k, alpha: _gamma_one(k, alpha, log_space))(
        jnp.reshape(keys, (-1, 2)), jnp.ravel(a)
    )
    return jnp.reshape(samples, a.shape)


_gamma_per_key = custom_jvp(_gamma_per_key_raw, nondiff_argnums=(2,))


@_gamma_per_key.defjvp
def _gamma_per_key_jvp(log_space, primals, tangents):
    keys, a = primals
    samples = _gamma_per_key(keys, a, log_space)
    if log_space:
        x = lax.exp(samples)
        tiny = lax.full_like(x, jnp.finfo(x.dtype).tiny)
        x = lax.select(lax.eq(x, lax.full_like(x, 0)), tiny, x)
        sample_grad = lax.div(lax.random_gamma_grad(a, x), x)
    else:
        sample_grad = lax.random_gamma_grad(a, samples)
    return samples, lax.mul(tangents[1], sample_grad)


def _random_gamma_bind(key: Any, a: Any, *, log_space: bool = False) -> Any:
    # JAX's rule: the key array's shape is a prefix of a's; each key is split into one subkey
    # per element of the rest of a's shape.
    data, _ = check_key("random_gamma_p", key, allow_batched=True)
    a = jnp.asarray(a)
    key_shape = tuple(data.shape[:-1])
    if a.shape[: len(key_shape)] != key_shape:
        raise ValueError(
            f"random_gamma_p: the key shape {key_shape} must be a prefix of a's shape {a.shape}"
        )
    count = math.prod(a.shape[len(key_shape) :])
    subkeys = vmap(lambda k: split_data(k, (count,)))(jnp.reshape(data, (-1, 2)))
    return _gamma_per_key(jnp.reshape(subkeys, (-1, 2)), a, bool(log_space))


# JAX's primitive: Gamma(a, 1) samples, one per key (keys.shape == a.shape).
random_gamma_p = Primitive("random_gamma", _random_gamma_bind)


def gamma_impl(key: Any, a: Any, shape: tuple, dtype: np.dtype, log_space: bool = False) -> Any:
    """Gamma(a, 1) samples of `shape` from raw key data (log-values when `log_space`)."""
    return _gamma_implicit(key, a, shape, dtype, log_space)


_gamma = jit(gamma_impl, static_argnums=(2, 3, 4))


def _gamma_sampler(name: str, log_space: bool):
    def sample(
        key: Any, a: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
    ) -> Any:
        runtime.check_sharding(out_sharding, f"random.{name}")
        data, _ = check_key(name, key)
        dtype = dtype_arg(name, dtype, "float")
        shape = broadcast_shape(name, shape, a)
        return _gamma(data, a, shape, dtype, log_space)

    sample.__name__ = sample.__qualname__ = name
    return sample


gamma = _gamma_sampler("gamma", False)
gamma.__doc__ = """Gamma(a, 1) values (Marsaglia-Tsang rejection sampling).

    Args:
      key: a PRNG key.
      a: the shape parameter, broadcast to `shape`.
      shape: the result shape (default: a's shape).
      dtype: a float dtype.
      out_sharding: None, or a sharding on stablax's one device.
    """
loggamma = _gamma_sampler("loggamma", True)
loggamma.__doc__ = """Logarithms of Gamma(a, 1) values, accurate for small `a` where gamma
    underflows to 0 (`out_sharding`: None or a sharding on stablax's one device)."""


# --- built from gamma ----------------------------------------------------------------------------


def _beta(key, a, b, shape, dtype):
    a = jnp.broadcast_to(lax.convert_element_type(a, dtype), shape)
    b = jnp.broadcast_to(lax.convert_element_type(b, dtype), shape)
    key_a, key_b = split_key(key)
    log_gamma_a = gamma_impl(key_a, a, shape, dtype, True)
    log_gamma_b = gamma_impl(key_b, b, shape, dtype, True)
    # gamma_a / (gamma_a + gamma_b) without overflow or underflow.
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = jnp.exp(log_gamma_a - log_max)
    gamma_b_scaled = jnp.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


def _chisquare(key, df, shape, dtype):
    half_df = lax.div(lax.convert_element_type(df, dtype), np.array(2, dtype))
    return lax.mul(jnp.exp(gamma_impl(key, half_df, shape, dtype, True)), np.array(2, dtype))


def _f(key, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = split_key(key)
    num = lax.div(_chisquare(key_dfn, dfnum, shape, dtype), dfnum)
    den = lax.div(_chisquare(key_dfd, dfden, shape, dtype), dfden)
    return lax.div(num, den)


def _t(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = split_key(key)
    n = normal_impl(key_n, shape, dtype)
    half_df = lax.div(df, np.array(2, dtype))
    g = gamma_impl(key_g, half_df, shape, dtype)
    return n * jnp.sqrt(half_df / g)


_beta_jit = jit(_beta, static_argnums=(3, 4))
_chisquare_jit = jit(_chisquare, static_argnums=(2, 3))
_f_jit = jit(_f, static_argnums=(3, 4))
_t_jit = jit(_t, static_argnums=(2, 3))


def beta(
    key: Any, a: Any, b: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Beta(a, b) values, from two log-gamma draws.

    `shape` defaults to the broadcast shape of `a` and `b`; `out_sharding` is None or a sharding
    on the one device.
    """
    return draw_with_params("beta", _beta_jit, key, (a, b), shape, dtype, out_sharding)


def chisquare(
    key: Any, df: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Chi-square values with `df` degrees of freedom.

    `shape` defaults to `df`'s shape; `out_sharding` is None or a sharding on the one device.
    """
    return draw_with_params("chisquare", _chisquare_jit, key, (df,), shape, dtype, out_sharding)


def f(
    key: Any,
    dfnum: Any,
    dfden: Any,
    shape: Any = None,
    dtype: Any = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """F-distribution values with (dfnum, dfden) degrees of freedom.

    `shape` defaults to the parameters' broadcast shape; `out_sharding` is None or a sharding on
    the one device.
    """
    return draw_with_params("f", _f_jit, key, (dfnum, dfden), shape, dtype, out_sharding)


def t(key: Any, df: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Student's t values with `df` degrees of freedom.

    `shape` defaults to `df`'s shape; `out_sharding` is None or a sharding on the one device.
    """
    return draw_with_params("t", _t_jit, key, (df,), shape, dtype, out_sharding)


def _dirichlet(key, alpha, shape, dtype):
    alpha = lax.convert_element_type(alpha, dtype)
    log_gamma = gamma_impl(key, alpha, shape + alpha.shape[-1:], dtype, True)
    # softmax over the last axis, as jax.nn.softmax computes it
    unnormalized = jnp.exp(log_gamma - jnp.max(log_gamma, -1, keepdims=True))
    return unnormalized / jnp.sum(unnormalized, -1, keepdims=True)


_dirichlet_jit = jit(_dirichlet, static_argnums=(2, 3))


def dirichlet(
    key: Any, alpha: Any, shape: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Dirichlet(alpha) vectors along the last axis.

    Args:
      key: a PRNG key.
      alpha: concentrations, shape (..., k).
      shape: the batch shape (default alpha.shape[:-1]); the result is shape + (k,).
      dtype: a float dtype.
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.dirichlet")
    data, _ = check_key("dirichlet", key)
    dtype = dtype_arg("dirichlet", dtype, "float")
    if np.ndim(alpha) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {np.ndim(alpha)}")
    shape = broadcast_shape("dirichlet", shape, np.empty(np.shape(alpha)[:-1]))
    return _dirichlet_jit(data, alpha, shape, dtype)


def _generalized_normal(key, p, shape, dtype):
    k1, k2 = split_key(key)
    g = gamma_impl(k1, 1 / p, shape, dtype)
    r = _rademacher(k2, shape, dtype)
    return r * g ** (1 / p)


_generalized_normal_jit = jit(_generalized_normal, static_argnums=(2, 3))


def generalized_normal(
    key: Any, p: Any, shape: Any = (), dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Generalized normal values, density proportional to exp(-|x| ** p).

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.generalized_normal")
    data, _ = check_key("generalized_normal", key)
    dtype = dtype_arg("generalized_normal", dtype, "float")
    return _generalized_normal_jit(data, p, shape_arg("generalized_normal", shape), dtype)


def _ball(key, p, d, shape, dtype):
    k1, k2 = split_key(key)
    g = _generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


_ball_jit = jit(_ball, static_argnums=(2, 3, 4))


def ball(
    key: Any, d: int, p: Any = 2, shape: Any = (), dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Points uniformly distributed in the unit p-norm ball of dimension `d`.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.ball")
    data, _ = check_key("ball", key)
    dtype = dtype_arg("ball", dtype, "float")
    return _ball_jit(data, p, int(d), shape_arg("ball", shape), dtype)
