"""`ravel_pytree`: a pytree of arrays as one flat vector, and the function that undoes it."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import dtypes, lax, tree_util
from stablax._src.avals import aval_of


def ravel_pytree(pytree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """Flattens a pytree of arrays and scalars into one 1-D array.

    Args:
      pytree: a pytree whose leaves are arrays or scalars.

    Returns:
      `(flat, unravel)`: `flat` concatenates the raveled leaves, converted to the result type of
      their dtypes (float32 and empty for a tree without leaves); `unravel(flat)` rebuilds the
      tree, each leaf with its original shape and dtype. `unravel` is hashable, so it can be a
      static argument of `jit`.
    """
    leaves, treedef = tree_util.tree_flatten(pytree)
    avals = [aval_of(x) for x in leaves]
    shapes = tuple(a.shape for a in avals)
    from_dtypes = tuple(a.dtype for a in avals)
    if not leaves:
        return lax.full((0,), 0, np.float32), _Unravel(treedef, (), (), None)
    to_dtype = dtypes.result_type(*from_dtypes)
    pieces = [
        lax.reshape(lax.convert_element_type(x, to_dtype), (math.prod(s),))
        for x, s in zip(leaves, shapes, strict=True)
    ]
    flat = lax.concatenate(pieces, 0)
    # One dtype: the unravel function accepts any dtype (JAX's rule, see jax-ml/jax#7809).
    single = all(d == to_dtype for d in from_dtypes)
    return flat, _Unravel(treedef, shapes, from_dtypes, None if single else to_dtype)


class _Unravel:
    """The inverse of one `ravel_pytree`: splits a flat vector back into the tree's leaves."""

    def __init__(self, treedef, shapes, from_dtypes, to_dtype) -> None:
        self.treedef, self.shapes = treedef, shapes
        self.from_dtypes, self.to_dtype = from_dtypes, to_dtype

    def _key(self) -> tuple:
        return (self.treedef, self.shapes, self.from_dtypes, self.to_dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unravel) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __call__(self, flat: Any) -> Any:
        aval = aval_of(flat)
        size = sum(math.prod(s) for s in self.shapes)
        if aval.shape != (size,):
            raise ValueError(
                f"unravel: expected a flat array of shape ({size},), got shape {aval.shape}"
            )
        if self.to_dtype is not None and aval.dtype != self.to_dtype:
            raise TypeError(
                f"unravel function given array of dtype {aval.dtype}, but expected dtype "
                f"{self.to_dtype}"
            )
        leaves, start = [], 0
        for i, shape in enumerate(self.shapes):
            n = math.prod(shape)
            piece = lax.reshape(lax.slice(flat, (start,), (start + n,)), shape)
            if self.to_dtype is not None:
                piece = lax.convert_element_type(piece, self.from_dtypes[i])
            leaves.append(piece)
            start += n
        return tree_util.tree_unflatten(self.treedef, leaves)
