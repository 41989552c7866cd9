"""unique and its Array API forms (unique_all, unique_counts, unique_inverse, unique_values),
built on one stable sort; the number of distinct values must be concrete outside jit, and under
jit comes from a static `size=` (with `fill_value=` for the padding), as in JAX."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import axis_arg
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import broadcast_shapes, broadcast_to_shape
from stablax._src.numpy._sorting import (
    _flat_nonzero_positions,
    concrete_value,
    index_dtype,
    nonnegative_size,
    take_1d,
)


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def _unique_hint(name: str) -> str:
    return (
        f"To use {name} under jit or vmap, pass a static size= (and optionally fill_value=): "
        "the number of distinct values depends on the input's values."
    )


def _equal(x: Any, y: Any, equal_nan: bool) -> Any:
    """x == y as unique sees it: -0.0 equals 0.0; NaNs equal each other when `equal_nan`."""
    if x.aval.dtype.kind == "c":
        return lax.bitwise_and(
            _equal(lax.real(x), lax.real(y), equal_nan), _equal(lax.imag(x), lax.imag(y), equal_nan)
        )
    same = lax.eq(x, y)
    if equal_nan and dtypes.issubdtype(x.aval.dtype, np.floating):
        same = lax.bitwise_or(same, lax.bitwise_and(lax.ne(x, x), lax.ne(y, y)))
    return same


def _rows(x: Any, axis: int | None) -> Any:
    """x as a (n, features) matrix of the items unique compares: elements, or slices along axis."""
    if axis is None:
        return lax.reshape(x, (x.aval.size, 1))
    moved = lax.transpose(x, (axis, *[i for i in range(x.aval.ndim) if i != axis]))
    n = moved.aval.shape[0]
    return lax.reshape(moved, (n, int(np.prod(moved.aval.shape[1:], dtype=np.int64))))


def _canonical_nans(rows: Any, equal_nan: bool) -> Any:
    """Complex values with a NaN part as nan+0j, so that equal_nan sees them as one value that
    sorts in one place (NumPy and JAX give one NaN for them all)."""
    if not equal_nan or rows.aval.dtype.kind != "c":
        return rows
    nan = lax.bitwise_or(
        lax.ne(lax.real(rows), lax.real(rows)), lax.ne(lax.imag(rows), lax.imag(rows))
    )
    return lax.select(nan, lax.full_like(rows, complex(np.nan, 0)), rows)


def _sorted_groups(rows: Any, equal_nan: bool):
    """(row order after a stable lexicographic sort, which sorted rows start a new group)."""
    n, features = rows.aval.shape
    dtype = index_dtype()
    columns = [lax.reshape(lax.slice(rows, (0, j), (n, j + 1)), (n,)) for j in range(features)]
    *sorted_columns, perm = lax.sort((*columns, lax.iota(dtype, n)), num_keys=max(features, 1))
    if n == 0:
        return perm, lax.full((0,), False, np.bool_)
    differs = lax.full((n - 1,), False, np.bool_)
    for column in sorted_columns:
        same = _equal(lax.slice(column, (1,), (n,)), lax.slice(column, (0,), (n - 1,)), equal_nan)
        differs = lax.bitwise_or(differs, lax.bitwise_not(same))
    is_new = lax.concatenate([lax.full((1,), True, np.bool_), differs], 0)
    return perm, is_new


def _count_distinct_impl(x, axis, equal_nan):
    _, is_new = _sorted_groups(_canonical_nans(_rows(x, axis), equal_nan), equal_nan)
    return lax.reduce_sum(lax.convert_element_type(is_new, index_dtype()), (0,))


_count_distinct = _eager(_count_distinct_impl, static_argnames=("axis", "equal_nan"))


def _take_rows(rows: Any, indices: Any) -> Any:
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    features = rows.aval.shape[1]
    return lax.gather(rows, lax.expand_dims(indices, (1,)), dnums, (1, features), mode="clip")


def _fill_like(fill_value: Any, values: Any, name: str) -> Any:
    """`fill_value` broadcast (NumPy's rules) to the shape and dtype of `values`."""
    fill = lax.convert_element_type(asarray(fill_value), values.aval.dtype)
    shape = values.aval.shape
    if broadcast_shapes(f"jnp.{name}", fill.aval.shape, shape) != shape:
        raise ValueError(
            f"jnp.{name}: fill_value of shape {fill.aval.shape} does not broadcast to the "
            f"result's shape {shape}{mlir.where_suffix()}"
        )
    return broadcast_to_shape(fill, shape)


def _unique_impl(x, fill_value, axis, equal_nan, size):
    dtype = index_dtype()
    rows = _canonical_nans(_rows(x, axis), equal_nan)
    n = rows.aval.shape[0]
    perm, is_new = _sorted_groups(rows, equal_nan)
    # Group starts in sorted order, one past `size` so the last group's count is known.
    starts, valid = _flat_nonzero_positions(is_new, size + 1)
    starts = lax.select(valid, starts, lax.full((size + 1,), n, dtype))
    ends = lax.slice(starts, (1,), (size + 1,))
    starts, valid = lax.slice(starts, (0,), (size,)), lax.slice(valid, (0,), (size,))
    counts = lax.sub(ends, starts)
    first = lax.select(valid, starts, lax.full((size,), 0, dtype))
    indices = take_1d(perm, first)  # the first occurrence of each value (the sort is stable)
    values = _take_rows(rows, indices)
    if fill_value is not None:
        mask = lax.broadcast_in_dim(valid, values.aval.shape, (0,))
        values = lax.select(mask, values, _fill_like(fill_value, values, "unique"))
    group = lax.sub(lax.cumsum(lax.convert_element_type(is_new, dtype)), lax.full((n,), 1, dtype))
    inverse = lax.sort((perm, group), num_keys=1)[1]  # back to the input's order
    if axis is None:
        values = lax.reshape(values, (size,))
        inverse = lax.reshape(inverse, x.aval.shape)
    else:
        rest = [d for i, d in enumerate(x.aval.shape) if i != axis]
        values = lax.reshape(values, (size, *rest))
        values = lax.transpose(values, (*range(1, axis + 1), 0, *range(axis + 1, x.aval.ndim)))
    return values, indices, inverse, counts


_unique_all = _eager(_unique_impl, static_argnames=("axis", "equal_nan", "size"))


def _unique_parts(ar, axis, equal_nan, size, fill_value, name):
    ar = asarray(ar)
    if axis is not None:
        axis = axis_arg(axis, ar.aval.ndim, f"jnp.{name}")
    if size is None:
        count = _count_distinct(ar, axis=axis, equal_nan=bool(equal_nan))
        size = int(concrete_value(count, f"jnp.{name}", _unique_hint(f"jnp.{name}")))
        fill_value = None  # every slot holds a distinct value: unused, as in JAX
    size = nonnegative_size(size, f"jnp.{name}")
    n = ar.aval.size if axis is None else ar.aval.shape[axis]
    if n == 0:
        return _empty_unique(ar, axis, size, fill_value, name)
    if size == 0 and fill_value is not None:  # JAX fills an empty result whole: check it
        _empty_unique(ar, axis, size, fill_value, name)
    return _unique_all(ar, fill_value, axis=axis, equal_nan=bool(equal_nan), size=size)


def _empty_unique(ar, axis, size, fill_value, name):
    dtype = index_dtype()
    if size and fill_value is None:
        raise ValueError(
            f"jnp.{name}: for zero-sized input with nonzero size argument, fill_value must be "
            f"specified{mlir.where_suffix()}"
        )
    shape = (size,) if axis is None else (*ar.aval.shape[:axis], size, *ar.aval.shape[axis + 1 :])
    values = lax.full(shape, 0, ar.aval.dtype)
    if fill_value is not None:
        values = _fill_like(fill_value, values, name)
    empty = lax.full((size,), 0, dtype)
    inverse_shape = ar.aval.shape if axis is None else (0,)
    return values, empty, lax.full(inverse_shape, 0, dtype), empty


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    size: int | None = None,
    fill_value: Any = None,
    sorted: bool = True,  # noqa: A002 (NumPy's name)
) -> Any:
    """The sorted distinct values of `ar` (or distinct slices along `axis`), NumPy's `unique`.

    Args:
      ar: the array; flattened when `axis` is None.
      return_index: also return the index of each value's first occurrence.
      return_inverse: also return, for each element, the index of its value (input's shape
        when `axis` is None).
      return_counts: also return how often each value occurs.
      axis: compare slices along this axis instead of elements.
      equal_nan: count all NaNs as one value.
      size: static number of values to return (required under jit); missing ones are padded.
      fill_value: the padding value (default: the smallest value); padded indices are those of
        the smallest value and padded counts are 0.
      sorted: accepted for the Array API; the values are always sorted.
    """
    values, indices, inverse, counts = _unique_parts(
        ar, axis, equal_nan, size, fill_value, "unique"
    )
    extras = [
        out
        for flag, out in (
            (return_index, indices),
            (return_inverse, inverse),
            (return_counts, counts),
        )
        if flag
    ]
    return (values, *extras) if extras else values


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueAllResult:
    """Distinct values with first indices, inverse indices and counts (Array API).

    As in the Array API, NumPy and JAX, the unique_* functions count every NaN as distinct.
    """
    return _UniqueAllResult(*_unique_parts(x, None, False, size, fill_value, "unique_all"))


def unique_counts(
    x: Any, /, *, size: int | None = None, fill_value: Any = None
) -> _UniqueCountsResult:
    """Distinct values and their counts (Array API)."""
    values, _, _, counts = _unique_parts(x, None, False, size, fill_value, "unique_counts")
    return _UniqueCountsResult(values, counts)


def unique_inverse(
    x: Any, /, *, size: int | None = None, fill_value: Any = None
) -> _UniqueInverseResult:
    """Distinct values and, per element, the index of its value (Array API)."""
    values, _, inverse, _ = _unique_parts(x, None, False, size, fill_value, "unique_inverse")
    return _UniqueInverseResult(values, inverse)


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The distinct values (Array API)."""
    return _unique_parts(x, None, False, size, fill_value, "unique_values")[0]


__all__ = [
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]
