"""The Laplace (double exponential) distribution: pdf, logpdf and cdf."""

from __future__ import annotations

from typing import Any

from stablax import numpy as jnp
from stablax._src.scipy.args import inexact_args


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Laplace density `exp(-|x - loc|/scale) / (2 scale)`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The log-density, as `scipy.stats.laplace.logpdf`.
    """
    x, loc, scale = inexact_args("laplace.logpdf", x, loc, scale)
    return -(jnp.abs(x - loc) / scale + jnp.log(2 * scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Laplace density, as `scipy.stats.laplace.pdf`.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Laplace cdf: `exp(z)/2` for z <= 0, `1 - exp(-z)/2` above.

    Args:
      x: points.
      loc: location.
      scale: scale.

    Returns:
      The cdf, as `scipy.stats.laplace.cdf`.
    """
    x, loc, scale = inexact_args("laplace.cdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(z <= 0, 0.5 * jnp.exp(z), 1 - 0.5 * jnp.exp(-z))
