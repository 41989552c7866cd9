"""Set operations with NumPy's and the Array API's signatures: unique (and unique_all/counts/
inverse/values), intersect1d, union1d, setdiff1d, setxor1d, isin.

All are built on one stable sort; the number of distinct values must be concrete outside jit,
and under jit comes from a static `size=` (with `fill_value=` for the padding), as in JAX.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np
from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import Tracer
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import axis_arg
from stablax._src.numpy._creation import asarray
from stablax._src.numpy._promotion import broadcast_shapes, broadcast_to_shape, promote_dtypes
from stablax._src.numpy._sorting import (
    _flat_nonzero_positions,
    argsort,
    concrete_value,
    index_dtype,
    searchsorted,
    size_hint,
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
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"jnp.{name}: size must be nonnegative, got {size}{mlir.where_suffix()}")
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


# --- membership --------------------------------------------------------------------------------

_ISIN_METHODS = ("auto", "compare_all", "binary_search", "sort")


def _isin_impl(element, test_elements, invert, method):
    element, test_elements = promote_dtypes(element, test_elements)
    flat_test = lax.reshape(test_elements, (test_elements.aval.size,))
    if flat_test.aval.shape[0] == 0:
        found = lax.full(element.aval.shape, False, np.bool_)
    elif method == "compare_all":
        ndim = element.aval.ndim
        shape = (*element.aval.shape, flat_test.aval.shape[0])
        equal = lax.eq(
            lax.broadcast_in_dim(element, shape, tuple(range(ndim))),
            lax.broadcast_in_dim(flat_test, shape, (ndim,)),
        )
        found = lax.reduce_or(equal, (ndim,))
    else:
        ordered = lax.sort(flat_test)
        position = searchsorted(ordered, element, method="sort" if method == "sort" else "scan")
        found = lax.eq(take_1d(ordered, position), element)
    return lax.bitwise_not(found) if invert else found


_isin = _eager(_isin_impl, static_argnames=("invert", "method"))


def isin(
    element: Any,
    test_elements: Any,
    assume_unique: bool = False,
    invert: bool = False,
    *,
    method: str = "auto",
) -> Any:
    """Whether each element of `element` occurs in `test_elements` (NumPy's `isin`; NaN is never
    found).

    Args:
      method: "compare_all" (every pair), "binary_search" or "sort" (sorted test elements), or
        "auto" (compare_all for few test elements, else binary_search).
    """
    del assume_unique  # an optimisation hint only
    if method not in _ISIN_METHODS:
        raise ValueError(f"jnp.isin: method={method!r} must be one of {list(_ISIN_METHODS)}")
    element, test_elements = asarray(element), asarray(test_elements)
    if method == "auto":
        method = "compare_all" if test_elements.aval.size <= 64 else "binary_search"
    return _isin(element, test_elements, invert=bool(invert), method=method)


# --- two-set operations ------------------------------------------------------------------------


def _flat(x: Any) -> Any:
    x = asarray(x)
    return lax.reshape(x, (x.aval.size,))


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted distinct values in either array (NumPy's `union1d`)."""
    ar1, ar2 = promote_dtypes(_flat(ar1), _flat(ar2))
    both = lax.concatenate([ar1, ar2], 0)
    return _unique_parts(both, None, True, size, fill_value, "union1d")[0]


