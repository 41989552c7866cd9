"""Sampling among choices: `categorical` (Gumbel-max), `choice`, `permutation` (sort by random
keys), in JAX's algorithms so the same key picks the same items.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import core, dtypes, lax, runtime
from stablax._src.jit import jit
from stablax._src.lax._argcheck import axis_arg
from stablax._src.random import threefry
from stablax._src.random.continuous import gumbel_impl, gumbel_mode
from stablax._src.random.keys import check_key
from stablax._src.random.params import check_shape, shape_arg
from stablax._src.random.uniform import randint_impl, split_key, uniform_impl

# An axis of the samplers: Python's TypeError for a non-integer, the message without a location.
_axis = functools.partial(axis_arg, convert=operator.index, located=False)


def _take(x: Any, indices: Any, axis: int) -> Any:
    """`jnp.take(x, indices, axis)` for in-bounds integer `indices` of any shape."""
    flat = lax.index_take(x, [jnp.ravel(indices)], [axis])  # (n, *x.shape without axis)
    flat = jnp.moveaxis(flat, 0, axis)
    return jnp.reshape(flat, (*x.shape[:axis], *indices.shape, *x.shape[axis + 1 :]))


# --- permutation ---------------------------------------------------------------------------------


def shuffle_impl(key: Any, x: Any, axis: int) -> Any:
    # Sort by fresh 32-bit random keys, repeated until collisions are unlikely:
    # 3 log(n) / log(2**32) rounds (one for any practical size; zero for one element).
    num_rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(num_rounds):
        key, subkey = split_key(key)
        sort_keys = threefry.random_bits(subkey, 32, tuple(x.shape))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


_shuffle = jit(shuffle_impl, static_argnums=2)


def _permutation_impl(key, x, axis, independent):
    if independent or x.ndim == 1:
        return shuffle_impl(key, x, axis)
    order = shuffle_impl(key, jnp.arange(x.shape[axis]), 0)
    return _take(x, order, axis)


_permutation = jit(_permutation_impl, static_argnums=(2, 3))


def permutation(
    key: Any, x: Any, axis: int = 0, independent: bool = False, *, out_sharding: Any = None
) -> Any:
    """A random permutation of `arange(x)` (integer x) or of x's slices along `axis`.

    Args:
      key: a PRNG key.
      x: an integer, or an array whose entries along `axis` are shuffled.
      axis: the axis to shuffle.
      independent: shuffle each 1-d slice along `axis` independently.
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.permutation")
    data, _ = check_key("permutation", key)
    if not np.ndim(x):
        if not dtypes.issubdtype(dtypes.dtype_of(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        if isinstance(x, core.Tracer):
            x = core.Tracer.__index__(x)  # raises the concretization error under jit
        return _shuffle(data, jnp.arange(int(x)), 0)
    x = jnp.asarray(x)
    return _permutation(data, x, _axis(axis, x.ndim, "random.permutation"), bool(independent))


# --- categorical ---------------------------------------------------------------------------------


def _categorical_impl(key, logits, shape, batch_shape, axis, replace, mode):
    prefix = shape[: len(shape) - len(batch_shape)]
    if replace:
        axis = axis - logits.ndim if axis >= 0 else axis
        logits_shape = list(shape[len(shape) - len(batch_shape) :])
        logits_shape.insert(axis % logits.ndim, logits.shape[axis])
        noise = gumbel_impl(key, (*prefix, *logits_shape), logits.dtype, mode)
        scores = noise + lax.expand_dims(logits, tuple(range(len(prefix))))
        return lax.argmax(scores, axis % scores.ndim, dtypes.default_int_dtype())
    logits = logits + gumbel_impl(key, logits.shape, logits.dtype, mode)
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(
            f"Number of samples without replacement ({k}) cannot exceed number of categories "
            f"({logits.shape[axis]})."
        )
    _, indices = lax.top_k(jnp.moveaxis(logits, axis, -1), k)
    return lax.reshape(indices, shape, (indices.ndim - 1, *range(indices.ndim - 1)))


_categorical = jit(_categorical_impl, static_argnums=(2, 3, 4, 5, 6))


def categorical(
    key: Any,
    logits: Any,
    axis: int = -1,
    shape: Any = None,
    replace: bool = True,
    mode: str | None = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """Category indices drawn with probabilities softmax(logits) along `axis` (Gumbel-max).

    Args:
      key: a PRNG key.
      logits: unnormalized log-probabilities.
      axis: the category axis.
      shape: the result shape; it must end with logits' shape without `axis` (the default).
      replace: draw with replacement; without, the leading dimensions index distinct draws.
      mode: the gumbel mode ("low" or "high").
      out_sharding: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "random.categorical")
    data, _ = check_key("categorical", key)
    logits = jnp.asarray(logits)
    axis = operator.index(axis)
    _axis(axis, logits.ndim, "random.categorical")
    batch_shape = tuple(np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = shape_arg("categorical", shape)
        check_shape("categorical", shape, batch_shape)
    return _categorical(data, logits, shape, batch_shape, axis, bool(replace), gumbel_mode(mode))


# --- choice --------------------------------------------------------------------------------------


def _choice_with_p(key, p, shape, replace, n_draws, mode):
    if replace:
        p_cuml = lax.cumsum(p, 0)
        total = lax.index_in_dim(p_cuml, p_cuml.shape[0] - 1, keepdims=False)
        r = total * (1 - uniform_impl(key, 0.0, 1.0, shape, p_cuml.dtype))
        # searchsorted(p_cuml, r, side="left"): the number of cumulative sums below r.
        below = jnp.less(jnp.expand_dims(p_cuml, tuple(range(len(shape)))), jnp.expand_dims(r, -1))
        return jnp.sum(below, axis=-1, dtype=dtypes.default_int_dtype())
    g = gumbel_impl(key, p.shape, p.dtype, mode) + jnp.log(p)
    return lax.top_k(g, n_draws)[1].astype(dtypes.default_int_dtype())


_choice_with_p_jit = jit(_choice_with_p, static_argnums=(2, 3, 4, 5))
_randint = jit(randint_impl, static_argnums=(3, 4))


def choice(
    key: Any,
    a: Any,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
    mode: str | None = None,
) -> Any:
    """Random samples from `a` (or from `arange(a)` for an integer `a`).

    Args:
      key: a PRNG key.
      a: an array, or an integer n meaning `arange(n)`.
      shape: the number of draws, as a shape.
      replace: draw with replacement.
      p: optional probabilities of the entries of `a` along `axis` (1-d).
      axis: the axis of `a` to draw along.
      mode: the gumbel mode for sampling without replacement with `p`.
    """
    data, _ = check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of random.choice must be a sequence, got {shape}")
    shape = shape_arg("choice", shape)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = operator.index(a) if not isinstance(a, core.Tracer) else a.__index__()
    else:
        axis = _axis(axis, arr.ndim, "random.choice")
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
            "when 'replace=False'"
        )
    if p is None:
        if replace:
            ind = _randint(data, 0, n_inputs, shape, dtypes.default_int_dtype())
            result = ind if arr.ndim == 0 else _take(arr, ind, axis)
        else:
            pool = jnp.arange(n_inputs) if arr.ndim == 0 else arr
            shuffled = _permutation(data, pool, axis if arr.ndim else 0, False)
            result = lax.slice_in_dim(shuffled, 0, n_draws, axis=axis if arr.ndim else 0)
    else:
        p = jnp.asarray(p)
        if not dtypes.issubdtype(p.dtype, np.inexact):
            p = p.astype(dtypes.default_float_dtype())
        if p.shape != (n_inputs,):
            raise ValueError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {p.shape} and a.shape[axis] is {n_inputs}."
            )
        ind = _choice_with_p_jit(data, p, shape, bool(replace), n_draws, gumbel_mode(mode))
        result = ind if arr.ndim == 0 else _take(arr, ind, axis)
    out_shape = shape if arr.ndim == 0 else (*arr.shape[:axis], *shape, *arr.shape[axis + 1 :])
    return jnp.reshape(result, out_shape)
