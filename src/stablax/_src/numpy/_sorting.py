"""Sorting and searching with NumPy's signatures: sort, argsort, lexsort, partition, searchsorted,
nonzero and friends, all over `lax.sort` (`stablehlo.sort`).

Functions whose output size depends on values (nonzero, argwhere, ...) need concrete inputs
outside jit; under jit they take a static `size=` (and `fill_value=`), as in JAX.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import ConcretizationTypeError, Tracer
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import axis_arg, sequence
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import promote_dtypes

# --- shared helpers (also used by set operations and histograms) -------------------------------


def concrete_value(x: Any, name: str, hint: str) -> np.ndarray:
    """The host value of `x`, or JAX's ConcretizationTypeError naming what to pass instead."""
    if isinstance(x, Tracer):
        try:
            return x._trace.concrete_value(x, name)
        except ConcretizationTypeError:
            raise ConcretizationTypeError(
                f"Abstract tracer value encountered where concrete value is expected: traced "
                f"array {x.aval.str_short()} in {name}{mlir.where_suffix()}.\n{hint}"
            ) from None
    return np.asarray(x)


def size_hint(name: str, argument: str = "size") -> str:
    return (
        f"The {argument} argument of {name} must be statically specified to use {name} within "
        "JAX transformations (jit, vmap): the output shape depends on the input's values."
    )


def nonnegative_size(size: Any, name: str) -> int:
    """A `size=` argument (the length of a value-dependent result) as a Python int, at least 0."""
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"{name}: size must be nonnegative, got {size}{mlir.where_suffix()}")
    return size


def index_dtype() -> np.dtype:
    return dtypes.default_int_dtype()


def take_1d(a: Any, indices: Any) -> Any:
    """`a[indices]` for a 1-D `a` and integer `indices` of any shape (clamped into bounds)."""
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    expanded = lax.expand_dims(indices, (indices.aval.ndim,))
    return lax.gather(a, expanded, dnums, (1,), mode="clip")


def sort_less(x: Any, y: Any) -> Any:
    """x < y in sort order: NaNs after every number; complex by real part, then imaginary."""
    if x.aval.dtype.kind == "c":
        xr, yr, xi, yi = lax.real(x), lax.real(y), lax.imag(x), lax.imag(y)
        return lax.bitwise_or(
            sort_less(xr, yr), lax.bitwise_and(_sort_equal(xr, yr), sort_less(xi, yi))
        )
    if x.aval.dtype.kind == "b":
        return lax.bitwise_and(lax.bitwise_not(x), y)
    if not dtypes.issubdtype(x.aval.dtype, np.floating):
        return lax.lt(x, y)
    return lax.bitwise_or(lax.lt(x, y), lax.bitwise_and(lax.eq(x, x), lax.ne(y, y)))


def _sort_equal(x: Any, y: Any) -> Any:
    if not dtypes.issubdtype(x.aval.dtype, np.floating):
        return lax.eq(x, y)
    return lax.bitwise_or(lax.eq(x, y), lax.bitwise_and(lax.ne(x, x), lax.ne(y, y)))


def _checked_sort_args(name: str, a: Any, axis: Any, kind: Any, order: Any) -> Any:
    """sort's or argsort's `a` as an array, once `kind`, `order` and a 0-d `a`'s axis are
    checked."""
    # JAX's class (TypeError) for both: stability is asked for with `stable=`.
    if kind is not None:
        raise TypeError(
            f"jnp.{name}: the 'kind' argument is not supported; use stable=True or stable=False"
            f"{mlir.where_suffix()}"
        )
    if order is not None:
        raise TypeError(f"jnp.{name}: the 'order' argument is not supported{mlir.where_suffix()}")
    a = asarray(a)
    if a.aval.ndim == 0 and axis is not None:
        raise ValueError(f"jnp.{name}: axis {axis} is out of bounds for a 0-d array")
    return a


# --- sort / argsort ----------------------------------------------------------------------------


def _sort_operand(a: Any, axis: Any, name: str) -> tuple[Any, int]:
    """(a, axis) for sort or argsort: `a` flattened when `axis` is None, the axis checked."""
    if axis is None:
        a, axis = lax.reshape(a, (a.aval.size,)), 0
    return a, axis_arg(axis, a.aval.ndim, f"jnp.{name}")


