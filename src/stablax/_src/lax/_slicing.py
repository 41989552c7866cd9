"""Slices at runtime offsets: dynamic_slice and dynamic_update_slice (start indices clamped into
range, as XLA does), and their in-dim conveniences. Gathers and scatters live in `_gather.py` and
`_scatter.py`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind, weak_scalar
from stablax._src.interpreters.ad import is_undefined
from stablax._src.interpreters.batching import bdim_at_front, moveaxis
from stablax._src.lax._argcheck import RANK, axis_arg, lax_ints, sequence
from stablax._src.lax._elementwise import (
    add,
    lt,
    select,
)
from stablax._src.lax._elementwise_common import _scalar_operand
from stablax._src.lax._gather_scatter_dims import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    _clamp_indices,
    _index_dtype,
    _is_int,
    _value_error,
    _window_bounds,
)
from stablax._src.lax._reduce_bodies import int_tuple
from stablax._src.lax._reshape_axes import (
    expand_dims,
    squeeze,
)
from stablax._src.lax._shapes import (
    _error as _type_error,
)
from stablax._src.lax._shapes import broadcast_in_dim, convert_element_type, full
from stablax._src.lax._slice_pad import (
    concatenate,
    index_in_dim,
)
from stablax._src.op_rules import attribute_lowering, def_op


def _zeros(shape: Sequence[int], dtype: np.dtype) -> Any:
    return full(shape, 0, dtype)


def _zeros_like(x: Any) -> Any:
    aval = aval_of(x)
    return full(aval.shape, 0, aval.dtype)


# --- start indices -----------------------------------------------------------------------------


def _split_indices(start_indices: Any, opname: str) -> list[Any]:
    """A sequence of scalar indices, or a 1-D integer array, as a list of scalars."""
    aval = getattr(start_indices, "aval", None)
    if aval is None and not isinstance(start_indices, np.ndarray):
        return sequence(start_indices, "start_indices", f"lax.{opname}")
    aval = aval_of(start_indices)
    if aval.ndim != 1:
        raise _type_error(
            opname,
            f"start_indices must be a sequence of scalars or a 1-D array, got {aval.str_short()}",
        )
    if isinstance(start_indices, np.ndarray):
        return list(start_indices)
    return [index_in_dim(start_indices, i, keepdims=False) for i in range(aval.shape[0])]


def _start_operands(
    opname: str,
    start_indices: Any,
    shape: Sequence[int],
    window: Sequence[int],
    allow_negative: bool | Sequence[bool],
) -> list[Any]:
    """Scalar start indices of one integer dtype; negative ones wrap by the dimension size.

    Static (Python/NumPy) integers are wrapped and clamped here, traced ones by lax ops.
    """
    indices = _split_indices(start_indices, opname)
    if len(indices) != len(shape):
        raise _value_error(
            opname,
            f"got {len(indices)} start indices for an operand of rank "
            f"{len(shape)} (shape {tuple(shape)})",
        )
    if isinstance(allow_negative, (bool, np.bool_)):
        allow_negative = (bool(allow_negative),) * len(shape)
    elif not isinstance(allow_negative, (list, tuple)):
        raise _type_error(
            opname,
            "allow_negative_indices must be a bool or a sequence of bools, got "
            f"{type(allow_negative).__name__}",
        )
    elif len(allow_negative) != len(shape):
        raise _value_error(
            opname,
            f"allow_negative_indices {allow_negative} needs one entry per "
            f"dimension of shape {tuple(shape)}",
        )
    static = [_static_int(i) for i in indices]
    dynamic = [aval_of(i) for i, s in zip(indices, static, strict=True) if s is None]
    for aval in dynamic:
        if aval.shape != () or not _is_int(aval):
            raise _type_error(
                opname,
                "start indices must be integer scalars, got "
                f"{', '.join(aval_of(i).str_short() for i in indices)}",
            )
    dtype = _index_dtype(dynamic)
    result = []
    for i, s, dim, size, wrap in zip(indices, static, shape, window, allow_negative, strict=True):
        if s is not None:
            if s < 0 and not wrap:
                raise _value_error(
                    opname,
                    f"start index {s} is negative (dimension size {dim}) and "
                    "allow_negative_indices is False",
                )
            s = s + dim if s < 0 else s
            # The clamp XLA applies anyway, done here so that the constant fits the index dtype.
            result.append(weak_scalar(min(max(s, 0), max(dim - size, 0)), dtype, False))
            continue
        signed = aval_of(i).dtype.kind == "i"
        i = convert_element_type(i, dtype)
        if wrap and signed:
            i = select(lt(i, 0), add(i, dim), i)
        result.append(i)
    return result


def _static_int(x: Any) -> int | None:
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return operator.index(x)
    return None


def _check_start_indices(opname: str, x: ShapedArray, indices: Sequence[ShapedArray]) -> None:
    if len(indices) != x.ndim:
        raise _value_error(opname, f"got {len(indices)} start indices for {x.str_short()}")
    if any(i.shape != () or not _is_int(i) for i in indices) or len({i.dtype for i in indices}) > 1:
        raise _type_error(
            opname,
            "start indices must be integer scalars of one dtype, got "
            f"{', '.join(i.str_short() for i in indices)}",
        )


# --- dynamic_slice and dynamic_update_slice ----------------------------------------------------
# The public functions check with their own name (the *_in_dim ones too) before any index
# arithmetic; the shape rules repeat the checks for the rewrites, which call `bind` directly.


def _check_static_negative(
    opname: str, start_indices: Any, shape: Sequence[int], allow_negative: Any
) -> None:
    # A negative static start index where negative ones are not allowed: ValueError, checked
    # with the indices, before the sizes and the update, as JAX.
    indices = _split_indices(start_indices, opname)
    if isinstance(allow_negative, (bool, np.bool_)):
        allow_negative = (bool(allow_negative),) * len(shape)
    if not isinstance(allow_negative, (list, tuple)) or len(allow_negative) != len(shape):
        return  # _start_operands refuses it
    for i, dim, wrap in zip(indices, shape, allow_negative, strict=True):
        s = _static_int(i)
        if s is not None and s < 0 and not wrap:
            raise _value_error(
                opname,
                f"start index {s} is negative (dimension size {dim}) and "
                "allow_negative_indices is False",
            )


def _check_index_count(opname: str, start_indices: Any, shape: Sequence[int]) -> None:
    # Checked before the sizes and the update, as JAX does (ValueError).
    count = len(_split_indices(start_indices, opname))
    if count != len(shape):
        raise _value_error(
            opname,
            f"got {count} start indices for an operand of rank {len(shape)} (shape {tuple(shape)})",
        )


def _check_slice_sizes(opname: str, x: ShapedArray, slice_sizes: Sequence[int]) -> None:
    if len(slice_sizes) != x.ndim:  # JAX's class
        raise _value_error(
            opname,
            f"slice_sizes {tuple(slice_sizes)} must have one entry per dimension of "
            f"{x.str_short()}",
        )
    if any(not 0 <= s <= d for s, d in zip(slice_sizes, x.shape, strict=True)):
        raise _type_error(
            opname,
            f"slice_sizes {tuple(slice_sizes)} must have one entry in "
            f"[0, dim] per dimension of {x.str_short()}",
        )


def _check_update(opname: str, x: ShapedArray, update: ShapedArray) -> None:
    if update.dtype != x.dtype:
        raise _type_error(
            opname,
            "operand and update must have the same dtype, got "
            f"{x.str_short()} and {update.str_short()}",
        )
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape, strict=True)):
        raise _type_error(
            opname,
            f"update {update.str_short()} must have the operand's rank and "
            f"fit in the operand {x.str_short()}",
        )


def _dynamic_slice_rule(x: ShapedArray, *start_indices: ShapedArray, slice_sizes) -> ShapedArray:
    _check_start_indices("dynamic_slice", x, start_indices)
    _check_slice_sizes("dynamic_slice", x, slice_sizes)
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *indices = primals
    out = bind("stablehlo.dynamic_slice", x, *indices, slice_sizes=slice_sizes)
    t = tangents[0]
    return out, None if t is None else bind(
        "stablehlo.dynamic_slice", t, *indices, slice_sizes=slice_sizes
    )


def _dynamic_slice_transpose(ct, x, *indices, slice_sizes):
    zeros = _zeros(x.aval.shape, aval_of(ct).dtype)
    return [bind("stablehlo.dynamic_update_slice", zeros, ct, *indices)] + [None] * len(indices)


def _dynamic_update_slice_rule(
    x: ShapedArray, update: ShapedArray, *start_indices: ShapedArray
) -> ShapedArray:
    _check_update("dynamic_update_slice", x, update)
    _check_start_indices("dynamic_update_slice", x, start_indices)
    return x


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *indices = primals
    t_x, t_update = (_zeros_like(p) if t is None else t for p, t in zip(primals, tangents[:2]))
    return bind("stablehlo.dynamic_update_slice", x, update, *indices), bind(
        "stablehlo.dynamic_update_slice", t_x, t_update, *indices
    )


def _dynamic_update_slice_transpose(ct, x, update, *indices):
    shape = update.aval.shape
    t_x = t_update = None
    if is_undefined(x):
        zeros = _zeros(shape, aval_of(ct).dtype)
        t_x = bind("stablehlo.dynamic_update_slice", ct, zeros, *indices)
    if is_undefined(update):
        t_update = bind("stablehlo.dynamic_slice", ct, *indices, slice_sizes=shape)
    return [t_x, t_update] + [None] * len(indices)


# Batching: with unbatched start indices the batch dim is one more sliced dim, starting at 0;
# with batched ones, every example has its own window, a gather (or scatter) over the batch.


def _zero_start(starts: Sequence[Any]) -> Any:
    dtype = aval_of(starts[0]).dtype if starts else np.dtype(np.int32)
    return weak_scalar(0, dtype, False)


def _batched_at(x: Any, dim: int | None, target: int, axis_size: int) -> Any:
    """x with its batch dim at `target`, broadcasting an unbatched x."""
    if dim is not None:
        return moveaxis(x, dim, target)
    shape = aval_of(x).shape
    out_dims = tuple(d for d in range(len(shape) + 1) if d != target)
    return broadcast_in_dim(x, (*shape[:target], axis_size, *shape[target:]), out_dims)


def _stacked_starts(starts: Sequence[Any], dims: Sequence[int | None], axis_size: int) -> Any:
    """The scalar start indices as one (batch, n) array of index vectors."""
    columns = [
        broadcast_in_dim(s, (axis_size, 1), () if d is None else (0,))
        for s, d in zip(starts, dims, strict=True)
    ]
    return concatenate(columns, 1)


def _dynamic_slice_batch(values, dims, *, axis_size, slice_sizes):
    (x, *starts), (x_dim, *start_dims) = values, dims
    if all(d is None for d in start_dims):
        starts.insert(x_dim, _zero_start(starts))
        sizes = list(slice_sizes)
        sizes.insert(x_dim, axis_size)
        return bind("stablehlo.dynamic_slice", x, *starts, slice_sizes=tuple(sizes)), x_dim
    # Gather clamps windows into bounds exactly as dynamic_slice does.
    indices = _stacked_starts(starts, start_dims, axis_size)
    window = tuple(range(1, len(slice_sizes) + 1))
    if x_dim is None:
        dn = GatherDimensionNumbers(window, (), tuple(range(len(slice_sizes))))
        sizes = tuple(slice_sizes)
    else:
        x = moveaxis(x, x_dim, 0)
        dn = GatherDimensionNumbers(window, (), window, (0,), (0,))
        sizes = (min(axis_size, 1), *slice_sizes)  # 0 for an empty batch
    out = bind(
        "stablehlo.gather",
        x,
        indices,
        dimension_numbers=dn,
        slice_sizes=sizes,
        indices_are_sorted=False,
    )
    return out, 0


def _dynamic_update_slice_batch(values, dims, *, axis_size):
    (x, update, *starts), (x_dim, update_dim, *start_dims) = values, dims
    if all(d is None for d in start_dims):
        b = x_dim if x_dim is not None else 0
        x = _batched_at(x, x_dim, b, axis_size)
        update = _batched_at(update, update_dim, b, axis_size)
        starts.insert(b, _zero_start(starts))
        return bind("stablehlo.dynamic_update_slice", x, update, *starts), b
    x = bdim_at_front(x, x_dim, axis_size)
    update = bdim_at_front(update, update_dim, axis_size)
    indices = _stacked_starts(starts, start_dims, axis_size)
    window = tuple(range(1, len(starts) + 1))
    # dynamic_update_slice clamps the window into bounds where scatter would drop it.
    upper = _window_bounds(aval_of(x).shape, window, aval_of(update).shape, aval_of(indices).dtype)
    out = bind(
        "stablehlo.scatter",
        x,
        _clamp_indices(indices, upper),
        update,
        computation="replace",
        dimension_numbers=ScatterDimensionNumbers(window, (), window, (0,), (0,)),
        indices_are_sorted=True,
        unique_indices=True,
    )
    return out, 0


def_op(
    "stablehlo.dynamic_slice",
    _dynamic_slice_rule,
    attribute_lowering("stablehlo.dynamic_slice", slice_sizes=("slice_sizes", mlir.i64_array)),
    decode=lambda op: {"slice_sizes": int_tuple(op.attributes["slice_sizes"])},
    jvp=_dynamic_slice_jvp,
    transpose=_dynamic_slice_transpose,
    batch=_dynamic_slice_batch,
)


def_op(
    "stablehlo.dynamic_update_slice",
    _dynamic_update_slice_rule,
    jvp=_dynamic_update_slice_jvp,
    transpose=_dynamic_update_slice_transpose,
    batch=_dynamic_update_slice_batch,
)


def _dynamic_slice(
    opname: str,
    operand: Any,
    start_indices: Any,
    slice_sizes: Sequence[int],
    allow_negative: bool | Sequence[bool],
) -> Any:
    aval = aval_of(operand)
    _check_index_count(opname, start_indices, aval.shape)  # before the sizes, as JAX
    _check_static_negative(opname, start_indices, aval.shape, allow_negative)
    sizes = lax_ints(slice_sizes, "slice_sizes", opname)
    _check_slice_sizes(opname, aval, sizes)
    indices = _start_operands(opname, start_indices, aval.shape, sizes, allow_negative)
    if not aval.shape and hasattr(operand, "aval"):
        return operand  # nothing to slice; XLA's parser rejects an empty `sizes` list
    return bind("stablehlo.dynamic_slice", operand, *indices, slice_sizes=sizes)


def _dynamic_update_slice(
    opname: str,
    operand: Any,
    update: Any,
    start_indices: Any,
    allow_negative: bool | Sequence[bool],
) -> Any:
    aval = aval_of(operand)
    _check_index_count(opname, start_indices, aval.shape)
    _check_static_negative(opname, start_indices, aval.shape, allow_negative)
    if dtypes.is_python_scalar(update) and aval.ndim:
        # A scalar update of an array: the rank is wrong whatever the scalar's value, so that
        # is the error (as JAX), not the value's range in the operand's dtype.
        _check_update(opname, aval, ShapedArray((), aval.dtype))
    if dtypes.is_python_scalar(update):
        update = _scalar_operand(update, [aval.dtype])
    update_aval = aval_of(update)
    _check_update(opname, aval, update_aval)
    indices = _start_operands(opname, start_indices, aval.shape, update_aval.shape, allow_negative)
    return bind("stablehlo.dynamic_update_slice", operand, update, *indices)


def dynamic_slice(
    operand: Any,
    start_indices: Any,
    slice_sizes: Sequence[int],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """The `slice_sizes` window of `operand` starting at runtime `start_indices`.

    Start indices are clamped, as XLA does, to [0, dim - size] so the window always fits: an
    index past the end returns the last full window. Negative indices first wrap by the
    dimension size (as in Python) unless `allow_negative_indices` is False.

    Args:
      operand: the array.
      start_indices: one integer scalar (array or Python int) per dimension, or a 1-D array.
      slice_sizes: the static window shape.
      allow_negative_indices: whether negative indices count from the end (per dimension or all).

    Returns:
      An array of shape `slice_sizes` (`stablehlo.dynamic_slice`).

    Example: `dynamic_slice(jnp.arange(5), (i,), (2,))` is `[3, 4]` for i = 3, 4, 9 or -2.
    """
    return _dynamic_slice(
        "dynamic_slice", operand, start_indices, slice_sizes, allow_negative_indices
    )


def dynamic_update_slice(
    operand: Any,
    update: Any,
    start_indices: Any,
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """`operand` with the window at runtime `start_indices` replaced by `update`.

    Start indices are clamped to [0, dim - update size] as XLA does, so the whole update is
    always written; negative indices first wrap by the dimension size unless
    `allow_negative_indices` is False.

    Args:
      operand: the array.
      update: an array of the operand's rank and dtype, no larger in any dimension.
      start_indices: one integer scalar per dimension, or a 1-D array.
      allow_negative_indices: whether negative indices count from the end.

    Returns:
      The updated array (`stablehlo.dynamic_update_slice`).
    """
    return _dynamic_update_slice(
        "dynamic_update_slice", operand, update, start_indices, allow_negative_indices
    )


# --- the *_in_dim conveniences -----------------------------------------------------------------


def _starts_in_dim(opname: str, ndim: int, axis: int, start_index: Any) -> tuple[int, list]:
    if start_index is None or isinstance(start_index, (str, bytes)):  # before the axis, as JAX
        raise TypeError(
            f"lax.{opname}: the start index must be an integer scalar, got {start_index!r}"
            f"{mlir.where_suffix()}"
        )
    axis = axis_arg(axis, ndim, f"lax.{opname}", array=RANK)
    starts: list[Any] = [0] * ndim
    starts[axis] = start_index
    return axis, starts


def dynamic_slice_in_dim(
    operand: Any,
    start_index: Any,
    slice_size: int,
    axis: int = 0,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """`slice_size` elements from runtime `start_index` along `axis` (see `dynamic_slice`)."""
    return _slice_in_dim(
        "dynamic_slice_in_dim", operand, start_index, slice_size, axis, allow_negative_indices
    )


def _slice_in_dim(
    opname: str, operand: Any, start_index: Any, slice_size: int, axis: int, allow_negative: bool
) -> Any:
    shape = aval_of(operand).shape
    axis, starts = _starts_in_dim(opname, len(shape), axis, start_index)
    sizes = list(shape)
    sizes[axis] = operator.index(slice_size)
    # One flag per axis, the given one (any truthy value, as JAX) on `axis`.
    allow = tuple(bool(allow_negative) if i == axis else True for i in range(len(shape)))
    return _dynamic_slice(opname, operand, starts, sizes, allow)


def dynamic_index_in_dim(
    operand: Any,
    index: Any,
    axis: int = 0,
    keepdims: bool = True,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """The element at runtime `index` along `axis` (clamped into range, see `dynamic_slice`)."""
    result = _slice_in_dim("dynamic_index_in_dim", operand, index, 1, axis, allow_negative_indices)
    return result if keepdims else squeeze(result, (axis,))


def dynamic_update_slice_in_dim(
    operand: Any, update: Any, start_index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """Writes `update` at runtime `start_index` along `axis` (see `dynamic_update_slice`)."""
    opname = "dynamic_update_slice_in_dim"
    ndim = aval_of(operand).ndim
    axis, starts = _starts_in_dim(opname, ndim, axis, start_index)
    allow = tuple(bool(allow_negative_indices) if i == axis else True for i in range(ndim))
    return _dynamic_update_slice(opname, operand, update, starts, allow)


def dynamic_update_index_in_dim(
    operand: Any, update: Any, index: Any, axis: int, *, allow_negative_indices: bool = True
) -> Any:
    """Writes `update` (with or without the size-1 `axis`) at runtime `index` along `axis`."""
    opname = "dynamic_update_index_in_dim"
    ndim = aval_of(operand).ndim
    axis, starts = _starts_in_dim(opname, ndim, axis, index)
    if aval_of(update).ndim == ndim - 1:
        update = expand_dims(update, (axis,))
    return _dynamic_update_slice(opname, operand, update, starts, allow_negative_indices)
