"""Logarithmic helpers of scipy.special: xlogy, xlog1py, entr, rel_entr, kl_div, logit, expit,
boxcox, boxcox1p and the softmax pair, with 0 * log(0) = 0 and finite derivatives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.nn.softmax import log_softmax as _nn_log_softmax
from stablax._src.nn.softmax import softmax as _nn_softmax
from stablax._src.scipy.args import const, inexact_args, reject_complex


def _x_times(name: str, log: Any, log_argument: Any) -> Any:
    """`x * log(y)`, 0 where `x == 0` (unless `y` is NaN), as the custom-JVP function `name`;
    `log(y)` is the logarithm of `log_argument(y)`, so its derivative is `1 / log_argument(y)`."""

    def impl(x, y):
        x, y = inexact_args(name, x, y)
        return jnp.where((x != 0) | jnp.isnan(y), x * log(y), jnp.zeros_like(x))

    function = custom_jvp(impl)

    @function.defjvp
    def jvp(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        out = impl(x, y)
        return out, (dx * log(y) + dy * x / log_argument(y)).astype(out.dtype)

    return function


_xlogy = _x_times("xlogy", jnp.log, lambda y: y)
_xlog1py = _x_times("xlog1py", jnp.log1p, lambda y: 1 + y)


def xlogy(x: Any, y: Any) -> Any:
    """`x * log(y)`, 0 where `x == 0` (unless `y` is NaN).

    Args:
      x: input array.
      y: input array.

    Returns:
      `x log(y)`, as `scipy.special.xlogy`.
    """
    return _xlogy(x, y)


def xlog1py(x: Any, y: Any) -> Any:
    """`x * log1p(y)`, 0 where `x == 0` (unless `y` is NaN).

    Args:
      x: input array.
      y: input array.

    Returns:
      `x log(1 + y)`, as `scipy.special.xlog1py`.
    """
    return _xlog1py(x, y)


def _xlogx_impl(x):
    return _xlogy(x, x)


_xlogx = custom_jvp(_xlogx_impl)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _xlogx_impl(x), dx * (jnp.log(x) + 1)


def entr(x: Any) -> Any:
    """Elementwise entropy `-x log(x)` (0 at 0, -inf for negative x).

    Args:
      x: real input array.

    Returns:
      `-x log x`, as `scipy.special.entr`.
    """
    (x,) = inexact_args("entr", x)
    reject_complex("entr", x)
    return jnp.where(x < 0, const(x, -np.inf), -_xlogx(x))


def rel_entr(p: Any, q: Any) -> Any:
    """Elementwise relative entropy `p log(p / q)` (0 where p == 0 <= q, inf when undefined).

    Args:
      p: real input array.
      q: real input array.

    Returns:
      `p log(p/q)`, as `scipy.special.rel_entr`.
    """
    p, q = inexact_args("rel_entr", p, q)
    reject_complex("rel_entr", p)
    both_positive = (p > 0) & (q > 0)
    zero_p = (p == 0) & (q >= 0)
    p_safe = jnp.where(both_positive, p, const(p, 1))
    q_safe = jnp.where(both_positive, q, const(q, 1))
    value = _xlogx(p_safe) - _xlogy(p_safe, q_safe)
    return jnp.where(both_positive, value, jnp.where(zero_p, const(p, 0), const(p, np.inf)))


def kl_div(p: Any, q: Any) -> Any:
    """Elementwise Kullback-Leibler term `p log(p / q) - p + q`.

    Args:
      p: real input array.
      q: real input array.

    Returns:
      The divergence term, as `scipy.special.kl_div`.
    """
    p, q = inexact_args("kl_div", p, q)
    reject_complex("kl_div", p)
    return rel_entr(p, q) - p + q


def _logit_impl(x):
    (x,) = inexact_args("logit", x)
    return lax.log(lax.div(x, lax.sub(const(x, 1), x)))


logit = custom_jvp(_logit_impl)
logit.__doc__ = """The logit function `log(x / (1 - x))`, inverse of `expit`.

Args:
  x: input array in [0, 1].

Returns:
  `logit(x)`, as `scipy.special.logit`; its derivative is `1 / (x (1 - x))`.
"""
logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(const(x, 1), x))))


def expit(x: Any) -> Any:
    """The logistic sigmoid `1 / (1 + exp(-x))` (`lax.logistic`).

    Args:
      x: input array.

    Returns:
      `expit(x)`, as `scipy.special.expit`.
    """
    (x,) = inexact_args("expit", x)
    return lax.logistic(x)


def _boxcox(name, x, lmbda, log):
    x, lmbda = inexact_args(name, x, lmbda)
    zero = lmbda == 0
    lmbda_safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    log_x = log(x)
    return jnp.where(zero, log_x, jnp.expm1(lmbda_safe * log_x) / lmbda_safe)


def boxcox(x: Any, lmbda: Any) -> Any:
    """The Box-Cox transform `(x^lmbda - 1) / lmbda` (`log(x)` for lmbda == 0).

    Args:
      x: input array.
      lmbda: transform parameter.

    Returns:
      The transform, as `scipy.special.boxcox`.
    """
    return _boxcox("boxcox", x, lmbda, jnp.log)


def boxcox1p(x: Any, lmbda: Any) -> Any:
    """The Box-Cox transform of `1 + x`: `((1 + x)^lmbda - 1) / lmbda`.

    Args:
      x: input array.
      lmbda: transform parameter.

    Returns:
      The transform, as `scipy.special.boxcox1p`.
    """
    return _boxcox("boxcox1p", x, lmbda, jnp.log1p)


def softmax(x: Any, /, *, axis: int | tuple[int, ...] | None = None) -> Any:
    """`exp(x) / sum(exp(x))` over `axis` (all axes by default).

    Args:
      x: input array.
      axis: axis or axes to normalise over.

    Returns:
      An array of `x`'s shape, as `scipy.special.softmax`.
    """
    return _nn_softmax(x, axis=axis)


def log_softmax(x: Any, /, *, axis: int | tuple[int, ...] | None = None) -> Any:
    """`x - logsumexp(x)` over `axis` (all axes by default).

    Args:
      x: input array.
      axis: axis or axes to normalise over.

    Returns:
      An array of `x`'s shape, as `scipy.special.log_softmax`.
    """
    return _nn_log_softmax(x, axis=axis)
