"""Conveniences that add, drop or merge axes, each one reshape or broadcast: squeeze,
expand_dims, collapse and broadcast_to_rank."""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from typing import Any

from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.lax._argcheck import RANK, axes_arg, int_sequence
from stablax._src.lax._shapes import broadcast, reshape

# squeeze's and expand_dims's dimensions: distinct, negative ones counting from the end.
_unique_axes = functools.partial(
    axes_arg,
    what="dimensions",
    array=RANK,
    convert=int_sequence,
    repeated="{name}: repeated axis in dimensions {axes}",
)


def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
    """Removes the size-1 `dimensions` (negative ones count from the end).

    Args:
      array: the operand.
      dimensions: axes of `array`, each of size 1.

    Returns:
      `array` reshaped without those axes (`stablehlo.reshape`).
    """
    aval = aval_of(array)
    dims = _unique_axes(dimensions, aval.ndim, "lax.squeeze")
    if any(aval.shape[d] != 1 for d in dims):
        raise ValueError(
            "lax.squeeze: cannot select an axis to squeeze out which has size not equal to one, "
            f"got shape={aval.shape} and dimensions={tuple(dimensions)}{mlir.where_suffix()}"
        )
    return reshape(array, tuple(d for i, d in enumerate(aval.shape) if i not in dims))


def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
    """Inserts size-1 axes so that they sit at `dimensions` of the result.

    Args:
      array: the operand.
      dimensions: positions in the output (of rank `array.ndim + len(dimensions)`); negative
        positions count from the end of the output.

    Returns:
      `array` reshaped with the new axes (`stablehlo.reshape`).

    Example: `expand_dims(x, (0, -1))` turns `float32[3]` into `float32[1,3,1]`.
    """
    aval = aval_of(array)
    dimensions = int_sequence(dimensions, "dimensions", "lax.expand_dims")
    ndim_out = aval.ndim + len(dimensions)
    dims = set(_unique_axes(dimensions, ndim_out, "lax.expand_dims"))
    rest = iter(aval.shape)
    return reshape(array, tuple(1 if i in dims else next(rest) for i in range(ndim_out)))


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """Merges axes [start_dimension, stop_dimension) into one (row-major).

    Args:
      operand: the array.
      start_dimension: first axis to merge; negative counts from the end.
      stop_dimension: one past the last axis to merge (default: the rank); negative counts from
        the end.

    Returns:
      The reshaped array (`stablehlo.reshape`).
    """
    shape = aval_of(operand).shape
    # Python slice bounds, as JAX: out-of-range bounds clip, and an empty range inserts an
    # axis of size 1 (collapse(x, 3) of a rank-3 x appends one).
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(
            f"lax.collapse: invalid dimension range {shape}[{lo}:{hi}]{mlir.where_suffix()}"
        )
    size = math.prod(shape[lo:hi])
    return reshape(operand, (*shape[:lo], size, *shape[hi:]))


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """Adds leading size-1 axes until `x` has `rank` axes (unchanged if it has that many)."""
    aval = aval_of(x)
    missing = operator.index(rank) - aval.ndim
    # As JAX: always an array (a Python scalar of the right rank is converted).
    return broadcast(x, (1,) * max(missing, 0))
