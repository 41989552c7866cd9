"""NumPy functions built on indexing: take, take_along_axis, put, place, compress, extract,
choose, fill_diagonal; the in-place ones of NumPy (put, place, put_along_axis, fill_diagonal)
need `inplace=False`, as in JAX, and return the updated array."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import ConcretizationTypeError, Tracer
from stablax._src.lax._argcheck import (
    axis_arg,
    int_arg,
    sequence,
)
from stablax._src.numpy import _shape, _ufuncs
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import check_arraylike


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
    a = asarray(a)
    indices = asarray(indices)
    if indices.aval.dtype == np.bool_:  # NumPy and JAX take booleans as 0 and 1
        indices = lax.convert_element_type(indices, dtypes.default_int_dtype())
    if axis is None:
        a, axis = _shape.ravel(a), 0
    axis = axis_arg(axis, a.aval.ndim, "jnp.take")
    if mode not in (None, "fill", "clip", "wrap"):  # 'raise' too: after the axis, as JAX
        _mode_and_indices("take", None, 0, mode)
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