def _sort_impl(a, axis, stable, descending):
    a, axis = _sort_operand(a, axis, "sort")
    out = lax.sort(a, dimension=axis, is_stable=stable)
    # Descending is the ascending order reversed: NaNs first, as in JAX.
    return lax.rev(out, (axis,)) if descending else out


_sort = _eager(_sort_impl, static_argnames=("axis", "stable", "descending"))


def sort(
    a: Any,
    axis: int | None = -1,
    *,
    kind: Any = None,
    order: Any = None,
    stable: bool = True,
    descending: bool = False,
) -> Any:
    """A sorted copy of `a` along `axis` (flattened for None): NumPy's `sort`, `stablehlo.sort`.

    NaNs sort last (first when `descending`); complex numbers by real, then imaginary part.
    """
    a = _checked_sort_args("sort", a, axis, kind, order)
    return _sort(a, axis=axis, stable=bool(stable), descending=bool(descending))


def _argsort_impl(a, axis, stable, descending, dtype):
    a, axis = _sort_operand(a, axis, "argsort")
    shape = a.aval.shape
    iota = lax.broadcasted_iota(dtype, shape, axis)
    if not descending:
        return lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)[1]
    # Stable descending: sort the reversed array ascending, reverse back, map the positions.
    _, order = lax.sort((lax.rev(a, (axis,)), iota), dimension=axis, is_stable=stable, num_keys=1)
    last = lax.full(shape, shape[axis] - 1, dtype)
    return lax.sub(last, lax.rev(order, (axis,)))


_argsort = _eager(_argsort_impl, static_argnames=("axis", "stable", "descending", "dtype"))


def argsort(
    a: Any,
    axis: int | None = -1,
    *,
    kind: Any = None,
    order: Any = None,
    stable: bool = True,
    descending: bool = False,
    dtype: Any = None,
) -> Any:
    """The indices that sort `a` along `axis` (NumPy's `argsort`); equal elements keep their
    order when `stable`, also when `descending`."""
    a = _checked_sort_args("argsort", a, axis, kind, order)
    dtype = index_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    return _argsort(a, axis=axis, stable=bool(stable), descending=bool(descending), dtype=dtype)


def _lexsort_impl(keys, axis):
    shape = keys[0].aval.shape
    axis = axis_arg(axis, len(shape), "jnp.lexsort")
    iota = lax.broadcasted_iota(index_dtype(), shape, axis)
    # The last key is the primary one.
    return lax.sort((*keys[::-1], iota), dimension=axis, is_stable=True, num_keys=len(keys))[-1]


_lexsort = _eager(_lexsort_impl, static_argnames=("axis",))


def lexsort(keys: Any, axis: int = -1) -> Any:
    """Indices sorting by several keys, the last one primary (NumPy's `lexsort`)."""
    if hasattr(keys, "aval") or isinstance(keys, np.ndarray):
        keys = asarray(keys)
        if keys.aval.ndim == 0:
            raise TypeError(
                f"jnp.lexsort: keys must be at least 1-dimensional{mlir.where_suffix()}"
            )
        keys = tuple(keys)
    else:
        keys = tuple(asarray(k) for k in sequence(keys, "keys", "jnp.lexsort"))
    if not keys:
        raise TypeError("jnp.lexsort: need at least one key to sort by")
    shapes = {k.aval.shape for k in keys}
    if len(shapes) != 1:
        raise ValueError(f"jnp.lexsort: all keys need to be the same shape, got {sorted(shapes)}")
    if keys[0].aval.ndim == 0:  # scalar keys: one position, whatever the axis, as JAX
        return lax.full((), 0, dtypes.default_int_dtype())
    return _lexsort(keys, axis=axis)


def _check_kth(kth: int, a: Any, axis: int, name: str) -> None:
    axis = axis_arg(axis, a.aval.ndim, f"jnp.{name}")
    n = a.aval.shape[axis]
    if isinstance(kth, (bool, np.bool_)) or not hasattr(kth, "__index__"):
        raise TypeError(f"jnp.{name}: kth must be an integer, got {kth!r}{mlir.where_suffix()}")
    kth = operator.index(kth)
    if not -n <= kth < n:
        raise ValueError(f"jnp.{name}: kth(={kth}) out of bounds for axis of size {n}")


