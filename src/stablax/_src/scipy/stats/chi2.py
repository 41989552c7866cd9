"""The chi-squared distribution: pdf, cdf, sf and their logs."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import const, inexact_args


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the chi-squared density with `df` degrees of freedom.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      The log-density (-inf below loc), as `scipy.stats.chi2.logpdf`.
    """
    x, df, loc, scale = inexact_args("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    half_df = df / 2
    kernel = (half_df - 1) * jnp.log(y) - y / 2
    normalizer = -(lax.lgamma(half_df) + np.log(2) * df / 2)
    return jnp.where(x < loc, const(x, -np.inf), normalizer - jnp.log(scale) + kernel)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The chi-squared density, as `scipy.stats.chi2.pdf`.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, df, loc, scale))


def _half_point(x, loc, scale):
    return jnp.clip((x - loc) / (scale * 2), 0, np.inf)


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The chi-squared cdf `P(df/2, y/2)`, as `scipy.stats.chi2.cdf`.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      The cdf.
    """
    x, df, loc, scale = inexact_args("chi2.cdf", x, df, loc, scale)
    return lax.igamma(df / 2, _half_point(x, loc, scale))


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the chi-squared cdf, as `scipy.stats.chi2.logcdf`.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      `log(cdf)`.
    """
    return jnp.log(cdf(x, df, loc, scale))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The chi-squared survival function `Q(df/2, y/2)`, as `scipy.stats.chi2.sf`.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      `1 - cdf`.
    """
    x, df, loc, scale = inexact_args("chi2.sf", x, df, loc, scale)
    return lax.igammac(df / 2, _half_point(x, loc, scale))


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the chi-squared survival function, as `scipy.stats.chi2.logsf`.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      `log(sf)`.
    """
    return jnp.log(sf(x, df, loc, scale))
