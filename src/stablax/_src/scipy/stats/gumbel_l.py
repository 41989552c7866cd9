"""The left-skewed Gumbel distribution (minimum extreme value): pdf, cdf, sf, logs, ppf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlog1py, xlogy


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the density `exp(z - e^z) / scale`, z = (x - loc) / scale.

    Args:
      x: points.
      loc: location.
      scale: positive scale (NaN otherwise).

    Returns:
      The log-density, as `scipy.stats.gumbel_l.logpdf`.
    """
    x, loc, scale = inexact_args("gumbel_l.logpdf", x, loc, scale)
    z = (x - loc) / scale
    value = xlogy(-1, scale) + (z - jnp.exp(z))
    return jnp.where(scale > 0, value, const(x, np.nan))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density, as `scipy.stats.gumbel_l.pdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the cdf `1 - exp(-e^z)`, computed as `log(-expm1(-e^z))`.

    Args:
      x: points.
      loc: location.
      scale: positive scale.

    Returns:
      `log(cdf)`, as `scipy.stats.gumbel_l.logcdf`.
    """
    x, loc, scale = inexact_args("gumbel_l.logcdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, jnp.log(-jnp.expm1(-jnp.exp(z))), const(x, np.nan))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The cdf, as `scipy.stats.gumbel_l.cdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The cdf.
    """
    return jnp.exp(logcdf(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function, `-e^z`, as `scipy.stats.gumbel_l.logsf`.

    Args:
      x: points.
      loc: location.
      scale: positive scale.

    Returns:
      `log(sf)`.
    """
    x, loc, scale = inexact_args("gumbel_l.logsf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(scale > 0, -jnp.exp(z), const(x, np.nan))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function, as `scipy.stats.gumbel_l.sf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      `1 - cdf`.
    """
    return jnp.exp(logsf(x, loc, scale))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function `loc + scale log(-log1p(-p))`, as `scipy.stats.gumbel_l.ppf`.

    Args:
      p: probabilities in (0, 1) (NaN elsewhere).
      loc: location.
      scale: scale.

    Returns:
      The quantiles.
    """
    p, loc, scale = inexact_args("gumbel_l.ppf", p, loc, scale)
    quantile = loc + scale * jnp.log(xlog1py(-1, -p))
    return jnp.where((p > 0) & (p < 1), quantile, const(p, np.nan))
