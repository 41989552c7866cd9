"""Gaussian kernel density estimation (`scipy.stats.gaussian_kde`), a pytree like JAX's."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax import random
from stablax._src import dtypes
from stablax._src.arraylike import check_arraylike
from stablax._src.lax._linalg import cholesky, triangular_solve
from stablax._src.nn.softmax import logsumexp
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.scipy.special.error_functions import ndtr
from stablax._src.transforms.vmap_api import vmap
from stablax._src.tree_util import register_pytree_node_class

_FIELDS = ("neff", "dataset", "weights", "covariance", "inv_cov")


def _cho_solve(factor, b):
    # (L L^T)^-1 b with two triangular solves.
    y = triangular_solve(factor, b, left_side=True, lower=True)
    return triangular_solve(factor, y, left_side=True, lower=True, transpose_a=True)


@register_pytree_node_class
class gaussian_kde:  # noqa: N801 (SciPy's name)
    """A Gaussian kernel density estimate of a (d, n) dataset.

    Args:
      dataset: (d, n) or (n,) data points.
      bw_method: "scott" (default), "silverman", a scalar factor, or a callable of the kde.
      weights: optional (n,) point weights.
    """

    __slots__ = _FIELDS

    def __init__(self, dataset: Any, bw_method: Any = None, weights: Any = None) -> None:
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if dtypes.issubdtype(dataset.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact(dataset, jnp.asarray(weights))
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            (dataset,) = promote_dtypes_inexact(dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        object.__setattr__(self, "dataset", dataset)
        object.__setattr__(self, "weights", weights)
        neff = 1 / jnp.sum(weights**2)
        object.__setattr__(self, "neff", neff)
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = jnp.power(neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif np.ndim(bw_method) == 0 and not isinstance(bw_method, str) and not callable(bw_method):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        data_covariance = jnp.atleast_2d(
            jnp.cov(dataset, rowvar=True, bias=False, aweights=weights)
        )
        data_inv_cov = jnp.linalg.inv(data_covariance)
        object.__setattr__(self, "covariance", data_covariance * factor**2)
        object.__setattr__(self, "inv_cov", data_inv_cov / factor**2)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"gaussian_kde is immutable: cannot set {name!r}")

    def tree_flatten(self):
        return tuple(getattr(self, f) for f in _FIELDS), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        del aux_data
        kde = cls.__new__(cls)
        for name, value in zip(_FIELDS, children, strict=True):
            object.__setattr__(kde, name, value)
        return kde

    @property
    def d(self) -> int:
        """The dimension of the data."""
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        """The number of data points."""
        return self.dataset.shape[1]

    def evaluate(self, points: Any) -> Any:
        """The estimated density at (d, m) points.

        Args:
          points: (d, m) points, or (m,) when d == 1, or (d,) for one point.

        Returns:
          The (m,) densities.
        """
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _kernel_sum(False, self.dataset.T, self.weights[:, None], points.T, self.inv_cov)[
            :, 0
        ]

    __call__ = evaluate
    pdf = evaluate

    def logpdf(self, x: Any) -> Any:
        """The log of the estimated density (a logsumexp over the kernels).

        Args:
          x: points, as for `evaluate`.

        Returns:
          The (m,) log-densities.
        """
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _kernel_sum(True, self.dataset.T, self.weights[:, None], x.T, self.inv_cov)[:, 0]

    def integrate_gaussian(self, mean: Any, cov: Any) -> Any:
        """The integral of the density times a Gaussian with `mean` and `cov`.

        Args:
          mean: (d,) mean.
          cov: (d, d) covariance.

        Returns:
          The scalar integral.
        """
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        factor = cholesky(self.covariance + cov)
        norm = 1.0 / (math.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(factor)))
        return _gaussian_convolve(factor, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low: Any, high: Any) -> Any:
        """The probability mass of a 1-D density between `low` and `high`.

        Args:
          low: scalar lower limit.
          high: scalar upper limit.

        Returns:
          The scalar mass.
        """
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (ndtr(high) - ndtr(low)))

    def integrate_kde(self, other: gaussian_kde) -> Any:
        """The integral of the product of this density and another kde's.

        Args:
          other: a gaussian_kde of the same dimension.

        Returns:
          The scalar integral.
        """
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        factor = cholesky(self.covariance + other.covariance)
        norm = 1.0 / (math.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(factor)))
        small, large = (self, other) if self.n < other.n else (other, self)
        result = vmap(
            lambda mean: _gaussian_convolve(factor, norm, large.dataset, large.weights, mean),
            in_axes=1,
        )(small.dataset)
        return jnp.sum(result * small.weights)

    def resample(self, key: Any, shape: tuple[int, ...] = ()) -> Any:
        """Draws points from the estimated density.

        Args:
          key: a PRNG key.
          shape: the batch shape of the draw.

        Returns:
          A (d,) + shape array of samples.
        """
        index_key, noise_key = random.split(key)
        index = random.choice(index_key, self.n, shape=shape, p=self.weights)
        noise = random.multivariate_normal(
            noise_key,
            jnp.zeros(self.d, self.covariance.dtype),
            self.covariance,
            shape=shape,
            dtype=self.dataset.dtype,
        ).T
        return self.dataset[:, index] + noise

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Any:
        """Not supported: only 1-D box integrals (`integrate_box_1d`), as in JAX."""
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method: Any = None) -> Any:
        """Not supported: the kde is immutable, as in JAX."""
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points):
        points = jnp.asarray(points)
        if dtypes.issubdtype(points.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _gaussian_convolve(factor, norm, target, weights, mean):
    diff = target - mean[:, None]
    arg = 0.5 * jnp.sum(diff * _cho_solve(factor, diff), axis=0)
    return norm * jnp.sum(jnp.exp(-arg) * weights)


def _kernel_sum(in_log, points, values, xi, precision):
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    # Whitening by the precision's Cholesky factor turns the kernel into exp(-|x - p|^2 / 2).
    whitening = cholesky(precision)
    points = jnp.dot(points, whitening)
    xi = jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * math.log(2 * np.pi)
    args = log_norm - 0.5 * jnp.sum(jnp.square(xi[:, None, :] - points[None, :, :]), axis=-1)
    if in_log:
        return logsumexp(jnp.log(values[None, :, :]) + args[:, :, None], axis=1)
    return jnp.sum(values[None, :, :] * jnp.exp(args)[:, :, None], axis=1)
