"""The right-skewed Gumbel distribution (maximum extreme value): pdf, cdf, sf, logs, ppf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.nn.activations import log1mexp
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlogy


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the density `exp(-z - e^-z) / scale`, z = (x - loc) / scale.

    Args:
      x: points.
      loc: location.
      scale: positive scale (NaN otherwise).

    Returns:
      The log-density, as `scipy.stats.gumbel_r.logpdf`.
    """
    x, loc, scale = inexact_args("gumbel_r.logpdf", x, loc, scale)
    z = (x - loc) / scale
    value = xlogy(-1, scale) - (z + jnp.exp(-z))
    return jnp.where(scale > 0, value, const(x, np.nan))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density, as `scipy.stats.gumbel_r.pdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the cdf `exp(-e^-z)`, i.e. `-e^-z`, as `scipy.stats.gumbel_r.logcdf`.

    Args:
      x: points.
      loc: location.
      scale: positive scale.

    Returns:
      `log(cdf)`.
    """
    x, loc, scale = inexact_args("gumbel_r.logcdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, -jnp.exp(-z), const(x, np.nan))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The cdf, as `scipy.stats.gumbel_r.cdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The cdf.
    """
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function `loc - scale log(-log p)`, as `scipy.stats.gumbel_r.ppf`.

    Args:
      p: probabilities in (0, 1) (NaN elsewhere).
      loc: location.
      scale: scale.

    Returns:
      The quantiles.
    """
    p, loc, scale = inexact_args("gumbel_r.ppf", p, loc, scale)
    quantile = loc - scale * jnp.log(xlogy(-1, p))
    return jnp.where((p > 0) & (p < 1), quantile, const(p, np.nan))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function `1 - exp(-e^-z)`, as `scipy.stats.gumbel_r.sf`.

    Args:
      x: points.
      loc: location.
      scale: positive scale.

    Returns:
      `1 - cdf`.
    """
    x, loc, scale = inexact_args("gumbel_r.sf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, 1 - jnp.exp(-jnp.exp(neg_z)), const(x, np.nan))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function, `log1mexp(e^-z)`, as `scipy.stats.gumbel_r.logsf`.

    Args:
      x: points.
      loc: location.
      scale: positive scale.

    Returns:
      `log(sf)`.
    """
    x, loc, scale = inexact_args("gumbel_r.logsf", x, loc, scale)
    neg_z = (loc - x) / scale
    return jnp.where(scale > 0, log1mexp(jnp.exp(neg_z)), const(x, np.nan))
