"""The Pareto distribution: pdf, cdf, sf, their logs and ppf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args


def _standard(name, x, b, loc, scale):
    x, b, loc, scale = inexact_args(name, x, b, loc, scale)
    return x, b, loc, scale, (x - loc) / scale


def logpdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Pareto density `b / (scale y^(b+1))` for y = (x - loc)/scale >= 1.

    Args:
      x: points.
      b: shape parameter.
      loc: location.
      scale: scale.

    Returns:
      The log-density (-inf below loc + scale), as `scipy.stats.pareto.logpdf`.
    """
    x, b, loc, scale, y = _standard("pareto.logpdf", x, b, loc, scale)
    log_probs = -(jnp.log(scale / b) + (b + 1) * jnp.log(y))
    return jnp.where(x < loc + scale, const(x, -np.inf), log_probs)


def pdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Pareto density, as `scipy.stats.pareto.pdf`.

    Args:
      x: points.
      b: shape parameter.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Pareto cdf `1 - y^-b` (0 below loc + scale), as `scipy.stats.pareto.cdf`.

    Args:
      x: points.
      b: shape parameter.
      loc: location.
      scale: scale.

    Returns:
      The cdf.
    """
    x, b, loc, scale, y = _standard("pareto.cdf", x, b, loc, scale)
    return jnp.where(x < loc + scale, const(x, 0), 1 - y ** (-b))


def logcdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Pareto cdf, `log1p(-y^-b)`, as `scipy.stats.pareto.logcdf`.

    Args:
      x: points.
      b: shape parameter.
      loc: location.
      scale: scale.

    Returns:
      `log(cdf)`.
    """
    x, b, loc, scale, y = _standard("pareto.logcdf", x, b, loc, scale)
    return jnp.where(x < loc + scale, const(x, -np.inf), jnp.log1p(-(y ** (-b))))


def logsf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Pareto survival function, `-b log y`, as `scipy.stats.pareto.logsf`.

    Args:
      x: points.
      b: shape parameter.
      loc: location.
      scale: scale.

    Returns:
      `log(sf)` (0 below loc + scale).
    """
    x, b, loc, scale, y = _standard("pareto.logsf", x, b, loc, scale)
    return jnp.where(x < loc + scale, const(x, 0), -(b * jnp.log(y)))


def sf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Pareto survival function, as `scipy.stats.pareto.sf`.

    Args:
      x: points.
      b: shape parameter.
      loc: location.
      scale: scale.

    Returns:
      `1 - cdf`.
    """
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Pareto quantile function `loc + scale (1 - q)^(-1/b)`, as `scipy.stats.pareto.ppf`.

    Args:
      q: probabilities in [0, 1] (NaN outside).
      b: shape parameter.
      loc: location.
      scale: scale.

    Returns:
      The quantiles.
    """
    q, b, loc, scale = inexact_args("pareto.ppf", q, b, loc, scale)
    value = loc + scale * (1 - q) ** (-1 / b)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), const(q, np.nan), value)
