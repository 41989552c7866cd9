"""Elementwise activation functions of `jax.nn`, with JAX's numerically stable forms and the
custom derivatives JAX gives `relu`, `relu6` and `log1mexp`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.arraylike import check_arraylike
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.numpy._promotion import promote_dtypes_inexact

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _arraylike(name: str, x: Any) -> Any:
    check_arraylike(name, x)
    return jnp.asarray(x)


@jit
def identity(x: Any) -> Any:
    """Returns `x` unchanged, as an array.

    Args:
      x: input array.

    Returns:
      `x`, with its dtype (and weak type) preserved.
    """
    return _arraylike("identity", x)


def _relu(x: Any) -> Any:
    return jnp.maximum(x, 0)


relu = custom_jvp(jit(_relu))
relu.__doc__ = """Rectified linear unit: `max(x, 0)`.

Its derivative at 0 is 0 (JAX's choice, through a custom JVP), so `grad(relu)(0.) == 0`.

Args:
  x: input array.

Returns:
  An array of `x`'s shape and dtype.
"""
relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


def _relu6(x: Any) -> Any:
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6 = custom_jvp(jit(_relu6))
relu6.__doc__ = """Rectified linear unit capped at 6: `min(max(x, 0), 6)`.

The derivative is 0 at both kinks (x = 0 and x = 6), as in JAX.

Args:
  x: input array.

Returns:
  An array of `x`'s shape.
"""
relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


@jit
def squareplus(x: Any, b: Any = 4) -> Any:
    """Squareplus: `(x + sqrt(x**2 + b)) / 2`, a smooth relu.

    Args:
      x: input array.
      b: smoothness parameter (non-negative).

    Returns:
      An array of `x`'s shape.
    """
    check_arraylike("squareplus", x, b)
    x, b = jnp.asarray(x), jnp.asarray(b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jit
def softplus(x: Any) -> Any:
    """Softplus: `log(1 + exp(x))`, computed as `logaddexp(x, 0)` so large inputs do not overflow.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    return jnp.logaddexp(x, 0)


@jit
def sparse_plus(x: Any) -> Any:
    """Sparse plus: 0 for x <= -1, x for x >= 1, `(x + 1)**2 / 4` in between.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    x = _arraylike("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def soft_sign(x: Any) -> Any:
    """Soft sign: `x / (|x| + 1)`.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    x = _arraylike("soft_sign", x)
    return x / (jnp.abs(x) + 1)


@jit
def sigmoid(x: Any) -> Any:
    """Logistic sigmoid `1 / (1 + exp(-x))` (`stablehlo.logistic`).

    Args:
      x: input array of an inexact dtype.

    Returns:
      An array of `x`'s shape and dtype.
    """
    return lax.logistic(x)


@jit
def sparse_sigmoid(x: Any) -> Any:
    """Sparse sigmoid: `clip(x + 1, 0, 2) / 2`.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@jit
def silu(x: Any) -> Any:
    """SiLU (swish): `x * sigmoid(x)`.

    Args:
      x: input array of an inexact dtype.

    Returns:
      An array of `x`'s shape and dtype.
    """
    x = _arraylike("silu", x)
    return x * sigmoid(x)


swish = silu


@jit
def mish(x: Any) -> Any:
    """Mish: `x * tanh(softplus(x))`.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    x = _arraylike("mish", x)
    return x * jnp.tanh(softplus(x))


@jit
def log_sigmoid(x: Any) -> Any:
    """Log of the sigmoid, `-softplus(-x)`: finite for large negative inputs.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    x = _arraylike("log_sigmoid", x)
    return -softplus(-x)


@jit
def elu(x: Any, alpha: Any = 1.0) -> Any:
    """Exponential linear unit: x for x > 0, `alpha * expm1(x)` otherwise.

    Args:
      x: input array.
      alpha: scale of the negative part.

    Returns:
      An array of `x`'s shape.
    """
    x = _arraylike("elu", x)
    # expm1 sees only non-positive values, so the unused branch cannot overflow.
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@jit
def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> Any:
    """Leaky relu: x for x >= 0, `negative_slope * x` otherwise.

    Args:
      x: input array.
      negative_slope: slope for negative inputs.

    Returns:
      An array of `x`'s shape.
    """
    x = _arraylike("leaky_relu", x)
    return jnp.where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x: Any) -> Any:
    """Hard tanh: x clipped to [-1, 1].

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape and dtype.
    """
    x = _arraylike("hard_tanh", x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def celu(x: Any, alpha: Any = 1.0) -> Any:
    """Continuously differentiable elu: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.

    Args:
      x: input array.
      alpha: scale of the negative part.

    Returns:
      An array of `x`'s shape.
    """
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@jit
def selu(x: Any) -> Any:
    """Scaled elu with the self-normalising constants (alpha 1.6733, scale 1.0507).

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def _gelu(x: Any, approximate: bool) -> Any:
    (x,) = promote_dtypes_inexact(jnp.asarray(x))
    dtype = x.dtype
    if approximate:
        c = np.sqrt(2 / np.pi).astype(dtype)
        return x * (0.5 * (1.0 + jnp.tanh(c * (x + 0.044715 * (x**3)))))
    half = np.sqrt(0.5).astype(dtype)
    return jnp.array(0.5 * x * lax.erfc(-x * half), dtype=dtype)


_gelu_jit = jit(_gelu, static_argnums=(1,))


def gelu(x: Any, approximate: bool = True) -> Any:
    """Gaussian error linear unit.

    Args:
      x: input array.
      approximate: use the tanh approximation `x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`
        (default) instead of the exact `x/2 erfc(-x/sqrt(2))`.

    Returns:
      An array of `x`'s shape with an inexact dtype (never weakly typed).
    """
    check_arraylike("gelu", x)
    return _gelu_jit(x, bool(approximate))


def _glu(x: Any, axis: int) -> Any:
    x = _arraylike("glu", x)
    size = x.shape[axis]
    assert size % 2 == 0, "axis size must be divisible by 2"
    first, second = jnp.split(x, 2, axis)
    return first * sigmoid(second)


_glu_jit = jit(_glu, static_argnums=(1,))


def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: splits `x` in two halves along `axis`, returns `a * sigmoid(b)`.

    Args:
      x: input array; its size along `axis` must be even.
      axis: the axis to split.

    Returns:
      An array with half of `x`'s size along `axis`.
    """
    return _glu_jit(x, axis)


@jit
def hard_sigmoid(x: Any) -> Any:
    """Hard sigmoid: `relu6(x + 3) / 6`.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    return relu6(x + 3.0) / 6.0


@jit
def hard_silu(x: Any) -> Any:
    """Hard SiLU (hard swish): `x * hard_sigmoid(x)`.

    Args:
      x: input array.

    Returns:
      An array of `x`'s shape.
    """
    x = _arraylike("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def _log1mexp(x: Any) -> Any:
    x = _arraylike("log1mexp", x)
    # log(1 - exp(-x)): expm1 is accurate for small x, log1p for large x (Maechler's switch).
    return jnp.where(x < np.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp = custom_jvp(jit(_log1mexp))
log1mexp.__doc__ = """`log(1 - exp(-x))`, accurate for small and large positive `x`.

Args:
  x: input array (positive values give finite results).

Returns:
  An array of `x`'s shape; its derivative is `1 / expm1(x)`.
"""
log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


tanh = jnp.tanh
