"""The beta distribution on [loc, loc + scale]: pdf, cdf, sf and their logs."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.gamma_functions import _betaln
from stablax._src.scipy.special.incomplete import _betainc
from stablax._src.scipy.special.logarithmic import xlog1py, xlogy


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the beta density `y^(a-1) (1-y)^(b-1) / B(a, b) / scale`, y = (x - loc) / scale.

    Args:
      x: points.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: left end of the support.
      scale: width of the support.

    Returns:
      The log-density (-inf outside the support, NaN for invalid parameters), as
      `scipy.stats.beta.logpdf`.
    """
    x, a, b, loc, scale = inexact_args("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    log_probs = -_betaln(a, b) + xlogy(a - 1, y) + xlog1py(b - 1, -y) - jnp.log(scale)
    outside = (x > loc + scale) | (x < loc)
    result = jnp.where(outside, const(x, -np.inf), log_probs)
    return jnp.where((a <= 0) | (b <= 0) | (scale <= 0), const(x, np.nan), result)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The beta density, `exp(logpdf)`.

    Args:
      x: points.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: left end of the support.
      scale: width of the support.

    Returns:
      The density, as `scipy.stats.beta.pdf`.
    """
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The beta cdf, the regularised incomplete beta function of the clipped standard point.

    Args:
      x: points.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: left end of the support.
      scale: width of the support.

    Returns:
      The cdf, as `scipy.stats.beta.cdf`.
    """
    x, a, b, loc, scale = inexact_args("beta.cdf", x, a, b, loc, scale)
    return _betainc(a, b, jnp.clip((x - loc) / scale, 0, 1))


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the beta cdf.

    Args:
      x: points.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: left end of the support.
      scale: width of the support.

    Returns:
      `log(cdf)`, as `scipy.stats.beta.logcdf`.
    """
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The beta survival function `I_{1-y}(b, a)`.

    Args:
      x: points.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: left end of the support.
      scale: width of the support.

    Returns:
      `1 - cdf`, as `scipy.stats.beta.sf`.
    """
    x, a, b, loc, scale = inexact_args("beta.sf", x, a, b, loc, scale)
    return _betainc(b, a, 1 - jnp.clip((x - loc) / scale, 0, 1))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the beta survival function.

    Args:
      x: points.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: left end of the support.
      scale: width of the support.

    Returns:
      `log(sf)`, as `scipy.stats.beta.logsf`.
    """
    return jnp.log(sf(x, a, b, loc, scale))