def _keep_distinct(
    values: Any, keep: Any, size: int | None, fill_value: Any, name: str, valid_out: list = None
) -> Any:
    """The sorted distinct `values` where `keep`, padded to `size` (`valid_out` gets the mask of
    the slots that are not padding)."""
    # Dropped values become the largest ones after sorting by (dropped, value); counting the
    # kept distinct values then needs only the kept prefix.
    n = values.aval.shape[0]
    dropped = lax.convert_element_type(lax.bitwise_not(keep), np.int8)
    dropped, ordered = lax.sort((dropped, values), num_keys=2)
    kept = lax.reduce_sum(lax.convert_element_type(keep, index_dtype()), (0,))
    if size is None:
        hint = _unique_hint(f"jnp.{name}")
        prefix = int(concrete_value(kept, f"jnp.{name}", hint))
        return _unique_parts(lax.slice(ordered, (0,), (prefix,)), None, True, None, None, name)[0]
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"jnp.{name}: size must be nonnegative, got {size}{mlir.where_suffix()}")
    if n == 0:
        if valid_out is not None:
            valid_out.append(lax.full((size,), False, np.bool_))
        return _empty_unique(values, None, size, fill_value, name)[0]
    is_new = lax.concatenate(
        [
            lax.full((1,), True, np.bool_),
            lax.bitwise_not(
                _equal(lax.slice(ordered, (1,), (n,)), lax.slice(ordered, (0,), (n - 1,)), True)
            ),
        ],
        0,
    )
    is_new = lax.bitwise_and(is_new, lax.eq(dropped, lax.full((n,), 0, np.int8)))
    starts, valid = _flat_nonzero_positions(is_new, size)
    if valid_out is not None:
        valid_out.append(valid)
    out = take_1d(ordered, starts)
    if fill_value is None:  # JAX pads with the smallest kept value
        fill = take_1d(ordered, lax.full((), 0, index_dtype()))
        fill = lax.broadcast_in_dim(fill, (size,), ())
    else:
        fill = _fill_like(fill_value, out, name)  # NumPy's broadcasting, as JAX
    return lax.select(valid, out, fill)


