"""`x[idx]` for basic indices: integers, slices with any step, None and Ellipsis.

Lowers to one `stablehlo.slice` (after a `reverse` for negative steps) and one reshape; traced
integer indices add one `stablehlo.dynamic_slice` (clamped, negative values wrapping, as in JAX).
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
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iu":
        return True
    if isinstance(x, Array) and x.aval.ndim == 0 and x.aval.dtype.kind in "iu":
        return True
    return _is_traced_int(x)


def _is_traced_int(x: Any) -> bool:
    return isinstance(x, Tracer) and x.aval.ndim == 0 and x.aval.dtype.kind in "iu"


def _expand_index(idx: Any, ndim: int) -> list[Any]:
    if not isinstance(idx, tuple):
        idx = (idx,)
    for item in idx:
        if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int_index(item)):
            if isinstance(item, Tracer):
                raise TypeError(
                    f"stablax: indexing with a traced {item.aval.str_short()} is not supported "
                    "by basic indexing: only integer scalars, slices, None and ... are"
                    f"{mlir.where_suffix()}"
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
    dynamic: dict[int, Any] = {}  # dimension -> traced integer index
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
        elif _is_traced_int(item):
            # Kept whole by the static slice, then cut to one element by a dynamic_slice.
            dynamic[dim] = item
            starts.append(0)
            limits.append(n)
            strides.append(1)
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
    if any(s != 0 for s in starts) or any(st != 1 for st in strides) or tuple(limits) != shape:
        x = lax.slice(x, starts, limits, strides)
    if dynamic:
        sliced = x.aval.shape
        x = lax.dynamic_slice(
            x,
            [dynamic.get(d, 0) for d in range(len(sliced))],
            [1 if d in dynamic else size for d, size in enumerate(sliced)],
        )
    if tuple(out_shape) == x.aval.shape:
        return x
    return lax.reshape(x, out_shape)
