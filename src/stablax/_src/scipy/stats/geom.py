"""The geometric distribution on {1, 2, ...}: pmf and logpmf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlog1py


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """Log of the geometric pmf `(1 - p)^(k - 1) p`.

    Args:
      k: numbers of trials up to the first success.
      p: success probability.
      loc: shift of the support.

    Returns:
      The log-probabilities (-inf for k - loc <= 0), as `scipy.stats.geom.logpmf`.
    """
    k, p, loc = inexact_args("geom.logpmf", k, p, loc)
    x = k - loc
    log_probs = xlog1py(x - 1, -p) + jnp.log(p)
    return jnp.where(x <= 0, const(k, -np.inf), log_probs)


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """The geometric pmf, as `scipy.stats.geom.pmf`.

    Args:
      k: numbers of trials.
      p: success probability.
      loc: shift of the support.

    Returns:
      The probabilities.
    """
    return jnp.exp(logpmf(k, p, loc))
