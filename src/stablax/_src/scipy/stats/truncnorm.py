"""The truncated normal distribution on [a, b] (in standard units): pdf, cdf, sf and logs."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.jit import jit
from stablax._src.nn.softmax import logsumexp
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.error_functions import log_ndtr, ndtr
from stablax._src.scipy.stats import norm


def _log_diff(x, y):
    # log(exp(x) - exp(y)) for x >= y.
    return logsumexp(jnp.stack([x, y]), b=jnp.stack([jnp.ones_like(x), -jnp.ones_like(y)]), axis=0)


def _log_gauss_mass(a, b):
    """log(Phi(b) - Phi(a)), from whichever tail keeps the digits."""
    a, b = jnp.broadcast_arrays(a, b)
    left = b <= 0
    right = a > 0
    central = ~(left | right)
    # Both in the right tail: use the mirrored left tail.
    a_tail = jnp.where(right, -b, a)
    b_tail = jnp.where(right, -a, b)
    tail = _log_diff(log_ndtr(b_tail), log_ndtr(a_tail))
    middle = jnp.log1p(-ndtr(a) - ndtr(-b))
    return jnp.where(central, middle, tail)


@jit
def _logpdf(x, a, b, loc, scale):
    value = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    z = (x - loc) / scale
    value = jnp.where((z < a) | (z > b), const(x, -np.inf), value)
    return jnp.where(a >= b, const(x, np.nan), value)


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the truncated normal density.

    Args:
      x: points.
      a: lower bound, in standard units `(bound - loc) / scale`.
      b: upper bound, in standard units.
      loc: mean of the untruncated normal.
      scale: standard deviation of the untruncated normal.

    Returns:
      The log-density (-inf outside [a, b], NaN if a >= b), as `scipy.stats.truncnorm.logpdf`.
    """
    return _logpdf(*inexact_args("truncnorm.logpdf", x, a, b, loc, scale))


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The truncated normal density, as `scipy.stats.truncnorm.pdf`.

    Args:
      x: points.
      a: lower bound (standard units).
      b: upper bound (standard units).
      loc: mean of the untruncated normal.
      scale: standard deviation of the untruncated normal.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, a, b, loc, scale))


@jit
def _logcdf(x, a, b, loc, scale):
    z = (x - loc) / scale
    mass = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, z) - mass
    log_sf = _log_gauss_mass(z, b) - mass
    # Near 1 the complement is more accurate.
    value = jnp.where(log_cdf > -0.1, jnp.log1p(-jnp.exp(log_sf)), log_cdf)
    value = jnp.where(z <= a, const(x, -np.inf), value)
    value = jnp.where(z >= b, const(x, 0), value)
    return jnp.where(a >= b, const(x, np.nan), value)


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the truncated normal cdf, as `scipy.stats.truncnorm.logcdf`.

    Args:
      x: points.
      a: lower bound (standard units).
      b: upper bound (standard units).
      loc: mean of the untruncated normal.
      scale: standard deviation of the untruncated normal.

    Returns:
      `log(cdf)`.
    """
    x, a, b, loc, scale = inexact_args("truncnorm.logcdf", x, a, b, loc, scale)
    return _logcdf(x, a, b, loc, scale)


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The truncated normal cdf, as `scipy.stats.truncnorm.cdf`.

    Args:
      x: points.
      a: lower bound (standard units).
      b: upper bound (standard units).
      loc: mean of the untruncated normal.
      scale: standard deviation of the untruncated normal.

    Returns:
      The cdf.
    """
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the truncated normal survival function (the mirrored logcdf), as
    `scipy.stats.truncnorm.logsf`.

    Args:
      x: points.
      a: lower bound (standard units).
      b: upper bound (standard units).
      loc: mean of the untruncated normal.
      scale: standard deviation of the untruncated normal.

    Returns:
      `log(sf)`.
    """
    x, a, b, loc, scale = inexact_args("truncnorm.logsf", x, a, b, loc, scale)
    return _logcdf(-x, -b, -a, -loc, scale)


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The truncated normal survival function, as `scipy.stats.truncnorm.sf`.

    Args:
      x: points.
      a: lower bound (standard units).
      b: upper bound (standard units).
      loc: mean of the untruncated normal.
      scale: standard deviation of the untruncated normal.

    Returns:
      `1 - cdf`.
    """
    return jnp.exp(logsf(x, a, b, loc, scale))
