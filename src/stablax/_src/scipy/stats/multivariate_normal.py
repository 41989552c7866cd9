"""The multivariate normal distribution: pdf and logpdf through a Cholesky factor."""

from __future__ import annotations

import math
from typing import Any

from stablax import numpy as jnp
from stablax._src.lax._linalg import cholesky, triangular_solve
from stablax._src.scipy.args import inexact_dtypes


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: None = None) -> Any:
    """Log of the multivariate normal density.

    Args:
      x: points, the dimension on the last axis.
      mean: mean vector (a scalar mean gives the univariate density).
      cov: covariance matrix, or a scalar variance shared by every coordinate.
      allow_singular: must be None (not supported, as in JAX).

    Returns:
      The log-density, as `scipy.stats.multivariate_normal.logpdf`.
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = inexact_dtypes("multivariate_normal.logpdf", x, mean, cov)
    log_2pi = math.log(2 * math.pi)
    if not mean.shape:
        return -0.5 * jnp.square(x - mean) / cov - 0.5 * (log_2pi + jnp.log(cov))
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return -0.5 * jnp.sum(y * y, axis=-1) / cov - n / 2 * (log_2pi + jnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    factor = cholesky(cov)
    d = x - mean
    batch = jnp.broadcast_shapes(factor.shape[:-2], d.shape[:-1])
    factor = jnp.broadcast_to(factor, batch + (n, n))
    d_rows = jnp.broadcast_to(d, batch + (n,))[..., None, :]
    # y L^T = d, i.e. y = L^-1 d: the whitened residual.
    y = triangular_solve(factor, d_rows, lower=True, transpose_a=True)[..., 0, :]
    log_det = jnp.sum(jnp.log(jnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * jnp.sum(y * y, axis=-1) - n / 2 * log_2pi - log_det


def pdf(x: Any, mean: Any, cov: Any) -> Any:
    """The multivariate normal density, as `scipy.stats.multivariate_normal.pdf`.

    Args:
      x: points.
      mean: mean vector.
      cov: covariance matrix.

    Returns:
      The density.
    """
    return jnp.exp(logpdf(x, mean, cov))