def partition(a: Any, kth: int, axis: int = -1) -> Any:
    """`a` rearranged so that the element at `kth` is where a sort would put it, smaller ones
    before and larger ones after (NumPy's `partition`). As JAX's, the first kth + 1 come in
    ascending order and the rest in descending order (JAX takes the two ends by top_k)."""
    a = asarray(a)
    _check_kth(kth, a, axis, "partition")
    out = _sort(a, axis=axis, stable=True, descending=False)
    axis = axis_arg(axis, a.aval.ndim, "jnp.partition")
    n = a.aval.shape[axis]
    kth = operator.index(kth) % n
    if n - kth - 1 < 2:  # nothing to reverse
        return out
    bottom = lax.slice_in_dim(out, 0, kth + 1, axis=axis)
    top = lax.rev(lax.slice_in_dim(out, kth + 1, n, axis=axis), (axis,))
    return lax.concatenate([bottom, top], axis)


def argpartition(a: Any, kth: int, axis: int = -1) -> Any:
    """The indices that partition `a` around `kth` (NumPy's `argpartition`; a stable argsort)."""
    a = asarray(a)
    _check_kth(kth, a, axis, "argpartition")
    return _argsort(a, axis=axis, stable=True, descending=False, dtype=index_dtype())


def sort_complex(a: Any) -> Any:
    """`a` sorted along its last axis as complex numbers (NumPy's `sort_complex`)."""
    a = asarray(a)
    dtype = a.aval.dtype
    if dtype.kind != "c":
        complex_dtype = np.complex128 if dtype.itemsize >= 8 else np.complex64
        a = lax.convert_element_type(a, dtypes.canonicalize_dtype(complex_dtype))
    return _sort(a, axis=-1, stable=True, descending=False)


# --- searchsorted ------------------------------------------------------------------------------

_SEARCH_METHODS = ("compare_all", "scan", "scan_unrolled", "sort")


def _binary_search(a, v, right):
    # Unrolled bisection: ceil(log2(n + 1)) gathers, each halving [lo, hi).
    n = a.aval.shape[0]
    dtype = index_dtype()
    lo = lax.full(v.aval.shape, 0, dtype)
    hi = lax.full(v.aval.shape, n, dtype)
    one = lax.full(v.aval.shape, 1, dtype)
    for _ in range(int(n).bit_length()):
        active = lax.lt(lo, hi)
        mid = lax.div(lax.add(lo, hi), lax.full(v.aval.shape, 2, dtype))
        pivot = take_1d(a, mid)
        # Move right past `pivot` when it belongs before v: pivot < v (left), pivot <= v (right).
        go_right = lax.bitwise_not(sort_less(v, pivot)) if right else sort_less(pivot, v)
        lo = lax.select(lax.bitwise_and(active, go_right), lax.add(mid, one), lo)
        hi = lax.select(lax.bitwise_and(active, lax.bitwise_not(go_right)), mid, hi)
    return lo


def _compare_all(a, v, right):
    # Count the elements of `a` that sort before each v: one comparison per pair.
    ndim = v.aval.ndim
    shape = (*v.aval.shape, a.aval.shape[0])
    a_b = lax.broadcast_in_dim(a, shape, (ndim,))
    v_b = lax.broadcast_in_dim(v, shape, tuple(range(ndim)))
    before = lax.bitwise_not(sort_less(v_b, a_b)) if right else sort_less(a_b, v_b)
    counts = lax.convert_element_type(before, index_dtype())
    return lax.reduce_sum(counts, (ndim,))


