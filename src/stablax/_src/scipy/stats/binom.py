"""The binomial distribution: pmf and logpmf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlog1py, xlogy


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """Log of the binomial pmf `C(n, k) p^k (1 - p)^(n - k)`.

    Args:
      k: numbers of successes.
      n: numbers of trials.
      p: success probability.
      loc: shift of the support.

    Returns:
      The log-probabilities (-inf outside [loc, loc + n]), as `scipy.stats.binom.logpmf`.
    """
    k, n, p, loc = inexact_args("binom.logpmf", k, n, p, loc)
    y = k - loc
    log_comb = lax.lgamma(n + 1) - (lax.lgamma(y + 1) + lax.lgamma(n - y + 1))
    log_linear = xlogy(y, p) + xlog1py(n - y, -p)
    log_probs = log_comb + log_linear
    certain = ((y == 0) & (n == 0)) | (log_linear == 0)
    log_probs = jnp.where(certain, const(k, 0), log_probs)
    return jnp.where((k >= loc) & (k < loc + n + 1), log_probs, const(k, -np.inf))


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """The binomial pmf, `exp(logpmf)`.

    Args:
      k: numbers of successes.
      n: numbers of trials.
      p: success probability.
      loc: shift of the support.

    Returns:
      The probabilities, as `scipy.stats.binom.pmf`.
    """
    return jnp.exp(logpmf(k, n, p, loc))