def setdiff1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted distinct values of `ar1` that are not in `ar2` (NumPy's `setdiff1d`).

    With `assume_unique`, the values of `ar1` not in `ar2` in their order in `ar1`, unsorted, as
    JAX. With `size`, padded with `fill_value` (a scalar; zero when not given).
    """
    name = "jnp.setdiff1d"
    ar1, ar2 = _flat(ar1), _flat(ar2)  # the values keep ar1's dtype, as in JAX
    if size is None:
        # As JAX: the result's length is that of ar1's values, so ar1 must be concrete first.
        if isinstance(ar1, Tracer):
            concrete_value(ar1, name, size_hint(name))
    else:
        size = operator.index(size)
        if size < 0:
            raise ValueError(f"{name}: size must be nonnegative, got {size}{mlir.where_suffix()}")
    fill = asarray(0 if fill_value is None else fill_value)
    if fill.aval.ndim:
        raise ValueError(
            f"{name}: fill_value must be a scalar, got shape {fill.aval.shape}{mlir.where_suffix()}"
        )
    if type(fill_value) is complex and ar1.aval.dtype.kind != "c":  # JAX's int()/float() of it
        raise TypeError(
            f"{name}: a complex fill_value does not fit a {ar1.aval.dtype.name} result, got "
            f"{fill_value!r}{mlir.where_suffix()}"
        )
    fill = lax.convert_element_type(fill, ar1.aval.dtype)
    if ar1.aval.weak_type:
        fill = lax.convert_element_type(fill, ar1.aval.dtype, weak_type=True)
    n = ar1.aval.shape[0]
    if n == 0:
        return lax.broadcast_in_dim(fill, (size or 0,), ())
    keep = isin(ar1, ar2, invert=True)
    if not assume_unique:
        out = _keep_distinct(ar1, keep, size, fill, "setdiff1d")
        return lax.convert_element_type(out, out.aval.dtype, weak_type=ar1.aval.weak_type)
    if size is None:
        positions = np.flatnonzero(concrete_value(keep, name, size_hint(name)))
        return take_1d(ar1, asarray(positions.astype(index_dtype())))
    starts, valid = _flat_nonzero_positions(keep, size)
    return lax.select(valid, take_1d(ar1, starts), lax.broadcast_in_dim(fill, (size,), ()))


def intersect1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    return_indices: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted distinct values in both arrays (NumPy's `intersect1d`); with
    `return_indices`, also the first index of each in `ar1` and in `ar2`."""
    ar1, ar2 = promote_dtypes(_flat(ar1), _flat(ar2))
    if size is not None:
        # As JAX: with a size the values come out strongly typed, and with no fill_value an
        # empty intersection pads with zeros (a non-empty one with its smallest value).
        ar1, ar2 = (lax.convert_element_type(a, a.aval.dtype) for a in (ar1, ar2))
    if assume_unique:
        return _intersect1d_of_unique(ar1, ar2, return_indices, size, fill_value)
    if size is not None and fill_value is None and ar1.aval.shape[0] == 0:
        fill_value = 0
    valid = []
    values = _keep_distinct(ar1, isin(ar1, ar2), size, fill_value, "intersect1d", valid)
    if size is not None and fill_value is None:
        nothing = lax.bitwise_not(lax.reduce_or(valid[0], (0,)))
        zeros = lax.full_like(values, 0)
        values = lax.select(lax.broadcast_in_dim(nothing, values.aval.shape, ()), zeros, values)
    if not return_indices:
        return values
    indices = [_first_index(ar1, values), _first_index(ar2, values)]
    if valid:  # padding slots index one past the end, as JAX
        indices = [
            lax.select(valid[0], i, lax.full_like(i, a.aval.shape[0]))
            for i, a in zip(indices, (ar1, ar2), strict=True)
        ]
    return values, *indices


def _intersect1d_of_unique(
    ar1: Any, ar2: Any, return_indices: bool, size: int | None, fill_value: Any
) -> Any:
    """NumPy's and JAX's `assume_unique` rule: the values of both arrays, sorted together, that
    equal their successor, so inputs that are not unique give their repeats too, as there."""
    name = "intersect1d"
    n1, n2 = ar1.aval.shape[0], ar2.aval.shape[0]
    both = lax.concatenate([ar1, ar2], 0)
    n = n1 + n2
    dtype = index_dtype()
    aux, source = lax.sort((both, lax.iota(dtype, n)), num_keys=1, is_stable=True)
    pairs = (
        _equal(lax.slice(aux, (1,), (n,)), lax.slice(aux, (0,), (n - 1,)), False)
        if n >= 2
        else lax.full((0,), False, np.bool_)
    )
    if size is None:
        found = lax.reduce_sum(lax.convert_element_type(pairs, dtype), (0,))
        length = int(concrete_value(found, f"jnp.{name}", _unique_hint(f"jnp.{name}")))
    else:
        length = operator.index(size)
        if length < 0:
            raise ValueError(
                f"jnp.{name}: size must be nonnegative, got {length}{mlir.where_suffix()}"
            )
    if n < 2:  # no pairs: every slot is padding; JAX's gather of one value reads that value
        positions = lax.full((length,), 0, dtype)
        valid = lax.full((length,), False, np.bool_)
        lone = _index_at(aux, 0) if n else lax.full((), 0, aux.aval.dtype)
        values = lax.broadcast_in_dim(lone, (length,), ())
        first, second = positions, positions
    else:
        positions, valid = _flat_nonzero_positions(pairs, length)
        values = take_1d(aux, positions)
        first = take_1d(source, positions)
        second = take_1d(lax.slice(source, (1,), (n,)), positions)
    if size is not None:
        if fill_value is None:  # the smallest value found, or zero when none was, as JAX
            fill = values if n < 2 else _smallest_found(values, valid)
        else:
            fill = _fill_like(fill_value, values, name)
        values = lax.select(valid, values, fill)
    if not return_indices:
        return values
    n1_fill, n2_fill = lax.full((length,), n1, dtype), lax.full((length,), n2, dtype)
    first = lax.select(valid, first, n1_fill)
    second = lax.select(valid, lax.sub(second, lax.full((length,), n1, dtype)), n2_fill)
    if size is None and n <= np.iinfo(np.int32).max:  # JAX's sort indices: int32 when they fit
        first, second = (lax.convert_element_type(i, np.int32) for i in (first, second))
    return values, first, second


def _smallest_found(values: Any, valid: Any) -> Any:
    """JAX's padding: the first (smallest) value found, or zero when none was."""
    length = values.aval.shape[0]
    zero = lax.full((), 0, values.aval.dtype)
    smallest = lax.select(_index_at(valid, 0), _index_at(values, 0), zero) if length else zero
    return lax.broadcast_in_dim(smallest, (length,), ())


def _index_at(x: Any, i: int) -> Any:
    return lax.reshape(lax.slice(x, (i,), (i + 1,)), ())


def _first_index(array: Any, values: Any) -> Any:
    # Index of the first occurrence of each value: searchsorted in the stably sorted array.
    if array.aval.shape[0] == 0:  # nothing to find: every slot is padding, set by the caller
        return lax.full(values.aval.shape, 0, index_dtype())
    order = argsort(array)
    position = searchsorted(take_1d(array, order), values)
    return take_1d(order, position)


def setxor1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted distinct values in exactly one of the arrays (NumPy's `setxor1d`).

    With `assume_unique`, the values that occur once in both arrays together, as NumPy and JAX
    (so a value repeated within one array is dropped). With `size`, the result is padded with
    `fill_value`, by default the smallest value found (NaN if one is NaN) or zero, as JAX.
    """
    ar1, ar2 = promote_dtypes(_flat(ar1), _flat(ar2))
    both = lax.concatenate([ar1, ar2], 0)
    dtype = both.aval.dtype
    if size is not None and fill_value is None and both.aval.size == 0:
        return lax.full((operator.index(size),), 0, dtype)  # JAX pads with zeros then
    if assume_unique:
        both = lax.sort(both)
        keep = _once(both)
    else:
        keep = [isin(ar1, ar2, invert=True), isin(ar2, ar1, invert=True)]
        keep = lax.concatenate(keep, 0)
    if size is None:
        values = _keep_distinct(both, keep, None, None, "setxor1d")
        return lax.convert_element_type(values, dtype, weak_type=both.aval.weak_type)
    weak = False  # JAX's padding (a select with the strong values) makes the result strong
    if fill_value is not None:  # ... or jnp.where with the fill: the two promote together
        both, _ = promote_dtypes(lax.convert_element_type(both, dtype, weak_type=False), fill_value)
        dtype, weak = both.aval.dtype, both.aval.weak_type
    valid = []
    values = _keep_distinct(both, keep, size, fill_value, "setxor1d", valid)
    if fill_value is None:
        values = lax.select(valid[0], values, _smallest_or_nan(values, valid[0]))
    return lax.convert_element_type(values, dtype, weak_type=weak)


def _once(aux: Any) -> Any:
    """Which values of the sorted `aux` differ from both neighbours (NaN differs from NaN)."""
    n = aux.aval.shape[0]
    if n < 2:
        return lax.full((n,), True, np.bool_)
    edge = lax.full((1,), True, np.bool_)
    same = _equal(lax.slice(aux, (1,), (n,)), lax.slice(aux, (0,), (n - 1,)), False)
    differs = lax.concatenate([edge, lax.bitwise_not(same), edge], 0)
    return lax.bitwise_and(lax.slice(differs, (1,), (n + 1,)), lax.slice(differs, (0,), (n,)))


def _smallest_or_nan(values: Any, valid: Any) -> Any:
    """JAX's setxor1d padding: the min of the values found (NaN if one is), or zero."""
    smallest = _smallest_found(values, valid)
    if not dtypes.issubdtype(values.aval.dtype, np.inexact) or not values.aval.shape[0]:
        return smallest
    nan = lax.reduce_or(lax.bitwise_and(valid, lax.ne(values, values)), (0,))
    nan = lax.broadcast_in_dim(nan, smallest.aval.shape, ())
    return lax.select(nan, lax.full_like(smallest, np.nan), smallest)


__all__ = [
    "intersect1d",
    "isin",
    "setdiff1d",
    "setxor1d",
    "union1d",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]