def _sort_search(a, v, right):
    # Merge a and v in one stable sort; each v's position minus the v's before it is the
    # number of a's before it. On ties a's come first for side="right", v's for "left".
    n, m = a.aval.shape[0], v.aval.size
    dtype = index_dtype()
    flat_v = lax.reshape(v, (m,))
    merged = lax.concatenate([a, flat_v] if right else [flat_v, a], 0)
    is_v = lax.concatenate(
        [lax.full((n,), 0, dtype), lax.full((m,), 1, dtype)]
        if right
        else [lax.full((m,), 1, dtype), lax.full((n,), 0, dtype)],
        0,
    )
    origin = lax.iota(dtype, n + m)
    _, is_v_sorted, origin_sorted = lax.sort((merged, is_v, origin), num_keys=1)
    a_before = lax.sub(lax.iota(dtype, n + m), lax.sub(lax.cumsum(is_v_sorted), is_v_sorted))
    # Back to the merged order: a second sort keyed by where each element came from.
    _, result = lax.sort((origin_sorted, a_before), num_keys=1)
    result = lax.slice(result, (n,), (n + m,)) if right else lax.slice(result, (0,), (m,))
    return lax.reshape(result, v.aval.shape)


def _searchsorted_impl(a, v, sorter, side, method):
    # Indices are int32 whenever `a` is short enough, with x64 on too (as JAX).
    out_dtype = dtypes.canonicalize_dtype(np.int32 if a.aval.shape[0] < 2**31 else np.int64)
    if sorter is not None:
        a = take_1d(a, sorter)
    a, v = promote_dtypes(a, v)
    right = side == "right"
    if a.aval.shape[0] == 0:
        return lax.full(v.aval.shape, 0, out_dtype)
    if method == "compare_all":
        out = _compare_all(a, v, right)
    elif method == "sort":
        out = _sort_search(a, v, right)
    else:
        out = _binary_search(a, v, right)
    return lax.convert_element_type(out, out_dtype)


_searchsorted = _eager(_searchsorted_impl, static_argnames=("side", "method"))


def searchsorted(
    a: Any, v: Any, side: str = "left", sorter: Any = None, *, method: str = "scan"
) -> Any:
    """Where to insert `v` into the sorted 1-D `a` to keep it sorted (NumPy's `searchsorted`).

    Args:
      a: a sorted 1-D array (or any 1-D array with `sorter`, the indices that sort it).
      v: the values to place, of any shape.
      side: "left" (first suitable index) or "right" (last).
      sorter: optional indices that sort `a`.
      method: "scan"/"scan_unrolled" (a bisection), "compare_all" (all pairs compared, fast
        for small `a`) or "sort" (one merged sort).

    Returns:
      Integer indices of `v`'s shape. NaNs sort last, as in NumPy.
    """
    # The arrays are checked before side and method, in JAX's order.
    a, v = asarray(a), asarray(v)
    if a.aval.ndim != 1:
        raise ValueError(f"jnp.searchsorted: a should be 1-dimensional, got {a.aval.str_short()}")
    if sorter is not None:
        sorter = asarray(sorter)
        if sorter.aval.dtype.kind not in "iu":
            raise TypeError(
                f"jnp.searchsorted: sorter must be an integer array, got "
                f"{sorter.aval.str_short()}{mlir.where_suffix()}"
            )
        if sorter.aval.ndim != 1:  # NumPy's classes (JAX gathers with whatever it is given)
            raise TypeError(
                f"jnp.searchsorted: sorter must be 1-dimensional, got {sorter.aval.str_short()}"
                f"{mlir.where_suffix()}"
            )
        if sorter.aval.shape != a.aval.shape:
            raise ValueError(
                f"jnp.searchsorted: sorter must have a's length {a.aval.shape[0]}, got "
                f"{sorter.aval.str_short()}{mlir.where_suffix()}"
            )
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    if method not in _SEARCH_METHODS:
        raise ValueError(
            f"invalid argument method={method!r}, expected one of {list(_SEARCH_METHODS)}"
        )
    return _searchsorted(a, v, sorter, side=side, method=method)


# --- nonzero and friends -----------------------------------------------------------------------


def _to_mask(a: Any) -> Any:
    if a.aval.dtype == np.bool_:
        return a
    zero = lax.full((), 0, a.aval.dtype)
    return lax.ne(a, lax.broadcast_in_dim(zero, a.aval.shape, ()))


