"""scipy.ndimage.map_coordinates: interpolation of an array at arbitrary coordinates
(nearest neighbour or linear; constant, nearest, wrap, mirror and reflect boundaries)."""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.jit import jit


def _mirror(index: Any, size: int) -> Any:
    # Reflection about the edge samples: ... 2 1 | 0 1 2 ... n-1 | n-2 ...
    s = size - 1
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect(index: Any, size: int) -> Any:
    # Reflection about the edges themselves: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ...
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS: dict[str, Callable[[Any, int], Any]] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away_from_zero(a: Any) -> Any:
    return a if dtypes.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest(coordinate: Any) -> list[tuple[Any, Any]]:
    return [(_round_half_away_from_zero(coordinate).astype(np.int32), coordinate.dtype.type(1))]


def _linear(coordinate: Any) -> list[tuple[Any, Any]]:
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


@jit(static_argnums=(2, 3, 4))
def _map_coordinates(input, coordinates, order, mode, cval):  # noqa: A002 (SciPy's name)
    values = jnp.asarray(input)
    coordinates = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, values.dtype)
    if len(coordinates) != values.ndim:
        raise ValueError(
            "coordinates must be a sequence of length input.ndim, but "
            f"{len(coordinates)} != {values.ndim}"
        )
    fix = _INDEX_FIXERS.get(mode)
    if fix is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. Currently "
            f"supported modes are {set(_INDEX_FIXERS)}."
        )
    if order == 0:
        nodes_of = _nearest
    elif order == 1:
        nodes_of = _linear
    else:
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")
    per_axis = []
    for coordinate, size in zip(coordinates, values.shape, strict=True):
        nodes = []
        for index, weight in nodes_of(coordinate):
            valid = (0 <= index) & (index < size) if mode == "constant" else True
            nodes.append((fix(index, size), valid, weight))
        per_axis.append(nodes)
    terms = []
    for corner in itertools.product(*per_axis):
        indices, validities, weights = zip(*corner, strict=True)
        sample = values[indices]
        if not all(v is True for v in validities):
            sample = jnp.where(functools.reduce(operator.and_, validities), sample, cval)
        terms.append(functools.reduce(operator.mul, weights) * sample)
    result = sum(terms[1:], terms[0])
    if dtypes.issubdtype(values.dtype, np.integer):
        result = _round_half_away_from_zero(result)
    return result.astype(values.dtype)


def map_coordinates(
    input: Any,  # noqa: A002 (SciPy's name)
    coordinates: Sequence[Any],
    order: int,
    mode: str = "constant",
    cval: Any = 0.0,
) -> Any:
    """Samples `input` at `coordinates` by spline interpolation (scipy.ndimage.map_coordinates).

    Args:
      input: the N-dimensional array.
      coordinates: N arrays of one shape: the (fractional) index along each axis.
      order: 0 (nearest) or 1 (linear).
      mode: "constant" (cval outside), "nearest", "wrap", "mirror" or "reflect".
      cval: the value outside the array in "constant" mode.

    Returns:
      An array of the coordinates' shape and input's dtype (integers rounded half away from 0).
    """
    return _map_coordinates(input, coordinates, order, mode, cval)
