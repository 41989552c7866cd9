"""Student's t distribution: pdf and logpdf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import inexact_args


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of Student's t density with `df` degrees of freedom.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      The log-density, as `scipy.stats.t.logpdf`.
    """
    x, df, loc, scale = inexact_args("t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    half_df = df / 2
    half_df_plus = half_df + 0.5
    normalizer = lax.lgamma(half_df) + jnp.log(scale * scale * np.pi * df) / 2
    normalizer = normalizer - lax.lgamma(half_df_plus)
    return -(normalizer + half_df_plus * jnp.log1p(z * z / df))


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Student's t density, as `scipy.stats.t.pdf`.

    Args:
      x: points.
      df: degrees of freedom.
      loc: location.
      scale: scale.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, df, loc, scale))
