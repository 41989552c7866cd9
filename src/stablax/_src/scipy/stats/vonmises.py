"""The von Mises distribution on the circle: pdf and logpdf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import const, inexact_args


def logpdf(x: Any, kappa: Any) -> Any:
    """Log of the von Mises density `exp(kappa cos x) / (2 pi I0(kappa))`, computed with the
    scaled Bessel function so large kappa does not overflow.

    Args:
      x: angles.
      kappa: positive concentration (NaN otherwise).

    Returns:
      The log-density, as `scipy.stats.vonmises.logpdf`.
    """
    x, kappa = inexact_args("vonmises.logpdf", x, kappa)
    value = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return jnp.where(kappa > 0, value, const(x, np.nan))


def pdf(x: Any, kappa: Any) -> Any:
    """The von Mises density, as `scipy.stats.vonmises.pdf`.

    Args:
      x: angles.
      kappa: positive concentration.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, kappa))
