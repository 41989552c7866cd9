"""Joining arrays and editing them along an axis: [hvd]stack, column_stack, block, append,
insert, delete. Indices are static, so positions are worked out on the host with NumPy."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import Tracer
from stablax._src.lax._argcheck import axis_arg
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import arange
from stablax._src.numpy._promotion import broadcast_to_shape
from stablax._src.numpy._shape import concatenate, moveaxis, ravel, reshape
from stablax._src.numpy._shape_split import atleast_1d, atleast_2d, atleast_3d
from stablax._src.numpy._sorting import sort
from stablax._src.numpy._ufuncs import clip, where


def take_static(x: Any, indices: np.ndarray, axis: int) -> Any:
    """`x` indexed along `axis` by a host array of in-bounds indices (`stablehlo.gather`)."""
    indices = np.asarray(indices, dtype=np.int32).reshape(-1)
    n = x.aval.shape[axis]
    if indices.size == n and np.array_equal(indices, np.arange(n)):
        return x
    if indices.size == 0:
        shape = list(x.aval.shape)
        shape[axis] = 0
        return lax.full(shape, 0, x.aval.dtype)
    out = lax.index_take(x, [asarray(indices)], [axis])
    return moveaxis(out, 0, axis) if axis else out


def _stack_along(tup: Any, axis: int, promote: Any, dtype: Any, name: str) -> Any:
    arrays = _as_list(tup, name)
    if not arrays:
        raise ValueError(f"{name}: need at least one array to concatenate")
    arrays = [promote(asarray(a)) for a in arrays]
    return concatenate(arrays, axis=axis, dtype=dtype)


def hstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    """Concatenates along axis 1 (axis 0 for 1-D inputs) (`np.hstack`)."""
    arrays = [atleast_1d(a) for a in _as_list(tup, "jnp.hstack")]
    axis = 0 if arrays and arrays[0].aval.ndim == 1 else 1
    return _stack_along(arrays, axis, lambda a: a, dtype, "jnp.hstack")


def vstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    """Concatenates along axis 0 after raising inputs to 2-D (`np.vstack`)."""
    return _stack_along(_as_list(tup, "jnp.vstack"), 0, atleast_2d, dtype, "jnp.vstack")


def dstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    """Concatenates along axis 2 after raising inputs to 3-D (`np.dstack`)."""
    return _stack_along(_as_list(tup, "jnp.dstack"), 2, atleast_3d, dtype, "jnp.dstack")


def column_stack(tup: Sequence[Any]) -> Any:
    """Stacks 1-D arrays as columns of a 2-D array; 2-D arrays are joined as they are."""

    def as_columns(a: Any) -> Any:
        return reshape(a, (-1, 1)) if a.aval.ndim < 2 else a

    return _stack_along(_as_list(tup, "jnp.column_stack"), 1, as_columns, None, "jnp.column_stack")


def _as_list(tup: Any, name: str) -> list[Any]:
    if hasattr(tup, "aval"):  # an array: its slices along the leading axis
        if tup.aval.ndim == 0:
            raise ValueError(
                f"{name}: a sequence of arrays is expected, got a 0-d array{mlir.where_suffix()}"
            )
        return [tup[i] for i in range(tup.aval.shape[0])]
    if not isinstance(tup, (list, tuple)) and not hasattr(tup, "__iter__"):
        raise TypeError(f"{name}: a sequence of arrays is expected, got {type(tup).__name__}")
    return list(tup)


def _block_depth(arrays: Any, name: str) -> tuple[int, int]:
    # -> (list nesting depth, largest array rank); nesting must be the same everywhere.
    if isinstance(arrays, tuple):  # JAX's class
        raise ValueError(f"{name}: arrays is a tuple; only lists can be used to arrange blocks")
    if isinstance(arrays, list):
        if not arrays:
            raise ValueError(f"{name}: lists cannot be empty")
        depths = [_block_depth(a, name) for a in arrays]
        if len({d for d, _ in depths}) != 1:
            raise ValueError(f"{name}: list depths are mismatched")
        return depths[0][0] + 1, max(r for _, r in depths)
    if arrays is None:  # JAX's class (its jnp.array of None)
        raise ValueError(f"{name}: None is not a valid block{mlir.where_suffix()}")
    return 0, asarray(arrays).aval.ndim


def _block(arrays: Any, depth: int, ndim: int) -> Any:
    if not isinstance(arrays, list):
        a = asarray(arrays)
        return lax.reshape(a, (1,) * (ndim - a.aval.ndim) + a.aval.shape)
    parts = [_block(a, depth - 1, ndim) for a in arrays]
    return concatenate(parts, axis=ndim - depth)


def block(arrays: Any) -> Any:
    """Assembles an array from nested lists of blocks (`np.block`): the innermost lists are
    joined along the last axis, the next ones along the one before, and so on."""
    depth, rank = _block_depth(arrays, "jnp.block")
    if depth == 0:
        return asarray(arrays)
    return _block(arrays, depth, max(depth, rank))


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """`arr` with `values` concatenated at the end (flattened when `axis` is None)."""
    arr, values = asarray(arr), asarray(values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], axis=0)
    return concatenate([arr, values], axis=axis)


def _static_indices(obj: Any, n: int, name: str) -> np.ndarray:
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n))
    aval = getattr(obj, "aval", None)
    if name == "jnp.insert" and aval is not None and aval.ndim > 1:  # JAX's class
        raise ValueError(
            f"{name}: obj must be a slice, a 1-D array or a scalar, got shape {aval.shape}"
        )
    if isinstance(obj, Tracer):
        # The dtype first, in JAX's order (a boolean mask is delete's only).
        mask = name == "jnp.delete" and aval.dtype == np.bool_
        if not (mask or dtypes.issubdtype(aval.dtype, np.integer)):
            raise ValueError(f"{name}: index arrays must be integers, got {aval.dtype}")
        raise TypeError(f"{name}: the index argument must be concrete (static), not traced")
    if isinstance(obj, (str, bytes)):  # no array of indices (JAX's class)
        raise TypeError(f"{name}: obj must be a slice, an integer or integers, got {obj!r}")
    idx = np.asarray(obj)
    if name == "jnp.delete" and idx.dtype == object:  # JAX's class: no array-like at all
        raise TypeError(
            f"{name}: obj must be a slice, an integer or an array of indices, got "
            f"{type(obj).__name__}{mlir.where_suffix()}"
        )
    if name == "jnp.delete" and idx.dtype == bool:  # a mask of the entries to delete, as JAX
        if idx.shape != (n,):
            raise ValueError(f"{name}: a boolean mask must have shape ({n},), got {idx.shape}")
        return np.flatnonzero(idx)
    # JAX's class; an empty list (float64 to NumPy) is no index array, an empty float array is.
    typed = idx.size or idx.dtype == bool or hasattr(obj, "dtype")
    if typed and not dtypes.issubdtype(idx.dtype, np.integer):  # int4 too
        raise ValueError(f"{name}: index arrays must be integers, got {idx.dtype}")
    if name == "jnp.insert" and idx.ndim > 1:
        raise ValueError(f"{name}: obj must be a slice, a 1-D array or a scalar, got {idx.shape}")
    if idx.size and idx.dtype == np.uint64 and idx.max() > np.iinfo(np.int64).max:
        # Out of bounds before the cast to int64 could wrap it to a negative index.
        raise IndexError(f"{name}: index {idx.max()} is out of bounds for an axis of size {n}")
    return idx.astype(np.int64)


def _check_bounds(idx: np.ndarray, n: int, axis: int, name: str, *, inclusive: bool) -> None:
    high = n + 1 if inclusive else n
    bad = idx[(idx < -n) | (idx >= high)]
    if bad.size:
        raise IndexError(
            f"{name}: index {bad.flat[0]} is out of bounds for axis {axis} with size {n}"
        )


def _axis_or_flat(arr: Any, axis: int | None, name: str) -> tuple[Any, int]:
    arr = asarray(arr)
    if axis is None:
        return ravel(arr), 0
    return arr, axis_arg(axis, arr.aval.ndim, name)


def delete(arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False):
    """`arr` without the entries `obj` (an index, slice or static index array) along `axis`."""
    arr, axis = _axis_or_flat(arr, axis, "jnp.delete")
    if type(obj) is list or type(obj) is tuple:  # JAX's check, after the axis's
        raise TypeError(
            f"delete requires ndarray or scalar arguments, got {type(obj)} at position 1."
        )
    if assume_unique_indices and _is_integer_index_array(obj):
        return _delete_unique(arr, obj, axis)
    n = arr.aval.shape[axis]
    idx = _static_indices(obj, n, "jnp.delete")
    if idx.ndim == 0 and not -n <= idx < n:  # one index: JAX's class, as for an axis
        raise ValueError(
            f"jnp.delete: index {idx} is out of bounds for axis {axis} with size {n}"
            f"{mlir.where_suffix()}"
        )
    _check_bounds(idx, n, axis, "jnp.delete", inclusive=False)
    keep = np.ones(n, dtype=bool)
    keep[idx % n if n else idx] = False
    return take_static(arr, np.flatnonzero(keep), axis)


def _is_integer_index_array(obj: Any) -> bool:
    """Whether JAX takes delete's gather path: an integer array that is no static scalar."""
    if isinstance(obj, slice) or isinstance(obj, (str, bytes)):
        return False
    if not isinstance(obj, Tracer):
        try:
            operator.index(obj)
            return False
        except TypeError:
            pass
    dtype = getattr(getattr(obj, "aval", None), "dtype", None)
    if dtype is None:
        dtype = getattr(obj, "dtype", None)
    return dtype is not None and dtypes.issubdtype(dtype, np.integer)


