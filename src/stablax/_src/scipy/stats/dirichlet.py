"""The Dirichlet distribution on the simplex: pdf and logpdf."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.args import const, inexact_dtypes
from stablax._src.scipy.special.logarithmic import xlogy


def _is_simplex(x):
    total = jnp.sum(x, axis=0)
    return jnp.all(x > 0, axis=0) & (jnp.abs(total - 1) < 1e-6)


def logpdf(x: Any, alpha: Any) -> Any:
    """Log of the Dirichlet density `prod x_i^(alpha_i - 1) / B(alpha)`.

    Args:
      x: points, shape (K, ...) or (K - 1, ...) (the last coordinate is then `1 - sum`).
      alpha: concentration parameters, shape (K,).

    Returns:
      The log-density (-inf off the simplex), as `scipy.stats.dirichlet.logpdf`.
    """
    x, alpha = inexact_dtypes("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, 1 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
    normalizer = jnp.sum(lax.lgamma(alpha)) - lax.lgamma(jnp.sum(alpha))
    if x.ndim > 1:
        alpha = jnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1))
    log_probs = jnp.sum(xlogy(alpha - 1, x), axis=0) - normalizer
    return jnp.where(_is_simplex(x), log_probs, const(log_probs, -np.inf))


def pdf(x: Any, alpha: Any) -> Any:
    """The Dirichlet density, as `scipy.stats.dirichlet.pdf`.

    Args:
      x: points on the simplex.
      alpha: concentration parameters.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, alpha))
