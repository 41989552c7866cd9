"""The uniform distribution on [loc, loc + scale]: pdf, logpdf, cdf and ppf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the uniform density, `-log(scale)` on the support.

    Args:
      x: points.
      loc: left end.
      scale: width.

    Returns:
      The log-density (-inf outside), as `scipy.stats.uniform.logpdf`.
    """
    x, loc, scale = inexact_args("uniform.logpdf", x, loc, scale)
    outside = (x > loc + scale) | (x < loc)
    return jnp.where(outside, const(x, -np.inf), -jnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The uniform density, as `scipy.stats.uniform.pdf`.

    Args:
      x: points.
      loc: left end.
      scale: width.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The uniform cdf `(x - loc) / scale` clipped to [0, 1], as `scipy.stats.uniform.cdf`.

    Args:
      x: points.
      loc: left end.
      scale: width.

    Returns:
      The cdf (0 for NaN input, as JAX).
    """
    x, loc, scale = inexact_args("uniform.cdf", x, loc, scale)
    inside = (x >= loc) & (x <= loc + scale)
    value = jnp.where(inside, (x - loc) / scale, const(x, 0))
    return jnp.where(x > loc + scale, const(x, 1), value)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The uniform quantile function `loc + scale q`, as `scipy.stats.uniform.ppf`.

    Args:
      q: probabilities in [0, 1] (NaN outside).
      loc: left end.
      scale: width.

    Returns:
      The quantiles.
    """
    q, loc, scale = inexact_args("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), const(q, np.nan), loc + scale * q)
