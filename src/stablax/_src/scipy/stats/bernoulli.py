"""The Bernoulli distribution: pmf, logpmf, cdf and ppf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.scipy.args import const, inexact_args
from stablax._src.scipy.special.logarithmic import xlog1py, xlogy


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """Log of the Bernoulli pmf: `log p` at k = 1, `log(1 - p)` at k = 0, -inf elsewhere.

    Args:
      k: outcomes.
      p: success probability.
      loc: shift of the support.

    Returns:
      The log-probabilities, as `scipy.stats.bernoulli.logpmf`.
    """
    k, p, loc = inexact_args("bernoulli.logpmf", k, p, loc)
    x = k - loc
    log_probs = xlogy(x, p) + xlog1py(1 - x, -p)
    return jnp.where((x < 0) | (x > 1), const(k, -np.inf), log_probs)


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """The Bernoulli pmf, `exp(logpmf)`.

    Args:
      k: outcomes.
      p: success probability.
      loc: shift of the support.

    Returns:
      The probabilities, as `scipy.stats.bernoulli.pmf`.
    """
    return jnp.exp(logpmf(k, p, loc))


def cdf(k: Any, p: Any) -> Any:
    """The Bernoulli cdf: 0 below 0, `1 - p` on [0, 1), 1 from 1 on (NaN for invalid p).

    Args:
      k: points.
      p: success probability.

    Returns:
      The cdf, as `scipy.stats.bernoulli.cdf`.
    """
    k, p = inexact_args("bernoulli.cdf", k, p)
    invalid = jnp.isnan(k) | jnp.isnan(p) | (p < 0) | (p > 1)
    value = jnp.where(k < 0, const(k, 0), jnp.where(k < 1, 1 - p, const(k, 1)))
    return jnp.where(invalid, const(k, np.nan), value)


def ppf(q: Any, p: Any) -> Any:
    """The Bernoulli quantile function: 0 for `q <= 1 - p`, else 1.

    Args:
      q: probabilities.
      p: success probability.

    Returns:
      The quantiles, as `scipy.stats.bernoulli.ppf`.
    """
    q, p = inexact_args("bernoulli.ppf", q, p)
    invalid = jnp.isnan(q) | jnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1)
    return jnp.where(invalid, const(q, np.nan), jnp.where(q <= 1 - p, const(q, 0), const(q, 1)))