def _delete_unique(arr: Any, obj: Any, axis: int) -> Any:
    """JAX's jit-compatible delete of unique indices, which may be traced: the kept positions
    are computed, not a host mask, so the result has `n - obj.size` entries along `axis`."""
    n = arr.aval.shape[axis]
    positions = ravel(asarray(obj))
    positions = sort(clip(where(positions < 0, positions + n, positions), 0, n))
    count = positions.aval.shape[0]
    positions = positions - arange(count, dtype=positions.aval.dtype)
    kept = arange(max(n - count, 0), dtype=positions.aval.dtype)
    kept = kept + (kept[None, :] >= positions[:, None]).sum(0, dtype=kept.aval.dtype)
    return arr[(slice(None),) * axis + (kept,)]


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """`arr` with `values` inserted before the indices `obj` along `axis` (`np.insert`).

    `obj` must be static; `values` take the dtype of `arr`.
    """
    arr, axis = _axis_or_flat(arr, axis, "jnp.insert")
    values = asarray(values)  # before obj, as JAX's ensure_arraylike: a str is refused first
    shape = arr.aval.shape
    n = shape[axis]
    idx = _static_indices(obj, n, "jnp.insert")
    _check_bounds(idx, n, axis, "jnp.insert", inclusive=True)
    values = lax.convert_element_type(values, arr.aval.dtype)
    if idx.size == 1:
        # One index: values are a block along the axis (NumPy's ndmin rule; a scalar index
        # moves the values' first axis there, a one-element array does not).
        v = values
        if v.aval.ndim < arr.aval.ndim:
            v = lax.reshape(v, (1,) * (arr.aval.ndim - v.aval.ndim) + v.aval.shape)
        if idx.ndim == 0:
            v = moveaxis(v, 0, axis)
        count = v.aval.shape[axis]
        idx = idx.reshape(())
        start = int(idx) + n if idx < 0 else int(idx)
        positions = np.arange(count) + start
    else:
        idx = idx.reshape(-1)
        count = idx.size
        positions = np.where(idx < 0, idx + n, idx)
        order = np.argsort(positions, kind="stable")
        positions[order] += np.arange(count)
        v = values
    block_shape = shape[:axis] + (count,) + shape[axis + 1 :]
    v = broadcast_to_shape(v, _broadcast_block(v.aval.shape, block_shape, "jnp.insert"))
    perm = np.empty(n + count, dtype=np.int64)
    is_new = np.zeros(n + count, dtype=bool)
    is_new[positions] = True
    perm[positions] = n + np.arange(count)
    perm[~is_new] = np.arange(n)
    return take_static(concatenate([arr, v], axis=axis), perm, axis)


def _broadcast_block(vshape: tuple, target: tuple, name: str) -> tuple[int, ...]:
    try:
        if np.broadcast_shapes(vshape, target) != tuple(target):
            raise ValueError
    except ValueError:
        raise ValueError(
            f"{name}: could not broadcast values of shape {vshape} to {tuple(target)}"
        ) from None
    return tuple(target)


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
    """The Array API's `concat`: `concatenate` with keyword-only `axis`."""
    return concatenate(arrays, axis=axis)
