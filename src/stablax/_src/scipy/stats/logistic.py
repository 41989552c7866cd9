"""The logistic distribution: pdf, logpdf, cdf, sf, ppf and isf."""

from __future__ import annotations

from typing import Any

from stablax import numpy as jnp
from stablax._src.scipy.args import inexact_args
from stablax._src.scipy.special.logarithmic import expit, logit


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the logistic density `e^-z / (scale (1 + e^-z)^2)`, as
    `-2 logaddexp(z/2, -z/2) - log(scale)` (no overflow in either tail).

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The log-density, as `scipy.stats.logistic.logpdf`.
    """
    x, loc, scale = inexact_args("logistic.logpdf", x, loc, scale)
    half_z = (x - loc) / scale / 2
    return -2 * jnp.logaddexp(half_z, -half_z) - jnp.log(scale)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic density, as `scipy.stats.logistic.pdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic cdf `expit(z)`, as `scipy.stats.logistic.cdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The cdf.
    """
    x, loc, scale = inexact_args("logistic.cdf", x, loc, scale)
    return expit((x - loc) / scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic survival function `expit(-z)`, as `scipy.stats.logistic.sf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      `1 - cdf`.
    """
    x, loc, scale = inexact_args("logistic.sf", x, loc, scale)
    return expit(-(x - loc) / scale)


def ppf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic quantile function `loc + scale logit(q)`, as `scipy.stats.logistic.ppf`.

    Args:
      x: probabilities.
      loc: location.
      scale: scale.

    Returns:
      The quantiles.
    """
    x, loc, scale = inexact_args("logistic.ppf", x, loc, scale)
    return logit(x) * scale + loc


def isf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic inverse survival function `loc - scale logit(q)`, as
    `scipy.stats.logistic.isf`.

    Args:
      x: probabilities.
      loc: location.
      scale: scale.

    Returns:
      The upper-tail quantiles.
    """
    x, loc, scale = inexact_args("logistic.isf", x, loc, scale)
    return -logit(x) * scale + loc