def _flat_nonzero_positions(mask, size):
    """(first `size` flat indices where mask is true in order, which of them are real)."""
    n = mask.aval.size
    dtype = index_dtype()
    flat = lax.reshape(mask, (n,))
    key = lax.convert_element_type(lax.bitwise_not(flat), np.int8)
    _, order = lax.sort((key, lax.iota(dtype, n)), num_keys=1)
    if size <= n:
        order = lax.slice(order, (0,), (size,))
    else:
        order = lax.pad(order, lax.full((), 0, dtype), [(0, size - n, 0)])
    count = lax.reduce_sum(lax.convert_element_type(flat, dtype), (0,))
    valid = lax.lt(lax.iota(dtype, size), lax.broadcast_in_dim(count, (size,), ()))
    return order, valid


def _nonzero_impl(a, fill_value, size):
    mask = _to_mask(a)
    shape = a.aval.shape
    dtype = index_dtype()
    flat, valid = _flat_nonzero_positions(mask, size)
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
    coords = []
    stride = 1
    for axis in reversed(range(len(shape))):
        # An empty array has no valid position: extents of 1 keep the divisions defined.
        extent = lax.full((size,), builtins.max(shape[axis], 1), dtype)
        coord = lax.rem(lax.div(flat, lax.full((size,), stride, dtype)), extent)
        stride *= builtins.max(shape[axis], 1)
        # As JAX: the indices promote with the fill (a float fill gives float indices).
        coord, fill = promote_dtypes(coord, asarray(fills[axis]))
        coords.append(lax.select(valid, coord, lax.broadcast_in_dim(fill, (size,), ())))
    return tuple(coords[::-1])


_nonzero = _eager(_nonzero_impl, static_argnames=("size",))


def _count_for(a: Any, name: str) -> int:
    mask = concrete_value(a, name, size_hint(name))
    return int(np.count_nonzero(mask))


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple[Any, ...]:
    """The indices of the nonzero elements, one array per dimension (NumPy's `nonzero`).

    Args:
      a: an array of at least one dimension.
      size: the static number of indices to return (required under jit): extra entries take
        `fill_value`, surplus nonzeros are dropped.
      fill_value: the padding index (default 0), a scalar or one per dimension.
    """
    a = asarray(a)
    if a.aval.ndim == 0:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() "
            "instead."
        )
    if size is None:
        size = _count_for(a, "jnp.nonzero")
    size = operator.index(size)
    if fill_value is None or size == 0 or a.aval.size == 0:  # nothing to pad, as JAX
        fill_value = 0
    elif np.ndim(fill_value) != 0 and not isinstance(fill_value, tuple):
        # a list is refused as an array is, as JAX (fill_value=[0] is its ValueError)
        raise ValueError(
            f"jnp.nonzero: fill_value must be a scalar or a tuple of length {a.aval.ndim}; "
            f"got {type(fill_value).__name__} of shape {np.shape(fill_value)}"
            f"{mlir.where_suffix()}"
        )
    elif isinstance(fill_value, tuple) and len(fill_value) != a.aval.ndim:
        raise ValueError(
            f"jnp.nonzero: fill_value must be a scalar or a tuple of length {a.aval.ndim}; "
            f"got {fill_value!r}{mlir.where_suffix()}"
        )
    return _nonzero(a, fill_value, size=size)


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero elements of the flattened array (NumPy's `flatnonzero`)."""
    a = asarray(a)
    flat = lax.reshape(a, (a.aval.size,))
    if size is None:
        size = _count_for(flat, "jnp.flatnonzero")
    return nonzero(flat, size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero elements as rows of a (count, ndim) array (NumPy's
    `argwhere`)."""
    a = asarray(a)
    scalar = a.aval.ndim == 0
    if scalar:
        a = lax.reshape(a, (1,))
    if size is None:
        size = _count_for(a, "jnp.argwhere")
    columns = nonzero(a, size=size, fill_value=fill_value)
    result = lax.concatenate([lax.expand_dims(c, (1,)) for c in columns], 1)
    return lax.slice(result, (0, 0), (result.aval.shape[0], 0)) if scalar else result


def where_nonzero(
    condition: Any, size: int | None = None, fill_value: Any = None
) -> tuple[Any, ...]:
    """One-argument `jnp.where(condition)`: `nonzero(condition)`."""
    return nonzero(condition, size=size, fill_value=fill_value)
