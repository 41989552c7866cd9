"""The exponential distribution: pdf, cdf, sf, their logs and ppf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the exponential density `exp(-(x - loc)/scale) / scale`.

    Args:
      x: points.
      loc: left end of the support.
      scale: scale (the mean above loc).

    Returns:
      The log-density (-inf below loc), as `scipy.stats.expon.logpdf`.
    """
    x, loc, scale = inexact_args("expon.logpdf", x, loc, scale)
    log_probs = -((x - loc) / scale + jnp.log(scale))
    return jnp.where(x < loc, const(x, -np.inf), log_probs)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential density, as `scipy.stats.expon.pdf`.

    Args:
      x: points.
      loc: left end of the support.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential cdf `-expm1(-(x - loc)/scale)`, as `scipy.stats.expon.cdf`.

    Args:
      x: points.
      loc: left end of the support.
      scale: scale.

    Returns:
      The cdf.
    """
    x, loc, scale = inexact_args("expon.cdf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_z), -jnp.expm1(neg_z))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the exponential survival function, `-(x - loc)/scale`, as
    `scipy.stats.expon.logsf`.

    Args:
      x: points.
      loc: left end of the support.
      scale: scale.

    Returns:
      `log(sf)` (0 below loc).
    """
    x, loc, scale = inexact_args("expon.logsf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(x < loc, jnp.zeros_like(neg_z), neg_z)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential survival function, as `scipy.stats.expon.sf`.

    Args:
      x: points.
      loc: left end of the support.
      scale: scale.

    Returns:
      `1 - cdf`.
    """
    return jnp.exp(logsf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the exponential cdf, `log1p(-sf)`, as `scipy.stats.expon.logcdf`.

    Args:
      x: points.
      loc: left end of the support.
      scale: scale.

    Returns:
      `log(cdf)`.
    """
    return jnp.log1p(-sf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential quantile function `loc - scale log1p(-q)`, as
    `scipy.stats.expon.ppf`.

    Args:
      q: probabilities in [0, 1] (NaN outside).
      loc: left end of the support.
      scale: scale.

    Returns:
      The quantiles.
    """
    q, loc, scale = inexact_args("expon.ppf", q, loc, scale)
    invalid = jnp.isnan(q) | (q < 0) | (q > 1)
    return jnp.where(invalid, const(q, np.nan), loc - scale * jnp.log1p(-q))
