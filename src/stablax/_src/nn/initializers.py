"""`jax.nn.initializers`: functions `init(key, shape, dtype)` drawing parameter arrays, consuming
the PRNG key exactly as JAX does so the same key gives JAX's bits.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from stablax import numpy as jnp
from stablax import random
from stablax._src import dtypes


@runtime_checkable
class Initializer(Protocol):
    """The protocol of an initializer: `init(key, shape, dtype=None, out_sharding=None)`."""

    def __call__(self, key: Any, shape: Any, dtype: Any = None, out_sharding: Any = None) -> Any:
        raise NotImplementedError


def _dtype(dtype: Any) -> Any:
    return dtypes.default_float_dtype() if dtype is None else dtype


def _no_sharding(name: str, out_sharding: Any) -> None:
    if out_sharding is not None:
        raise NotImplementedError(
            f"nn.initializers.{name}: out_sharding is not supported (stablax arrays live on one "
            f"device); got {out_sharding!r}"
        )


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (operator.index(shape),)
    return tuple(operator.index(d) for d in shape)


def zeros(key: Any, shape: Any, dtype: Any = None, out_sharding: Any = None) -> Any:
    """An initializer returning zeros of `shape` (the key is unused).

    Args:
      key: a PRNG key (ignored).
      shape: the result shape.
      dtype: the result dtype (default float dtype when None).
      out_sharding: must be None.

    Returns:
      `jnp.zeros(shape, dtype)`.
    """
    _no_sharding("zeros", out_sharding)
    return jnp.zeros(shape, _dtype(dtype))


def ones(key: Any, shape: Any, dtype: Any = None, out_sharding: Any = None) -> Any:
    """An initializer returning ones of `shape` (the key is unused).

    Args:
      key: a PRNG key (ignored).
      shape: the result shape.
      dtype: the result dtype (default float dtype when None).
      out_sharding: must be None.

    Returns:
      `jnp.ones(shape, dtype)`.
    """
    _no_sharding("ones", out_sharding)
    return jnp.ones(shape, _dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """Builds an initializer that fills the array with `value`.

    Args:
      value: the fill value.
      dtype: default dtype of the initializer.

    Returns:
      `init(key, shape, dtype=dtype)` returning `jnp.full(shape, value, dtype)`.
    """

    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("constant", out_sharding)
        return jnp.full(shape, value, dtype=_dtype(dtype))

    return init


def _scaled_draw(name: str, draw: Any, scale: Any, dtype: Any) -> Initializer:
    """The initializer `name`: `draw(key, shape, dtype)` times `scale`."""

    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding(name, out_sharding)
        dtype = _dtype(dtype)
        return draw(key, shape, dtype) * jnp.array(scale, dtype)

    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Builds an initializer drawing uniformly from `[0, scale)`.

    Args:
      scale: upper bound of the interval.
      dtype: default dtype of the initializer.

    Returns:
      `init(key, shape, dtype=dtype)`.
    """
    return _scaled_draw("uniform", random.uniform, scale, dtype)


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Builds an initializer drawing from a centred normal with standard deviation `stddev`.

    Args:
      stddev: the standard deviation.
      dtype: default dtype of the initializer.

    Returns:
      `init(key, shape, dtype=dtype)`.
    """
    return _scaled_draw("normal", random.normal, stddev, dtype)


def truncated_normal(
    stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0
) -> Initializer:
    """Builds an initializer drawing a normal truncated to `[lower, upper]`, times `stddev`.

    Args:
      stddev: scale of the result (the standard deviation before truncation).
      dtype: default dtype of the initializer.
      lower: lower truncation bound, in standard deviations.
      upper: upper truncation bound, in standard deviations.

    Returns:
      `init(key, shape, dtype=dtype)`.
    """

    def draw(key: Any, shape: Any, dtype: Any) -> Any:
        return random.truncated_normal(key, lower, upper, shape, dtype)

    return _scaled_draw("truncated_normal", draw, stddev, dtype)


def _axes_size(shape: tuple[int, ...], axes: int | Sequence[int]) -> int:
    if isinstance(axes, (int, np.integer)):
        return shape[axes]
    return math.prod(shape[i] for i in axes)


def _compute_fans(
    shape: tuple[int, ...],
    in_axis: int | Sequence[int] = -2,
    out_axis: int | Sequence[int] = -1,
    batch_axis: int | Sequence[int] = (),
) -> tuple[float, float]:
    """(fan_in, fan_out): the in/out axis sizes times the receptive field (the other axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor "
            "with default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    in_size = _axes_size(shape, in_axis)
    out_size = _axes_size(shape, out_axis)
    batch_size = _axes_size(shape, batch_axis)
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


def _real_dtype(dtype: Any) -> np.dtype:
    return np.array(0, dtype).real.dtype


def _complex_uniform(key: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    # Uniform on the unit-variance disc: radius sqrt(2 u), uniform angle.
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key: Any, upper: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    # A complex normal whose modulus is truncated to `upper`, by inverting the modulus's cdf.
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    t = (1 - jnp.exp(jnp.array(-(upper**2), dtype))) * random.uniform(key_r, shape, real).astype(
        dtype
    )
    r = jnp.sqrt(-jnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


_TRUNCATED_STD_REAL = 0.87962566103423978  # std of a standard normal truncated to [-2, 2]
_TRUNCATED_STD_COMPLEX = 0.95311164380491208


def variance_scaling(
    scale: Any,
    mode: str,
    distribution: str,
    in_axis: int | Sequence[int] = -2,
    out_axis: int | Sequence[int] = -1,
    batch_axis: int | Sequence[int] = (),
    dtype: Any = None,
) -> Initializer:
    """Builds an initializer whose draws have variance `scale / n`, `n` a fan of the shape.

    Args:
      scale: the variance numerator.
      mode: "fan_in", "fan_out", "fan_avg" or "fan_geo_avg": which fan is `n`.
      distribution: "truncated_normal" (truncated to two standard deviations, then rescaled),
        "normal" or "uniform".
      in_axis: axis or axes of the input dimension (default -2).
      out_axis: axis or axes of the output dimension (default -1).
      batch_axis: axes excluded from the fans.
      dtype: default dtype of the initializer.

    Returns:
      `init(key, shape, dtype=dtype)`.
    """

    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("variance_scaling", out_sharding)
        shape = _shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominator, dtype=dtype)
        floating = dtypes.issubdtype(dtype, np.floating)
        if distribution == "truncated_normal":
            if floating:
                stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STD_REAL, dtype)
                return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
            stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STD_COMPLEX, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            if floating:
                return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
            return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return init


def _variance_scaling_preset(scale: float, mode: str, distribution: str, name: str, doc: str):
    def preset(
        in_axis: int | Sequence[int] = -2,
        out_axis: int | Sequence[int] = -1,
        batch_axis: int | Sequence[int] = (),
        dtype: Any = None,
    ) -> Initializer:
        return variance_scaling(
            scale,
            mode,
            distribution,
            in_axis=in_axis,
            out_axis=out_axis,
            batch_axis=batch_axis,
            dtype=dtype,
        )

    preset.__name__ = preset.__qualname__ = name
    preset.__doc__ = f"""{doc}

    Args:
      in_axis: axis or axes of the input dimension.
      out_axis: axis or axes of the output dimension.
      batch_axis: axes excluded from the fans.
      dtype: default dtype of the initializer.

    Returns:
      `variance_scaling({scale}, "{mode}", "{distribution}", ...)`.
    """
    return preset


glorot_uniform = _variance_scaling_preset(
    1.0, "fan_avg", "uniform", "glorot_uniform", "Glorot (Xavier) uniform initializer."
)
glorot_normal = _variance_scaling_preset(
    1.0, "fan_avg", "truncated_normal", "glorot_normal", "Glorot (Xavier) normal initializer."
)
lecun_uniform = _variance_scaling_preset(
    1.0, "fan_in", "uniform", "lecun_uniform", "LeCun uniform initializer."
)
lecun_normal = _variance_scaling_preset(
    1.0, "fan_in", "truncated_normal", "lecun_normal", "LeCun normal initializer."
)
he_uniform = _variance_scaling_preset(
    2.0, "fan_in", "uniform", "he_uniform", "He (Kaiming) uniform initializer."
)
he_normal = _variance_scaling_preset(
    2.0, "fan_in", "truncated_normal", "he_normal", "He (Kaiming) normal initializer."
)
xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """Builds an initializer of (scaled) orthogonal matrices.

    The shape is viewed as a matrix with `shape[column_axis]` columns and every other axis
    flattened into rows; the draw has orthonormal columns (or rows, when there are fewer rows).

    Args:
      scale: multiplies the orthogonal matrix.
      column_axis: the axis holding the columns.
      dtype: default dtype of the initializer.

    Returns:
      `init(key, shape, dtype=dtype)` for shapes of at least 2 dimensions.
    """

    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _dtype(dtype)
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        q = jnp.moveaxis(q, -1, column_axis)
        return jnp.array(scale, dtype) * q

    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """Builds the delta-orthogonal initializer for 1-3D convolution kernels.

    The kernel is zero except at its spatial centre, which holds an orthogonal
    (in_channels, out_channels) matrix.

    Args:
      scale: multiplies the orthogonal matrix.
      column_axis: the axis holding the columns of the orthogonal matrix.
      dtype: default dtype of the initializer.

    Returns:
      `init(key, shape, dtype=dtype)` for 3-, 4- or 5-dimensional shapes with
      `shape[-2] <= shape[-1]`.
    """

    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _dtype(dtype)
        shape = _shape(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre].set(matrix)

    return init
