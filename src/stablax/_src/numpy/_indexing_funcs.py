"""NumPy functions built on indexing: take, take_along_axis, put, compress, choose, index helpers.

Functions that only make sense as in-place updates in NumPy (`put`, `place`, `put_along_axis`,
`fill_diagonal`) need `inplace=False`, as in JAX, and return the updated array.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import ConcretizationTypeError, Tracer
from stablax._src.dtype_promotion import result_type
from stablax._src.lax._argcheck import (
    axis_arg,
    check_callable,
    int_arg,
    int_or_int_sequence,
    sequence,
)
from stablax._src.numpy import _shape, _ufuncs
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._creation import asarray, ones, zeros
from stablax._src.numpy._promotion import check_arraylike
from stablax._src.numpy._sorting import nonzero


def _check_int_indices(name: str, indices: Any, error: type = TypeError) -> Any:
    indices = asarray(indices)
    if dtypes.KIND.get(indices.aval.dtype) not in ("i", "u"):  # int4's numpy kind is "V"
        raise error(
            f"jnp.{name}: indices must be of integer type, got {indices.aval.dtype.name}"
            f"{mlir.where_suffix()}"
        )
    return indices


def _inplace_error(name: str) -> ValueError:
    return ValueError(
        f"jnp.{name} cannot modify arrays in-place, because stablax arrays are immutable. Pass "
        f"inplace=False to instead return an updated array{mlir.where_suffix()}."
    )


def _mode_and_indices(name: str, indices: Any, size: int, mode: str | None) -> tuple[Any, str]:
    """JAX's index modes for take/put, as (indices, the gather/scatter mode)."""
    if mode is None or mode == "fill":
        return indices, "fill"
    if mode == "clip":
        return indices, "clip"
    if mode == "wrap":
        return division.remainder(indices, size), "promise_in_bounds"
    if mode == "raise":
        raise NotImplementedError(f"The 'raise' mode to jnp.{name} is not supported.")
    raise ValueError(f"jnp.{name}: invalid mode {mode!r}; expected 'fill', 'clip' or 'wrap'")


