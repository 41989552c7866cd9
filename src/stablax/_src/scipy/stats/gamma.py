"""The gamma distribution: pdf, cdf, sf and their logs."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlogy


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the gamma density `y^(a-1) e^-y / Gamma(a) / scale`, y = (x - loc) / scale.

    Args:
      x: points.
      a: shape parameter.
      loc: left end of the support.
      scale: scale.

    Returns:
      The log-density (-inf below loc), as `scipy.stats.gamma.logpdf`.
    """
    x, a, loc, scale = inexact_args("gamma.logpdf", x, a, loc, scale)
    inside = x >= loc
    y = jnp.where(inside, (x - loc) / scale, const(x, 1))
    log_probs = xlogy(a - 1, y) - y - (lax.lgamma(a) + jnp.log(scale))
    return jnp.where(inside, log_probs, const(x, -np.inf))


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The gamma density, as `scipy.stats.gamma.pdf`.

    Args:
      x: points.
      a: shape parameter.
      loc: left end of the support.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The gamma cdf `P(a, y)`, as `scipy.stats.gamma.cdf`.

    Args:
      x: points.
      a: shape parameter.
      loc: left end of the support.
      scale: scale.

    Returns:
      The cdf.
    """
    x, a, loc, scale = inexact_args("gamma.cdf", x, a, loc, scale)
    return lax.igamma(a, jnp.clip((x - loc) / scale, 0, np.inf))


def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the gamma cdf, as `scipy.stats.gamma.logcdf`.

    Args:
      x: points.
      a: shape parameter.
      loc: left end of the support.
      scale: scale.

    Returns:
      `log(cdf)`.
    """
    return jnp.log(cdf(x, a, loc, scale))


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The gamma survival function `Q(a, y)` (1 below loc), as `scipy.stats.gamma.sf`.

    Args:
      x: points.
      a: shape parameter.
      loc: left end of the support.
      scale: scale.

    Returns:
      `1 - cdf`.
    """
    x, a, loc, scale = inexact_args("gamma.sf", x, a, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, const(x, 1), lax.igammac(a, y))


def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the gamma survival function, as `scipy.stats.gamma.logsf`.

    Args:
      x: points.
      a: shape parameter.
      loc: left end of the support.
      scale: scale.

    Returns:
      `log(sf)`.
    """
    return jnp.log(sf(x, a, loc, scale))
