"""Set operations on two arrays with NumPy's signatures: isin, union1d, setdiff1d, intersect1d,
setxor1d, built like `unique` (_unique.py) on one stable sort; the number of values must be
concrete outside jit, and under jit comes from a static `size=` (with `fill_value=`), as in JAX."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import Tracer
from stablax._src.jit import jit as _eager
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import promote_dtypes
from stablax._src.numpy._sorting import (
    _flat_nonzero_positions,
    argsort,
    concrete_value,
    index_dtype,
    nonnegative_size,
    searchsorted,
    size_hint,
    take_1d,
)
from stablax._src.numpy._unique import (
    _empty_unique,
    _equal,
    _fill_like,
    _unique_hint,
    _unique_parts,
)

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
    size = nonnegative_size(size, f"jnp.{name}")
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
    traced = isinstance(ar1, Tracer)
    ar1, ar2 = _flat(ar1), _flat(ar2)  # the values keep ar1's dtype, as in JAX
    if size is None:
        # As JAX: the result's length is that of ar1's values, so a traced ar1 must be concrete
        # first, even empty; an empty host constant needs no values (its result is empty).
        if isinstance(ar1, Tracer) and (traced or ar1.aval.shape[0]):
            concrete_value(ar1, name, size_hint(name))
    else:
        size = nonnegative_size(size, name)
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
        length = nonnegative_size(size, f"jnp.{name}")
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
]
