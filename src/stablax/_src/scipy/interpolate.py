"""scipy.interpolate.RegularGridInterpolator: linear and nearest interpolation on a
rectilinear grid (a pytree, so it passes through jit and vmap)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.tree_util import register_pytree_node


def _points_array(points: Any, ndim: int | None = None) -> Any:
    # Sample points as one (..., ndim) array, from a tuple of coordinate arrays or an array.
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = jnp.broadcast_arrays(*points)
        for other in parts[1:]:
            if other.shape != parts[0].shape:
                raise ValueError("coordinate arrays do not have the same shape")
        out = jnp.empty(parts[0].shape + (len(points),), dtype=float)
        for j, part in enumerate(parts):
            out = out.at[..., j].set(part)
        return out
    points = jnp.asarray(points)
    if points.ndim == 1:
        points = points.reshape(-1, 1) if ndim is None else points.reshape(-1, ndim)
    return points


class RegularGridInterpolator:
    """Interpolation on a regular (rectilinear) grid in any dimension
    (scipy.interpolate.RegularGridInterpolator).

    Args:
      points: the grid coordinates, one strictly ascending 1-D array per dimension.
      values: the data on the grid, shape (m1, ..., mn, ...).
      method: "linear" or "nearest".
      bounds_error: must be False (out-of-bounds points cannot raise under jit).
      fill_value: the value outside the grid; None extrapolates.
    """

    def __init__(
        self,
        points: Any,
        values: Any,
        method: str = "linear",
        bounds_error: bool = False,
        fill_value: Any = np.nan,
    ) -> None:
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if self.bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        values = jnp.asarray(values)
        if len(points) > values.ndim:
            raise ValueError(
                f"there are {len(points)} point arrays, but values has {values.ndim} dimensions"
            )
        (values,) = promote_dtypes_inexact(values)
        if fill_value is not None:
            fill_value = jnp.asarray(fill_value)
            if not jnp.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError(
                    "fill_value must be either 'None' or of a type compatible with values"
                )
        self.fill_value = fill_value
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi: Any, method: str | None = None) -> Any:
        """Interpolated values at the points xi (..., ndim)."""
        method = self.method if method is None else method
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _points_array(xi, ndim=ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(
                f"the requested sample points xi have dimension {xi.shape[1]}, but this "
                f"RegularGridInterpolator has dimension {ndim}"
            )
        xi_shape = xi.shape
        xi = xi.reshape(-1, xi_shape[-1])
        indices, distances, out_of_bounds = self._find_indices(xi.T)
        if method == "linear":
            result = self._evaluate_linear(indices, distances)
        else:
            result = self._evaluate_nearest(indices, distances)
        if not self.bounds_error and self.fill_value is not None:
            shape = result.shape[:1] + (1,) * (result.ndim - 1)
            result = jnp.where(out_of_bounds.reshape(shape), self.fill_value, result)
        return result.reshape(xi_shape[:-1] + self.values.shape[ndim:])

    def _evaluate_linear(self, indices, distances):
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        total = jnp.asarray(0.0)
        for corner in itertools.product(*[[i, i + 1] for i in indices]):
            weight = jnp.asarray(1.0)
            for ci, i, yi in zip(corner, indices, distances, strict=True):
                weight *= jnp.where(ci == i, 1 - yi, yi)
            total += self.values[corner] * weight[trailing]
        return total

    def _evaluate_nearest(self, indices, distances):
        nearest = [jnp.where(yi <= 0.5, i, i + 1) for i, yi in zip(indices, distances, strict=True)]
        return self.values[tuple(nearest)]

    def _find_indices(self, xi):
        indices, distances = [], []
        out_of_bounds = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid, strict=False):
            i = jnp.searchsorted(g, x) - 1
            i = jnp.where(i < 0, 0, i)
            i = jnp.where(i > g.size - 2, g.size - 2, i)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            if not self.bounds_error:
                out_of_bounds += x < g[0]
                out_of_bounds += x > g[-1]
        return indices, distances, out_of_bounds


register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
