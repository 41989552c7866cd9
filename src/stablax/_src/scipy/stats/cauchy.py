"""The Cauchy distribution: pdf, cdf, sf, their logs, ppf and isf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import inexact_args


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Cauchy density `1 / (pi scale (1 + z^2))`, z = (x - loc) / scale.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The log-density, as `scipy.stats.cauchy.logpdf`.
    """
    x, loc, scale = inexact_args("cauchy.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return -(jnp.log(np.pi * scale) + jnp.log1p(z * z))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy density (`exp(logpdf)`), as `scipy.stats.cauchy.pdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy cdf `1/2 + arctan(z) / pi`, as `scipy.stats.cauchy.cdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The cdf.
    """
    x, loc, scale = inexact_args("cauchy.cdf", x, loc, scale)
    return 0.5 + jnp.arctan((x - loc) / scale) / np.pi


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Cauchy cdf, as `scipy.stats.cauchy.logcdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      `log(cdf)`.
    """
    return jnp.log(cdf(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy survival function (the cdf reflected), as `scipy.stats.cauchy.sf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      `1 - cdf`.
    """
    x, loc, scale = inexact_args("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Cauchy survival function, as `scipy.stats.cauchy.logsf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      `log(sf)`.
    """
    x, loc, scale = inexact_args("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy quantile function `loc + scale tan(pi (q - 1/2))`, as
    `scipy.stats.cauchy.ppf`.

    Args:
      q: probabilities.
      loc: location.
      scale: scale.

    Returns:
      The quantiles.
    """
    q, loc, scale = inexact_args("cauchy.ppf", q, loc, scale)
    return jnp.tan(np.pi * q - np.pi / 2) * scale + loc


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy inverse survival function `loc + scale tan(pi (1/2 - q))`, as
    `scipy.stats.cauchy.isf`.

    Args:
      q: probabilities.
      loc: location.
      scale: scale.

    Returns:
      The quantiles of the upper tail.
    """
    q, loc, scale = inexact_args("cauchy.isf", q, loc, scale)
    return jnp.tan(np.pi / 2 - np.pi * q) * scale + loc