def take(
    a: Any,
    indices: Any,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> Any:
    """Elements of `a` at `indices` along `axis` (the flattened `a` when None), as `np.take`.

    Out-of-bounds indices give `fill_value` (NaN, or the most negative integer) by default
    (mode "fill"); "clip" clamps them, "wrap" takes them modulo the size. Negative indices count
    from the end except under "clip". Lowers to one `stablehlo.gather`.
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    if mode not in (None, "fill", "clip", "wrap"):  # 'raise' too: before the indices, as JAX
        _mode_and_indices("take", None, 0, mode)
    a = asarray(a)
    indices = asarray(indices)
    if indices.aval.dtype == np.bool_:  # NumPy and JAX take booleans as 0 and 1
        indices = lax.convert_element_type(indices, dtypes.default_int_dtype())
    if axis is None:
        a, axis = _shape.ravel(a), 0
    axis = axis_arg(axis, a.aval.ndim, "jnp.take")
    if a.aval.shape[axis] == 0 and indices.aval.size:  # NumPy's and JAX's IndexError, first
        raise IndexError(
            f"jnp.take: cannot do a non-empty take from an empty axis of {a.aval.str_short()}"
            f"{mlir.where_suffix()}"
        )
    indices = _check_int_indices("take", indices, ValueError)  # JAX's class
    if dtypes.itemsize_bits(indices.aval.dtype) < 8:  # int4 + size would wrap around
        indices = lax.convert_element_type(indices, dtypes.default_int_dtype())
    indices, gather_mode = _mode_and_indices("take", indices, a.aval.shape[axis], mode)
    index = (slice(None),) * axis + (indices,)
    return a.at[index].get(
        mode=gather_mode,
        fill_value=fill_value,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
        wrap_negative_indices=mode != "clip",
    )


def _along_axis_index(name: str, arr: Any, indices: Any, axis: int) -> tuple:
    """The advanced index `arr[index]` equivalent to NumPy's take_along_axis."""
    shape = arr.aval.shape
    if indices.aval.ndim != len(shape):
        raise ValueError(
            f"jnp.{name}: indices and arr must have the same number of dimensions; "
            f"{indices.aval.ndim} vs. {len(shape)}{mlir.where_suffix()}"
        )
    index = []
    for d, n in enumerate(shape):
        if d == axis:
            index.append(indices)
        else:
            index.append(np.arange(n).reshape([n if e == d else 1 for e in range(len(shape))]))
    return tuple(index)


def take_along_axis(
    arr: Any,
    indices: Any,
    axis: int | None = -1,
    mode: str | lax.GatherScatterMode | None = None,
    fill_value: Any = None,
    *,
    wrap_negative_indices: bool | None = None,
) -> Any:
    """`np.take_along_axis`: picks `indices` along `axis`, broadcasting the other dimensions.

    Out-of-bounds indices give `fill_value` (NaN by default) as in JAX; negative ones count from
    the end when `wrap_negative_indices` is true (None: JAX's legacy default, true unless mode is
    'promise_in_bounds'). Lowers to one `stablehlo.gather`.
    """
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    arr = asarray(arr)
    indices = _check_int_indices("take_along_axis", indices)
    if dtypes.itemsize_bits(indices.aval.dtype) < 8:  # int4: indexing computes in int32
        indices = lax.convert_element_type(indices, dtypes.default_int_dtype())
    if axis is None:
        arr, axis = _shape.ravel(arr), 0
        indices = _shape.ravel(indices)
    axis = axis_arg(axis, arr.aval.ndim, "jnp.take_along_axis")
    index = _along_axis_index("take_along_axis", arr, indices, axis)
    return arr.at[index].get(
        mode="fill" if mode is None else mode,
        fill_value=fill_value,
        wrap_negative_indices=wrap_negative_indices,
    )


def put_along_axis(
    arr: Any,
    indices: Any,
    values: Any,
    axis: int | None,
    inplace: bool = True,
    *,
    mode: str | None = None,
) -> Any:
    """`np.put_along_axis` as a pure function (needs `inplace=False`); a `stablehlo.scatter`."""
    if inplace:
        raise _inplace_error("put_along_axis")
    arr, indices = asarray(arr), asarray(indices)
    # The shapes before the index dtype, as JAX; with axis=None the indices are not flattened
    # (NumPy and JAX ask for 1-D ones).
    ndim = 1 if axis is None else arr.aval.ndim
    if indices.aval.ndim != ndim:
        raise ValueError(
            f"jnp.put_along_axis: 'arr' and 'indices' must have the same number of dimensions "
            f"(1 with axis=None), got arr {arr.aval.str_short()} and indices "
            f"{indices.aval.str_short()}{mlir.where_suffix()}"
        )
    values = asarray(values)
    try:
        fits = np.broadcast_shapes(values.aval.shape, indices.aval.shape) == indices.aval.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"jnp.put_along_axis: values of shape {values.aval.shape} must broadcast to the "
            f"indices' shape {indices.aval.shape}{mlir.where_suffix()}"
        )
    indices = _check_int_indices("put_along_axis", indices)
    if axis is None:
        flat = put_along_axis(_shape.ravel(arr), indices, values, 0, False, mode=mode)
        return _shape.reshape(flat, arr.aval.shape)
    axis = axis_arg(axis, arr.aval.ndim, "jnp.put_along_axis")
    index = _along_axis_index("put_along_axis", arr, indices, axis)
    return arr.at[index].set(values, mode=mode)


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
    """`np.put` as a pure function (needs `inplace=False`): sets the flat positions `ind` to `v`.

    `v` repeats cyclically when shorter than `ind`; out-of-bounds positions are clamped (the
    default, mode=None, after negative ones count from the end, as JAX; or "clip") or wrapped
    ("wrap"). As JAX, an empty `a`, `ind` or
    `v` gives `a` before the mode and the indices' type are checked.
    """
    if inplace:
        raise _inplace_error("put")
    a, ind, v = asarray(a), _shape.ravel(asarray(ind)), _shape.ravel(asarray(v))
    count, size = ind.aval.shape[0], a.aval.size
    if v.aval.size == 0 or count == 0 or size == 0:
        return a
    if mode == "raise":  # the mode before the indices, as JAX
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    if mode not in (None, "clip", "wrap"):
        raise ValueError(f"jnp.put: mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    ind = _check_int_indices("put", ind)
    if v.aval.size != count:
        v = take(v, np.arange(count) % v.aval.size)
    if mode is None:  # JAX's default: a negative index counts from the end, then all clip
        scatter_mode, wrap = "clip", True
    else:
        ind, scatter_mode = _mode_and_indices("put", ind, size, mode)
        wrap = mode != "clip"
    flat = _shape.ravel(a).at[ind].set(v, mode=scatter_mode, wrap_negative_indices=wrap)
    return _shape.reshape(flat, a.aval.shape)


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
    """`np.place` as a pure function (needs `inplace=False`): the elements where `mask` is True
    take `vals` in order, repeating cyclically. Works on traced masks (a running count)."""
    arr = asarray(arr)
    asarray(mask), asarray(vals)  # every argument an array first, in JAX's order
    if inplace:
        raise _inplace_error("place")
    mask = _ufuncs.not_equal(_shape.ravel(asarray(mask)), False)
    if mask.aval.size != arr.aval.size:  # as NumPy and JAX
        raise ValueError(
            f"jnp.place: arr and mask must be the same size, got {arr.aval.size} and "
            f"{mask.aval.size} elements{mlir.where_suffix()}"
        )
    vals = _shape.ravel(asarray(vals, dtype=arr.aval.dtype))
    if vals.aval.size == 0:  # as JAX, even where nothing is to be placed
        raise ValueError(f"jnp.place: cannot place values from an empty array{mlir.where_suffix()}")
    order = lax.sub(lax.cumsum(lax.convert_element_type(mask, np.int32)), 1)
    picked = take(vals, division.remainder(order, vals.aval.size), mode="clip")
    flat = _ufuncs.where(mask, picked, _shape.ravel(arr))
    flat = lax.convert_element_type(flat, arr.aval.dtype, weak_type=arr.aval.weak_type)
    return _shape.reshape(flat, arr.aval.shape)  # arr's dtype and weak type, as JAX's scatter


# --- selecting by a boolean condition ----------------------------------------------------------


def _sized_positions(condition: Any, size: int) -> Any:
    """The first `size` positions where the 1-D `condition` holds; the length marks the rest."""
    n = condition.aval.shape[0]
    hits = lax.convert_element_type(condition, np.int32)
    slot = _ufuncs.where(condition, lax.sub(lax.cumsum(hits), 1), size)
    positions = lax.full((size,), n, np.int32)
    return positions.at[slot].set(np.arange(n, dtype=np.int32))


def compress(
    condition: Any,
    a: Any,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: Any = 0,
    out: None = None,
) -> Any:
    """`np.compress`: the slices of `a` along `axis` where `condition` is true.

    The result's length depends on `condition`, so it must be concrete unless `size` is given:
    then the first `size` selected slices are kept and missing ones are `fill_value`.
    """
    # The three array arguments first (TypeError for a list, a string, an object), as JAX.
    check_arraylike("compress", condition, a, fill_value)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    a, condition = asarray(a), asarray(condition)
    if condition.aval.ndim != 1:  # JAX's class
        raise ValueError(
            f"jnp.compress: condition must be a 1-D array, got shape {condition.aval.shape}"
            f"{mlir.where_suffix()}"
        )
    condition = _ufuncs.not_equal(condition, False)
    if axis is None:
        a, axis = _shape.ravel(a), 0
    axis = axis_arg(axis, a.aval.ndim, "jnp.compress")
    n, length = a.aval.shape[axis], condition.aval.shape[0]
    # Entries past the shorter of the two cannot be selected (JAX cuts both to it).
    bound = min(n, length)
    if size is not None:
        # JAX compares size with the axis before using it as an integer: 1.5 past it is a
        # ValueError, 0.5 a TypeError.
        if not isinstance(size, (float, np.floating)) or 0 <= size <= bound:
            size = int_arg(size, "size", "jnp.compress")
        if not 0 <= size <= bound:  # JAX's check and class
            raise ValueError(
                "size must be positive and not greater than the size of the array axis; got "
                f"size={size} for a.shape[axis]={bound}"
            )
    concrete = _concrete_or_none(condition)
    if concrete is None:
        if size is None:
            raise ConcretizationTypeError(
                f"jnp.compress: the condition {condition.aval.str_short()} must be concrete "
                f"(its number of true entries sets the result shape){mlir.where_suffix()}. "
                "Pass size= for a fixed result length, or use jnp.where."
            )
        positions = _sized_positions(condition[:bound], size)  # `bound` marks a missing slot
    else:
        if size is None:
            if length > n and concrete[n:].any():
                raise ValueError("condition contains entries that are out of bounds")
            # Nothing to fill: fill_value is unused.
            return take(a, np.flatnonzero(concrete[:n]), axis=axis)
        positions = np.flatnonzero(concrete[:bound])
        positions = np.concatenate([positions[:size], np.full(size, bound)])[:size]
        positions = asarray(positions.astype(np.int32))
    # Missing slots take fill_value, which broadcasts with the slices (axis first) both ways, as
    # JAX's where: a (3,) fill widens slices of size 1 along the last axis to 3.
    fill = lax.convert_element_type(asarray(fill_value), a.aval.dtype)
    slots = take(_shape.moveaxis(a, axis, 0), positions, axis=0, mode="clip")
    if bound == 1 and 1 <= fill.aval.ndim == slots.aval.ndim and fill.aval.shape[0] > 1:
        # JAX's where widens the one slice to the fill's rows, of which it keeps the first.
        fill = lax.slice_in_dim(fill, 0, 1, axis=0)
    pairs = list(zip(fill.aval.shape[::-1], slots.aval.shape[::-1]))
    if (
        fill.aval.ndim > slots.aval.ndim
        or any(f != s and 1 not in (f, s) for f, s in pairs[: slots.aval.ndim - 1])
        or (fill.aval.ndim == slots.aval.ndim and fill.aval.shape[0] != 1)
    ):
        raise ValueError(
            f"jnp.compress: fill_value of shape {fill.aval.shape} does not broadcast to the "
            f"selected slices, of shape {slots.aval.shape} (axis first){mlir.where_suffix()}"
        )
    missing = lax.eq(positions, lax.full_like(positions, bound))
    missing = lax.broadcast_in_dim(missing, (size,) + (1,) * (slots.aval.ndim - 1), (0,))
    return _shape.moveaxis(_ufuncs.where(missing, fill, slots), 0, axis)


def _concrete_or_none(x: Any) -> np.ndarray | None:
    if isinstance(x, Tracer):
        try:
            return np.asarray(x._trace.concrete_value(x, "a condition"))
        except ConcretizationTypeError:
            return None
    return np.asarray(x)


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """`np.extract`: the elements of `arr` where `condition` is true, flattened (see compress)."""
    condition, arr = _shape.ravel(asarray(condition)), _shape.ravel(asarray(arr))
    return compress(condition, arr, size=size, fill_value=fill_value)


def choose(a: Any, choices: Any, out: None = None, mode: str = "raise") -> Any:
    """`np.choose`: `choices[a[i]][i]`, broadcasting `a` and every choice.

    mode "raise" checks the indices, so they must be concrete; "clip" and "wrap" work traced.
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    a = asarray(a)
    # The choices first, then the indices' type: JAX's order.
    choices = [asarray(c) for c in sequence(choices, "choices", "jnp.choose")]
    if not choices:  # NumPy's class ("0-length sequence")
        raise ValueError(f"jnp.choose: choices must not be empty{mlir.where_suffix()}")
    if a.aval.dtype.kind not in "iu":  # JAX's class
        raise ValueError(
            f"jnp.choose: indices must be of integer type, got {a.aval.dtype.name}"
            f"{mlir.where_suffix()}"
        )
    n = len(choices)
    if mode == "raise":
        concrete = _concrete_or_none(a)
        if concrete is None:
            raise ConcretizationTypeError(
                f"jnp.choose: mode='raise' needs concrete indices, got {a.aval.str_short()}"
                f"{mlir.where_suffix()}. Use mode='wrap' or mode='clip' instead."
            )
        if np.any((concrete < 0) | (concrete >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = division.remainder(a, n)
    elif mode == "clip":
        a = _ufuncs.clip(a, 0, n - 1)
    else:
        raise ValueError(f"jnp.choose: invalid mode {mode!r}; expected 'raise', 'wrap' or 'clip'")
    a, *choices = _shape.broadcast_arrays(a, *choices)
    stacked = _shape.stack(choices)
    return take_along_axis(stacked, _shape.expand_dims(a, 0), axis=0, mode="clip")[0]


# --- index arrays ------------------------------------------------------------------------------


def _index_array(values: np.ndarray) -> Any:
    return asarray(np.asarray(values, dtype=dtypes.default_int_dtype()))


def diag_indices(n: int, ndim: int = 2) -> tuple[Any, ...]:
    """`np.diag_indices`: `ndim` copies of `arange(n)`, indexing the main diagonal."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0 or ndim < 0:
        raise ValueError(f"n and ndim must be non-negative, got n={n}, ndim={ndim}")
    return (_index_array(np.arange(n)),) * ndim


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    """`np.diag_indices_from`: the main-diagonal indices of an array with all sides equal."""
    check_arraylike("diag_indices_from", arr)  # before the shape, in JAX's order
    shape = np.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def _triangle_indices(np_fn: Callable, n: int, k: int, m: int | None) -> tuple[Any, Any]:
    n, k, m = operator.index(n), operator.index(k), None if m is None else operator.index(m)
    if n < 0 or (m is not None and m < 0):  # JAX builds them from a mask of shape (n, m)
        raise TypeError(
            f"jnp.{np_fn.__name__}: shape must have every element be nonnegative, got "
            f"{(n, n if m is None else m)}{mlir.where_suffix()}"
        )
    rows, cols = np_fn(n, k, m)
    return _index_array(rows), _index_array(cols)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """`np.tril_indices`: row and column indices of the lower triangle (diagonal offset k)."""
    return _triangle_indices(np.tril_indices, n, k, m)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """`np.triu_indices`: row and column indices of the upper triangle (diagonal offset k)."""
    return _triangle_indices(np.triu_indices, n, k, m)


def _shape_2d(arr: Any, name: str) -> tuple[int, int]:
    if isinstance(arr, (str, bytes)):  # JAX's asarray rejects them (TypeError)
        raise TypeError(f"jnp.{name}: expected an array, got {type(arr).__name__}")
    check_arraylike(name, arr)  # None and other non-arrays: JAX's TypeError, before the shape
    shape = np.shape(arr) if not hasattr(arr, "shape") else tuple(arr.shape)
    if len(shape) != 2:
        raise ValueError(f"jnp.{name}: only 2-D inputs are accepted, got shape {shape}")
    return shape


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """`np.tril_indices_from`: `tril_indices` for the shape of a 2-D array."""
    rows, cols = _shape_2d(arr, "tril_indices_from")
    return tril_indices(rows, k, cols)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """`np.triu_indices_from`: `triu_indices` for the shape of a 2-D array."""
    rows, cols = _shape_2d(arr, "triu_indices_from")
    return triu_indices(rows, k, cols)


def mask_indices(
    n: int, mask_func: Callable[[Any, int], Any], k: int = 0, *, size: int | None = None
) -> tuple[Any, Any]:
    """`np.mask_indices`: the indices where `mask_func(ones((n, n)), k)` is non-zero."""
    check_callable("jnp.mask_indices", mask_func, "mask_func")
    n = operator.index(n)
    mask = mask_func(ones((n, n)), k)  # JAX's: a float array (lax functions check its dtype)
    check_arraylike("jnp.mask_indices: nonzero of mask_func's result", mask)  # JAX's class
    # jnp.nonzero, as JAX: a traced mask works under jit when `size` is given.
    rows, cols = nonzero(mask, size=size)
    return rows, cols


def ix_(*args: Any) -> tuple[Any, ...]:
    """`np.ix_`: 1-D index arrays reshaped to an open mesh (`x[ix_(rows, cols)]`)."""
    check_arraylike("jnp.ix_", *args)  # every argument before any shape, as JAX
    out = []
    for i, arg in enumerate(args):
        arg = asarray(arg)
        if arg.aval.ndim != 1:
            raise ValueError(
                f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {arg.aval.shape}"
            )
        if arg.aval.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[i] = arg.aval.shape[0]
        if arg.aval.size == 0:  # NumPy and JAX: an empty index is of the integer index type
            arg = zeros((0,), dtypes.default_int_dtype())
        out.append(_shape.reshape(arg, shape))
    return tuple(out)


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple[Any, ...]:
    """`np.unravel_index`: flat indices to coordinates in `shape` (C order).

    Unlike NumPy (and as JAX does), out-of-bounds indices are clamped after negative ones wrap.
    """
    indices = asarray(indices)
    if indices.aval.dtype == np.bool_:  # NumPy takes booleans as 0 and 1 (JAX: weak ints)
        indices = lax.convert_element_type(indices, dtypes.default_int_dtype(), weak_type=True)
    indices = _check_int_indices("unravel_index", indices)
    shape = int_or_int_sequence(shape, "shape", "jnp.unravel_index")
    if any(d < 0 for d in shape):
        raise ValueError(
            f"jnp.unravel_index: shape must be non-negative, got {tuple(shape)}"
            f"{mlir.where_suffix()}"
        )
    size = int(np.prod(shape, dtype=np.int64))
    dtype, weak = indices.aval.dtype, indices.aval.weak_type
    if dtypes.itemsize_bits(dtype) < 8:  # int4: computed in int32 (XLA has no int4 remainder)
        indices = lax.convert_element_type(indices, np.int32)
    if size == 0 and indices.aval.size:  # NumPy: "index 0 is out of bounds for array with size 0"
        raise ValueError(
            f"jnp.unravel_index: every index is out of bounds for shape {tuple(shape)} of size "
            f"0 (indices {indices.aval.str_short()}){mlir.where_suffix()}"
        )
    wrapped = _ufuncs.where(_ufuncs.less(indices, 0), _ufuncs.add(indices, size), indices)
    flat = _ufuncs.clip(wrapped, 0, max(size - 1, 0))
    coords = []
    for d in reversed(shape):
        coords.append(lax.convert_element_type(division.remainder(flat, d), dtype, weak_type=weak))
        flat = division.floor_divide(flat, d)
    return tuple(reversed(coords))


def ravel_multi_index(
    multi_index: Sequence[Any],
    dims: Sequence[int],
    mode: str = "raise",
    order: str = "C",
    *,
    dtype: Any = None,
) -> Any:
    """`np.ravel_multi_index`: coordinates in `dims` to flat indices (order "C" or "F").

    mode "raise" checks the coordinates, so they must be concrete; "clip"/"wrap" work traced.
    """
    dims = int_or_int_sequence(dims, "dims", "jnp.ravel_multi_index")
    if hasattr(multi_index, "aval") or isinstance(multi_index, np.ndarray):
        multi_index = list(asarray(multi_index)) if np.ndim(multi_index) else [multi_index]
    multi_index = sequence(multi_index, "multi_index", "jnp.ravel_multi_index")
    if len(multi_index) != len(dims):
        raise ValueError(
            f"jnp.ravel_multi_index: {len(multi_index)} coordinate arrays for {len(dims)} dims"
        )
    # As JAX: the result dtype (by default the coordinates' promoted with a weak int) is
    # checked before the coordinates are.
    multi_index = [asarray(c) for c in multi_index]
    if dtype is None:
        dtype = result_type(int, *multi_index)
    else:
        dtype = dtypes.check_user_dtype(dtype, "jnp.ravel_multi_index", warn=True)
    if dtypes.KIND.get(dtype) not in ("i", "u"):
        raise ValueError(f"jnp.ravel_multi_index: dtype={dtype!r} is not an integer type.")
    if math.prod(dims) - 1 > dtypes.iinfo(dtype).max:
        raise ValueError(
            f"jnp.ravel_multi_index: dtype={dtype!r} not large enough to hold flattened index "
            f"for dims={dims}. Use the dtype argument to pass a suitable dtype."
        )
    coords = [_check_int_indices("ravel_multi_index", c) for c in multi_index]
    if mode == "raise":
        for c, d in zip(coords, dims, strict=True):
            concrete = _concrete_or_none(c)
            if concrete is None:
                raise ConcretizationTypeError(
                    "jnp.ravel_multi_index: mode='raise' needs concrete coordinates, got "
                    f"{c.aval.str_short()}{mlir.where_suffix()}. Use mode='wrap' or mode='clip'."
                )
            if np.any((concrete < 0) | (concrete >= d)):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "wrap":
        coords = [division.remainder(c, d) for c, d in zip(coords, dims, strict=True)]
    elif mode == "clip":
        coords = [_ufuncs.clip(c, 0, d - 1) for c, d in zip(coords, dims, strict=True)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip' or 'ignore'")
    if order not in ("C", "F"):  # last, as JAX
        raise ValueError("only 'C' or 'F' order is permitted")
    order_dims = range(len(dims)) if order == "F" else reversed(range(len(dims)))
    result, stride = None, 1
    for i in order_dims:
        term = _ufuncs.multiply(asarray(coords[i], dtype=dtype), stride)
        result = term if result is None else _ufuncs.add(result, term)
        stride *= dims[i]
    return zeros((), dtype) if result is None else result


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    """`np.fill_diagonal` as a pure function (needs `inplace=False`): the main diagonal set to
    `val`, repeating cyclically (the sides must be equal beyond two dimensions)."""
    if inplace:
        raise NotImplementedError("stablax arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    check_arraylike("jnp.fill_diagonal", a, val)  # both, before the shape checks (JAX's order)
    a = asarray(a)
    shape = a.aval.shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(shape)
    val = _shape.ravel(asarray(val))
    if val.aval.size == 0:
        return a
    if val.aval.size != n:
        val = take(val, np.arange(n) % val.aval.size)
    diagonal = np.arange(n)
    return a.at[(diagonal,) * len(shape)].set(val)
