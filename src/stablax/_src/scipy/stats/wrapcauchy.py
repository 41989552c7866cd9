"""The wrapped Cauchy distribution on [0, 2 pi]: pdf and logpdf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args


def logpdf(x: Any, c: Any) -> Any:
    """Log of the wrapped Cauchy density `(1 - c^2) / (2 pi (1 + c^2 - 2 c cos x))`.

    Args:
      x: angles in [0, 2 pi] (-inf outside).
      c: shape parameter in (0, 1) (NaN outside).

    Returns:
      The log-density, as `scipy.stats.wrapcauchy.logpdf`.
    """
    x, c = inexact_args("wrapcauchy.logpdf", x, c)
    value = jnp.log(1 - c * c) - np.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    value = jnp.where((x >= 0) & (x <= 2 * np.pi), value, const(x, -np.inf))
    return jnp.where((c > 0) & (c < 1), value, const(x, np.nan))


def pdf(x: Any, c: Any) -> Any:
    """The wrapped Cauchy density, as `scipy.stats.wrapcauchy.pdf`.

    Args:
      x: angles.
      c: shape parameter.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, c))
