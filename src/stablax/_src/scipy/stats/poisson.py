"""The Poisson distribution: pmf, logpmf, cdf and entropy."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.arraylike import check_arraylike
from stablax._src.jit import jit
from stablax._src.scipy.args import const, inexact_args, inexact_dtypes
from stablax._src.scipy.special.logarithmic import entr, xlogy


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """Log of the Poisson pmf `mu^k e^-mu / k!` (-inf for negative or non-integer k).

    Args:
      k: counts.
      mu: rate.
      loc: shift of the support.

    Returns:
      The log-probabilities, as `scipy.stats.poisson.logpmf`.
    """
    k, mu, loc = inexact_args("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_probs = xlogy(x, mu) - lax.lgamma(x + 1) - mu
    return jnp.where((x < 0) | (jnp.round(k) != k), const(k, -np.inf), log_probs)


def pmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """The Poisson pmf, as `scipy.stats.poisson.pmf`.

    Args:
      k: counts.
      mu: rate.
      loc: shift of the support.

    Returns:
      The probabilities.
    """
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """The Poisson cdf `Q(floor(k - loc) + 1, mu)`, as `scipy.stats.poisson.cdf`.

    Args:
      k: counts.
      mu: rate.
      loc: shift of the support.

    Returns:
      The cdf (0 below loc).
    """
    k, mu, loc = inexact_args("poisson.cdf", k, mu, loc)
    x = k - loc
    return jnp.where(x < 0, const(k, 0), lax.igammac(jnp.floor(1 + x), mu))


def _entropy_by_sum(mu, terms, upper):
    # -sum_k p_k log p_k over k < min(terms, upper(mu)): where the mass lies, at any mu in range.
    k = jnp.arange(terms, dtype=mu.dtype)[:, None]
    probs = pmf(k, mu, 0)
    probs = jnp.where(k < jnp.ceil(upper(mu))[None, :], probs, const(probs, 0))
    return jnp.sum(entr(probs), axis=0)


@jit
def _entropy(mu):
    small = _entropy_by_sum(mu, 35, lambda m: m + 20)
    medium = _entropy_by_sum(mu, 250, lambda m: m + 10 * jnp.sqrt(m) + 20)
    large = 0.5 * jnp.log(2 * np.pi * np.e * mu) - 1.0 / (12 * mu)
    value = jnp.where(mu < 10, small, jnp.where(mu < 100, medium, large))
    return jnp.where(mu == 0, jnp.zeros_like(mu), value)


def entropy(mu: Any, loc: Any = 0) -> Any:
    """The entropy of the Poisson distribution (a sum below mu = 100, Stirling above).

    Args:
      mu: rate.
      loc: shift of the support (does not change the entropy).

    Returns:
      The entropy, broadcast over `mu` and `loc`, as `scipy.stats.poisson.entropy`.
    """
    check_arraylike("poisson.entropy", mu, loc)
    mu, loc = inexact_dtypes("poisson.entropy", mu, loc)
    shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    flat = _entropy(jnp.ravel(mu))
    return jnp.broadcast_to(jnp.reshape(flat, mu.shape), shape)
