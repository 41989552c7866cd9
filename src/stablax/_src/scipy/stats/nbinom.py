"""The negative binomial distribution: pmf and logpmf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlogy


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """Log of the negative binomial pmf `Gamma(k + n) / (Gamma(n) k!) p^n (1 - p)^k`.

    Args:
      k: numbers of failures.
      n: number of successes.
      p: success probability.
      loc: shift of the support.

    Returns:
      The log-probabilities (-inf below loc), as `scipy.stats.nbinom.logpmf`.
    """
    k, n, p, loc = inexact_args("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    log_comb = lax.lgamma(y + n) - lax.lgamma(n) - lax.lgamma(y + 1)
    log_probs = log_comb + xlogy(n, p) + xlogy(y, 1 - p)
    return jnp.where(k < loc, const(k, -np.inf), log_probs)


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """The negative binomial pmf, as `scipy.stats.nbinom.pmf`.

    Args:
      k: numbers of failures.
      n: number of successes.
      p: success probability.
      loc: shift of the support.

    Returns:
      The probabilities.
    """
    return jnp.exp(logpmf(k, n, p, loc))
