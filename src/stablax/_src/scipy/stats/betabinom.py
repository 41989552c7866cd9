"""The beta-binomial distribution: pmf and logpmf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.jit import jit
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.gamma_functions import _betaln


@jit
def _logpmf(k, n, a, b, loc):
    y = jnp.floor(k) - loc
    log_comb = -(jnp.log1p(n) + _betaln(n - y + 1, y + 1))
    log_probs = log_comb + _betaln(y + a, n - y + b) - _betaln(a, b)
    log_probs = jnp.where((y == 0) & (n == 0), const(k, 0), log_probs)
    outside = (y < -loc) | (y > n) | (y + a <= 0)
    log_probs = jnp.where(outside, const(k, -np.inf), log_probs)
    return jnp.where((n < 0) | (a <= 0) | (b <= 0), const(k, np.nan), log_probs)


def logpmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """Log of the beta-binomial pmf `C(n, k) B(k + a, n - k + b) / B(a, b)`.

    Args:
      k: outcomes (floored).
      n: number of trials.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: shift of the support.

    Returns:
      The log-probabilities, as `scipy.stats.betabinom.logpmf`.
    """
    return _logpmf(*inexact_args("betabinom.logpmf", k, n, a, b, loc))


def pmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """The beta-binomial pmf, `exp(logpmf)`.

    Args:
      k: outcomes (floored).
      n: number of trials.
      a: positive shape parameter.
      b: positive shape parameter.
      loc: shift of the support.

    Returns:
      The probabilities, as `scipy.stats.betabinom.pmf`.
    """
    return jnp.exp(logpmf(k, n, a, b, loc))
