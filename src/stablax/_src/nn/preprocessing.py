"""Array preparation helpers of `jax.nn`: `standardize` (zero mean, unit variance) and `one_hot`."""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.arraylike import check_arraylike
from stablax._src.jit import jit
from stablax._src.nn.softmax import _static_axis


def _standardize(x, axis, mean, variance, epsilon, where, algorithm):
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
        else:
            # E[x^2] - E[x]^2 can round below zero; clip it as JAX does.
            variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
            variance = jnp.clip(variance, 0)
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


_standardize_jit = jit(_standardize, static_argnums=(1, 6))


def standardize(
    x: Any,
    axis: Any = -1,
    mean: Any = None,
    variance: Any = None,
    epsilon: Any = 1e-5,
    where: Any = None,
    *,
    algorithm: str = "fast",
) -> Any:
    """Normalises `x` to zero mean and unit variance along `axis`: `(x - mean) / sqrt(var + eps)`.

    Args:
      x: input array.
      axis: axis or axes of the statistics.
      mean: precomputed mean (computed from `x` when None).
      variance: precomputed variance (computed from `x` when None).
      epsilon: added to the variance.
      where: optional boolean mask of the entries the statistics use.
      algorithm: "fast" (`E[x^2] - E[x]^2`, clipped at 0) or "stable" (`E[(x - mean)^2]`).

    Returns:
      An array of `x`'s shape.
    """
    check_arraylike("standardize", x)
    check_arraylike("standardize", mean, variance, where, allow_none=True)
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return _standardize_jit(x, _static_axis(axis), mean, variance, epsilon, where, algorithm)


def _one_hot(x, num_classes, dtype, axis):
    out_axis = axis % (x.ndim + 1)
    lhs = lax.expand_dims(x, (out_axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, tuple(rhs_shape), out_axis)
    return (lhs == rhs).astype(dtype)


_one_hot_jit = jit(_one_hot, static_argnums=(1, 2, 3))


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
    """One-hot encodes integer class labels: `x[..., None] == arange(num_classes)`.

    Labels outside `[0, num_classes)` give a row of zeros.

    Args:
      x: array of class labels (integers; floats are accepted with a DeprecationWarning).
      num_classes: number of classes, a static integer.
      dtype: dtype of the result (default float dtype when None).
      axis: where the new class axis goes in the result.

    Returns:
      An array with one more axis than `x`, of size `num_classes`.
    """
    try:
        num_classes = operator.index(num_classes)
    except TypeError:
        raise TypeError(
            "one_hot: num_classes must be a concrete integer, got "
            f"{type(num_classes).__name__}. The error arose in jax.nn.one_hot argument "
            "`num_classes`."
        ) from None
    x = jnp.asarray(x)
    if not dtypes.issubdtype(x.dtype, np.integer):
        warnings.warn(
            f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
            DeprecationWarning,
            stacklevel=2,
        )
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    axis = operator.index(axis)
    if not -(x.ndim + 1) <= axis <= x.ndim:
        raise ValueError(
            f"one_hot: axis {axis} is out of bounds for an output of dimension {x.ndim + 1}"
        )
    return _one_hot_jit(x, num_classes, np.dtype(dtype), axis)
