"""The log-sum-exp family: logsumexp (with `b`, `return_sign`, `where`), logmeanexp, softmax and
log_softmax, each shifted by the maximum so large inputs neither overflow nor lose precision.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.arraylike import check_arraylike
from stablax._src.config import config
from stablax._src.interpreters.ad import stop_gradient
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.numpy._promotion import promote_args_inexact


def _static_axis(axis: Any) -> Any:
    """An axis argument as a hashable value: None, an int or a tuple of ints."""
    if axis is None or isinstance(axis, (int, np.integer)):
        return None if axis is None else operator.index(axis)
    return tuple(operator.index(a) for a in axis)


def _reduction_dims(name: str, ndim: int, axis: Any) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else axis
    dims = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of bounds for array of dimension {ndim}")
        dims.append(a % ndim)
    if len(set(dims)) != len(dims):
        raise ValueError(f"{name}: duplicate value in 'axis': {axis}")
    return tuple(sorted(dims))


def _logsumexp(a, axis, b, keepdims, return_sign, where):
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    dims = _reduction_dims("logsumexp", a.ndim, axis)
    complex_input = dtypes.issubdtype(a.dtype, np.complexfloating)
    # The shift is the finite maximum (0 when every entry is -inf or one is +inf): a constant
    # for differentiation, as the result does not depend on it.
    amax = jnp.max(jnp.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_kept = amax if keepdims else lax.expand_dims(amax, dims)
    exp_a = jnp.exp(a - amax_kept.astype(a.dtype))
    if b is not None:
        exp_a = exp_a * b
    sumexp = jnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not complex_input:
        sumexp = jnp.abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not complex_input:
        out = jnp.where(sign < 0, np.array(np.nan, out.dtype), out)
    return out


_logsumexp_jit = jit(_logsumexp, static_argnums=(1, 3, 4))


def logsumexp(
    a: Any,
    axis: Any = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """`log(sum(b * exp(a)))` along `axis`, computed stably.

    Args:
      a: input array.
      axis: axis or axes to reduce (None: all).
      b: optional scaling factors broadcast against `a`; entries with `b == 0` are ignored even
        where `a` is infinite.
      keepdims: keep the reduced axes with size 1.
      return_sign: also return the sign of the sum; the first result is then `log(|sum|)`.
      where: optional boolean mask of the entries to include.

    Returns:
      The reduced array, or `(log_abs_sum, sign)` when `return_sign`. Without `return_sign`, a
      negative sum gives NaN. Implements `scipy.special.logsumexp`.
    """
    check_arraylike("logsumexp", a)
    return _logsumexp_jit(a, _static_axis(axis), b, bool(keepdims), bool(return_sign), where)


def _count(x, dims, where, keepdims, dtype):
    if where is None:
        size = int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
        shape = tuple(
            1 if i in dims else n for i, n in enumerate(x.shape) if keepdims or i not in dims
        )
        return jnp.full(shape, size, dtype=dtype)
    mask = jnp.broadcast_to(jnp.asarray(where), x.shape)
    return jnp.sum(mask, axis=dims, keepdims=keepdims, dtype=dtype)


def _logmeanexp(x, axis, where, keepdims):
    lse = _logsumexp(x, axis, None, keepdims, False, where)
    dims = _reduction_dims("logmeanexp", jnp.ndim(x), axis)
    return lse - jnp.log(_count(jnp.asarray(x), dims, where, keepdims, lse.dtype))


_logmeanexp_jit = jit(_logmeanexp, static_argnums=(1, 3))


def logmeanexp(x: Any, axis: Any = None, where: Any = None, keepdims: bool = False) -> Any:
    """`log(mean(exp(x)))` along `axis`: logsumexp minus the log of the number of entries.

    Args:
      x: input array.
      axis: axis or axes to reduce (None: all).
      where: optional boolean mask; only the selected entries are averaged.
      keepdims: keep the reduced axes with size 1.

    Returns:
      The reduced array.
    """
    check_arraylike("logmeanexp", x)
    return _logmeanexp_jit(x, _static_axis(axis), where, bool(keepdims))


def _log_softmax(x, axis, where):
    x = jnp.asarray(x)
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - stop_gradient(x_max)
    shifted_lse = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_lse
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


_log_softmax_jit = jit(_log_softmax, static_argnums=(1,))


def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """Log of the softmax: `x - logsumexp(x, axis, keepdims=True)`, shifted by the maximum.

    Args:
      x: input array.
      axis: axis or axes over which to normalise.
      where: optional boolean mask; masked-out entries give `-inf`.

    Returns:
      An array of `x`'s shape.
    """
    check_arraylike("log_softmax", x)
    return _log_softmax_jit(x, _static_axis(axis), where)


def _softmax_shifted(x, axis, where, initial, shift):
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - shift(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


def _softmax_custom(x, axis, where, initial):
    return _softmax_shifted(x, axis, where, initial, lambda m: m)


_softmax_custom_jvp = custom_jvp(_softmax_custom, nondiff_argnums=(1,))


@_softmax_custom_jvp.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x, where, initial), (x_dot, _, _) = primals, tangents
    y = _softmax_custom_jvp(x, axis, where, initial)
    return y, y * (x_dot - jnp.sum(y * x_dot, axis, where=where, keepdims=True))


def _softmax(x, axis, where, custom):
    x = jnp.asarray(x)
    if custom:
        return _softmax_custom_jvp(x, axis, where, -np.inf)
    return _softmax_shifted(x, axis, where, -np.inf, stop_gradient)


_softmax_jit = jit(_softmax, static_argnums=(1, 3))


def softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """Softmax: `exp(x) / sum(exp(x), axis, keepdims=True)`, shifted by the maximum.

    With `jax_softmax_custom_jvp` on, the derivative is JAX's custom rule
    `y * (dx - sum(y * dx))`; by default (as in JAX 0.10.2) it is the derivative of the formula
    with the shift held constant.

    Args:
      x: input array.
      axis: axis or axes over which to normalise.
      where: optional boolean mask; masked-out entries give 0.

    Returns:
      An array of `x`'s shape whose entries along `axis` sum to 1.
    """
    check_arraylike("softmax", x)
    return _softmax_jit(x, _static_axis(axis), where, bool(config.jax_softmax_custom_jvp))
