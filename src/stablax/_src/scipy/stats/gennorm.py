"""The generalised normal distribution `beta / (2 Gamma(1/beta)) exp(-|x|^beta)`."""

from __future__ import annotations

from typing import Any

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import inexact_args


def logpdf(x: Any, beta: Any) -> Any:
    """Log of the generalised normal density.

    Args:
      x: points.
      beta: shape parameter (2: normal with variance 1/2, 1: Laplace).

    Returns:
      The log-density, as `scipy.stats.gennorm.logpdf`.
    """
    x, beta = inexact_args("gennorm.logpdf", x, beta)
    return jnp.log(0.5 * beta) - lax.lgamma(1 / beta) - jnp.abs(x) ** beta


def pdf(x: Any, beta: Any) -> Any:
    """The generalised normal density, as `scipy.stats.gennorm.pdf`.

    Args:
      x: points.
      beta: shape parameter.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, beta))


def cdf(x: Any, beta: Any) -> Any:
    """The generalised normal cdf `(1 + sign(x) P(1/beta, |x|^beta)) / 2`, as
    `scipy.stats.gennorm.cdf`.

    Args:
      x: points.
      beta: shape parameter.

    Returns:
      The cdf.
    """
    x, beta = inexact_args("gennorm.cdf", x, beta)
    return 0.5 * (1 + jnp.sign(x) * lax.igamma(1 / beta, jnp.abs(x) ** beta))
