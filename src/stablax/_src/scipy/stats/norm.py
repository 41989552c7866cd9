"""The normal distribution: pdf, cdf, sf, their logs, ppf and isf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import inexact_args
from stablax._src.scipy.special.error_functions import log_ndtr, ndtr, ndtri


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal density, `-((x - loc)^2 / scale^2 + log(2 pi scale^2)) / 2`.

    Args:
      x: points.
      loc: mean.
      scale: standard deviation.

    Returns:
      The log-density, as `scipy.stats.norm.logpdf`.
    """
    x, loc, scale = inexact_args("norm.logpdf", x, loc, scale)
    variance = scale * scale
    return (jnp.log(2 * np.pi * variance) + jnp.square(x - loc) / variance) / -2


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal density, as `scipy.stats.norm.pdf`.

    Args:
      x: points.
      loc: mean.
      scale: standard deviation.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal cdf `ndtr((x - loc) / scale)`, as `scipy.stats.norm.cdf`.

    Args:
      x: points.
      loc: mean.
      scale: standard deviation.

    Returns:
      The cdf.
    """
    x, loc, scale = inexact_args("norm.cdf", x, loc, scale)
    return ndtr((x - loc) / scale)


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal cdf (`log_ndtr`, accurate in the lower tail), as
    `scipy.stats.norm.logcdf`.

    Args:
      x: points.
      loc: mean.
      scale: standard deviation.

    Returns:
      `log(cdf)`.
    """
    x, loc, scale = inexact_args("norm.logcdf", x, loc, scale)
    return log_ndtr((x - loc) / scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal survival function (the reflected cdf), as `scipy.stats.norm.sf`.

    Args:
      x: points.
      loc: mean.
      scale: standard deviation.

    Returns:
      `1 - cdf`.
    """
    x, loc, scale = inexact_args("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal survival function, as `scipy.stats.norm.logsf`.

    Args:
      x: points.
      loc: mean.
      scale: standard deviation.

    Returns:
      `log(sf)`.
    """
    x, loc, scale = inexact_args("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal quantile function `loc + scale ndtri(q)`, as `scipy.stats.norm.ppf`.

    Args:
      q: probabilities.
      loc: mean.
      scale: standard deviation.

    Returns:
      The quantiles, in the default float dtype (as JAX).
    """
    return jnp.asarray(ndtri(q) * scale + loc, float)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal inverse survival function `ppf(1 - q)`, as `scipy.stats.norm.isf`.

    Args:
      q: probabilities.
      loc: mean.
      scale: standard deviation.

    Returns:
      The upper-tail quantiles.
    """
    return ppf(1 - jnp.asarray(q), loc, scale)
