"""`x[idx]` for basic indices: integers, slices with any step, None and Ellipsis.

Lowers to one `stablehlo.slice` (after a `reverse` for negative steps) and one reshape.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import lax
from stablax._src.array import Array
from stablax._src.core import Tracer


def _is_int_index(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    if isinstance(x, Array) and x.aval.ndim == 0 and x.aval.dtype.kind in "iu":
        return True
    return False


def _expand_index(idx: Any, ndim: int) -> list[Any]:
    if not isinstance(idx, tuple):
        idx = (idx,)
    for item in idx:
        if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int_index(item)):
            if isinstance(item, Tracer):
                raise TypeError(
                    "stablax: indexing with a traced integer needs lax.dynamic_slice (or "
                    f"lax.dynamic_index_in_dim) at this stage{mlir.where_suffix()}"
                )
            raise TypeError(
                f"stablax: unsupported index {item!r} of type {type(item).__name__}: only "
                "integers, slices, None and ... are supported by basic indexing"
                f"{mlir.where_suffix()}"
            )
    ellipses = sum(1 for item in idx if item is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for item in idx if item is not None and item is not Ellipsis)
    if consumed > ndim:
        raise IndexError(
            f"Too many indices: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    if ellipses:
        at = idx.index(Ellipsis)
        idx = idx[:at] + (slice(None),) * (ndim - consumed) + idx[at + 1 :]
    else:
        idx = idx + (slice(None),) * (ndim - consumed)
    return list(idx)


def getitem(x: Any, idx: Any) -> Any:
    """NumPy basic indexing on an Array or Tracer."""
    shape = x.aval.shape
    items = _expand_index(idx, len(shape))
    starts, limits, strides, reverse = [], [], [], []
    out_shape: list[int] = []
    dim = 0
    for item in items:
        if item is None:
            out_shape.append(1)
            continue
        n = shape[dim]
        if isinstance(item, slice):
            start, stop, step = item.indices(n)
            count = len(range(start, stop, step))
            if step < 0:
                reverse.append(dim)
                start = n - 1 - start
                step = -step
            if count == 0:
                start = 0
            starts.append(start)
            limits.append(start + (count - 1) * step + 1 if count else start)
            strides.append(step)
            out_shape.append(count)
        else:
            i = operator.index(item)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
            i %= n
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
        dim += 1
    if reverse:
        x = lax.rev(x, reverse)
    x = lax.slice(x, starts, limits, strides)
    return lax.reshape(x, out_shape)
