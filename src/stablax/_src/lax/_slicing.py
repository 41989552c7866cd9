"""Indexing by runtime values: dynamic_slice, dynamic_update_slice, gather and scatter.

Out-of-bounds handling (`GatherScatterMode`) is index arithmetic and masking with lax ops before
the StableHLO op, so the ruled ops keep their plain semantics and their rules stay small.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from stablax._src import dispatch, dtypes
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray
from stablax._src.dispatch import attribute_lowering, bind, def_op, weak_scalar
from stablax._src.ir import ir
from stablax._src.lax._batch_rules import bdim_at_front, moveaxis
from stablax._src.lax._elementwise import (
    ANY,
    _scalar_operand,
    add,
    and_,
    check_dtype,
    div,
    eq,
    ge,
    gt,
    le,
    lt,
    mul,
    neg,
    select,
)
from stablax._src.lax._reductions import (
    MONOIDS,
    computation_of,
    emit_monoid_body,
    int_tuple,
    reduce_and,
)
from stablax._src.lax._shapes import (
    _error as _type_error,
)
from stablax._src.lax._shapes import (
    _ints,
    aval_of,
    broadcast_in_dim,
    canonicalize_axis,
    concatenate,
    convert_element_type,
    expand_dims,
    full,
    index_in_dim,
    squeeze,
)


def _value_error(opname: str, message: str) -> ValueError:
    return ValueError(f"lax.{opname}: {message}{mlir.where_suffix()}")


def _is_int(aval: ShapedArray) -> bool:
    return aval.dtype.kind in "iu"


def _undefined(x: Any) -> bool:
    from stablax._src.transforms.ad import is_undefined

    return is_undefined(x)


def _zeros(shape: Sequence[int], dtype: np.dtype) -> Any:
    return full(shape, 0, dtype)


def _zeros_like(x: Any) -> Any:
    aval = aval_of(x)
    return full(aval.shape, 0, aval.dtype)


# --- start indices -----------------------------------------------------------------------------


def _index_dtype(avals: Sequence[ShapedArray]) -> np.dtype:
    """int32, or int64 (when x64 is on) if an index could overflow int32."""
    wide = any(
        a.dtype.itemsize > 4 or (a.dtype.kind == "u" and a.dtype.itemsize == 4) for a in avals
    )
    return dtypes.canonicalize_dtype(np.int64) if wide else np.dtype(np.int32)


def _split_indices(start_indices: Any, opname: str) -> list[Any]:
    """A sequence of scalar indices, or a 1-D integer array, as a list of scalars."""
    aval = getattr(start_indices, "aval", None)
    if aval is None and not isinstance(start_indices, np.ndarray):
        return list(start_indices)
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


def _check_slice_sizes(opname: str, x: ShapedArray, slice_sizes: Sequence[int]) -> None:
    if len(slice_sizes) != x.ndim or any(
        not 0 <= s <= d for s, d in zip(slice_sizes, x.shape, strict=True)
    ):
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


def_op(
    "stablehlo.dynamic_slice",
    _dynamic_slice_rule,
    attribute_lowering("stablehlo.dynamic_slice", slice_sizes=("slice_sizes", mlir.i64_array)),
    decode=lambda op: {"slice_sizes": int_tuple(op.attributes["slice_sizes"])},
    jvp=_dynamic_slice_jvp,
    transpose=_dynamic_slice_transpose,
)


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
    if _undefined(x):
        zeros = _zeros(shape, aval_of(ct).dtype)
        t_x = bind("stablehlo.dynamic_update_slice", ct, zeros, *indices)
    if _undefined(update):
        t_update = bind("stablehlo.dynamic_slice", ct, *indices, slice_sizes=shape)
    return [t_x, t_update] + [None] * len(indices)


def_op(
    "stablehlo.dynamic_update_slice",
    _dynamic_update_slice_rule,
    jvp=_dynamic_update_slice_jvp,
    transpose=_dynamic_update_slice_transpose,
)


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
        sizes = (1, *slice_sizes)
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


dispatch.batch_rules["stablehlo.dynamic_slice"] = _dynamic_slice_batch
dispatch.batch_rules["stablehlo.dynamic_update_slice"] = _dynamic_update_slice_batch


def _dynamic_slice(
    opname: str,
    operand: Any,
    start_indices: Any,
    slice_sizes: Sequence[int],
    allow_negative: bool | Sequence[bool],
) -> Any:
    sizes = _ints(slice_sizes, "slice_sizes", opname)
    aval = aval_of(operand)
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
    axis = canonicalize_axis(axis, ndim, opname)
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
    return _dynamic_slice(opname, operand, starts, sizes, allow_negative)


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
    _, starts = _starts_in_dim(opname, aval_of(operand).ndim, axis, start_index)
    return _dynamic_update_slice(opname, operand, update, starts, allow_negative_indices)


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


# --- modes and dimension numbers ---------------------------------------------------------------


class GatherScatterMode(enum.Enum):
    """What gather and scatter do with out-of-bounds indices.

    CLIP clamps indices so the whole window is in bounds. FILL_OR_DROP makes gather return
    `fill_value` for a window that is not entirely in bounds and scatter skip such an update
    window. PROMISE_IN_BOUNDS trusts the caller (XLA then clamps gathers, drops scatters).
    """

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """Parses 'clip', 'fill'/'drop' (also None) and 'promise_in_bounds'."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(
            f"Unknown gather/scatter mode {s!r}: expected 'clip', 'fill', 'drop' or "
            "'promise_in_bounds'"
        )


class GatherDimensionNumbers(NamedTuple):
    """How `gather` maps index vectors to operand windows (StableHLO's gather dimensions).

    The last dimension of `start_indices` holds the index vectors. `offset_dims` are the output
    dimensions holding the window; `collapsed_slice_dims` and `operand_batching_dims` are operand
    dimensions (window size 1) left out of the output; `start_index_map[k]` is the operand
    dimension that index component k addresses; `start_indices_batching_dims[i]` is the indices
    dimension paired with `operand_batching_dims[i]`.
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How `scatter` maps update windows into the operand (StableHLO's scatter dimensions).

    `update_window_dims` are the update dimensions holding the window; `inserted_window_dims`
    and `operand_batching_dims` are operand dimensions with window size 1 absent from updates;
    `scatter_dims_to_operand_dims[k]` is the operand dimension that index component k addresses;
    `scatter_indices_batching_dims[i]` pairs with `operand_batching_dims[i]`.
    """

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def _parse_mode(opname: str, mode: Any, default: GatherScatterMode) -> GatherScatterMode:
    if mode is None:
        return default
    try:
        return GatherScatterMode.from_any(mode)
    except ValueError as e:
        raise _value_error(opname, str(e)) from None


def _normalize_dnums(dnums: Any, kind: type, opname: str) -> Any:
    if not isinstance(dnums, kind):
        raise _type_error(
            opname, f"dimension_numbers must be a {kind.__name__}, got {type(dnums).__name__}"
        )
    return kind(*(_ints(v, f, opname) for f, v in zip(kind._fields, dnums, strict=True)))


def _check_dims(
    opname: str, what: str, dims: Sequence[int], bound: int, ordered: bool = True
) -> None:
    if (
        any(not 0 <= d < bound for d in dims)
        or len(set(dims)) != len(dims)
        or (ordered and list(dims) != sorted(dims))
    ):
        order = "sorted, " if ordered else ""
        raise _type_error(opname, f"{what} {tuple(dims)} must be {order}unique and in [0, {bound})")


def _check_batching(
    opname: str, operand: ShapedArray, indices: ShapedArray, operand_dims, indices_dims, prefix: str
) -> None:
    _check_dims(opname, "operand_batching_dims", operand_dims, operand.ndim)
    _check_dims(opname, f"{prefix}_batching_dims", indices_dims, indices.ndim - 1, False)
    if [operand.shape[d] for d in operand_dims] != [indices.shape[d] for d in indices_dims]:
        raise _type_error(
            opname,
            f"operand_batching_dims {operand_dims} and {prefix}_batching_"
            f"dims {indices_dims} must pair dimensions of equal size, got "
            f"{operand.str_short()} and {indices.str_short()}",
        )


def _check_indices(
    opname: str, indices: ShapedArray, index_map, what: str, ndim: int, batching
) -> None:
    if not _is_int(indices) or indices.ndim < 1:
        raise _type_error(
            opname,
            "indices must be an integer array of rank >= 1 (index vectors "
            f"in the last dimension), got {indices.str_short()}",
        )
    if len(index_map) != indices.shape[-1]:
        raise _type_error(
            opname,
            f"{what} {index_map} needs one entry per index component, and "
            f"{indices.str_short()} has {indices.shape[-1]}",
        )
    _check_dims(opname, what, index_map, ndim, False)
    if set(index_map) & set(batching):
        raise _type_error(opname, f"{what} {index_map} overlaps operand_batching_dims {batching}")


def _window_bounds(operand_shape, index_map, window_sizes, dtype) -> np.ndarray:
    """The largest in-bounds start per index component, capped to the index dtype's range."""
    upper = [operand_shape[d] - window_sizes[d] for d in index_map]
    return np.minimum(np.asarray(upper, np.int64), dtypes.iinfo(dtype).max).astype(dtype)


# Bounds are typed NumPy constants (`upper` has the indices' dtype): indices may be NumPy arrays.


def _clamp_indices(indices: Any, upper: np.ndarray) -> Any:
    # Two selects rather than a clamp: they are linear ops with transpose rules, as the rule
    # tables want for every op of a linear gather/scatter.
    shape = aval_of(indices).shape
    low = broadcast_in_dim(np.zeros((), upper.dtype), shape, ())
    high = broadcast_in_dim(upper, shape, (len(shape) - 1,))
    indices = select(lt(indices, low), low, indices)
    return select(gt(indices, high), high, indices)


def _in_bounds(indices: Any, upper: np.ndarray) -> Any:
    """True for index vectors whose whole window is in bounds (shape: indices.shape[:-1])."""
    shape = aval_of(indices).shape
    high = broadcast_in_dim(upper, shape, (len(shape) - 1,))
    ok = and_(ge(indices, np.zeros((), upper.dtype)), le(indices, high))
    return reduce_and(ok, (len(shape) - 1,))


# --- gather ------------------------------------------------------------------------------------


def _gather_shape(
    name: str,
    operand: ShapedArray,
    indices: ShapedArray,
    dn: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
) -> ShapedArray:
    _check_indices(
        name, indices, dn.start_index_map, "start_index_map", operand.ndim, dn.operand_batching_dims
    )
    _check_dims(name, "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim)
    _check_batching(
        name,
        operand,
        indices,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        "start_indices",
    )
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    if len(dropped) != len(dn.collapsed_slice_dims) + len(dn.operand_batching_dims):
        raise _type_error(
            name,
            f"collapsed_slice_dims {dn.collapsed_slice_dims} overlaps "
            f"operand_batching_dims {dn.operand_batching_dims}",
        )
    if len(slice_sizes) != operand.ndim or any(
        not 0 <= s <= d for s, d in zip(slice_sizes, operand.shape, strict=True)
    ):
        raise _type_error(
            name,
            f"slice_sizes {slice_sizes} must have one entry in [0, dim] per "
            f"dimension of {operand.str_short()}",
        )
    if any(slice_sizes[d] > 1 for d in dropped):
        raise _type_error(
            name,
            f"slice_sizes {slice_sizes} must be at most 1 in the collapsed and batching dimensions",
        )
    window = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    if len(dn.offset_dims) != len(window):
        raise _type_error(
            name,
            f"offset_dims {dn.offset_dims} must have one entry per window "
            f"dimension: slice_sizes {slice_sizes} leave {len(window)}",
        )
    _check_dims(name, "offset_dims", dn.offset_dims, out_rank)
    batch, offsets = iter(indices.shape[:-1]), iter(window)
    shape = [next(offsets) if d in dn.offset_dims else next(batch) for d in range(out_rank)]
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_rule(
    operand: ShapedArray,
    indices: ShapedArray,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes,
    indices_are_sorted: bool,
) -> ShapedArray:
    return _gather_shape("gather", operand, indices, dimension_numbers, slice_sizes)


def _gather_lowering(
    operands, in_avals, out_avals, *, dimension_numbers, slice_sizes, indices_are_sorted
):
    dn = dimension_numbers
    attr = mlir.stablehlo.GatherDimensionNumbers.get(
        offset_dims=list(dn.offset_dims),
        collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map),
        index_vector_dim=in_avals[1].ndim - 1,
    )
    op = mlir.emit(
        "stablehlo.gather",
        operands,
        [mlir.aval_type(out_avals[0])],
        {
            "dimension_numbers": attr,
            "slice_sizes": mlir.i64_array(slice_sizes),
            "indices_are_sorted": mlir.bool_attr(indices_are_sorted),
        },
    )
    return list(op.results)


def _flag(op: Any, name: str) -> bool:
    return name in op.attributes and ir.BoolAttr(op.attributes[name]).value


def _gather_decode(op: Any) -> dict[str, Any]:
    dn = mlir.stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    fields = GatherDimensionNumbers._fields
    return {
        "dimension_numbers": GatherDimensionNumbers(*(tuple(getattr(dn, f)) for f in fields)),
        "slice_sizes": int_tuple(op.attributes["slice_sizes"]),
        "indices_are_sorted": _flag(op, "indices_are_sorted"),
    }


def _gather_jvp(primals, tangents, **params):
    x, indices = primals
    out = bind("stablehlo.gather", x, indices, **params)
    t = tangents[0]
    return out, None if t is None else bind("stablehlo.gather", t, indices, **params)


def _gather_transpose(ct, x, indices, *, dimension_numbers, slice_sizes, indices_are_sorted):
    # XLA clamps gather windows into bounds: the cotangent goes back to the clamped windows.
    dn = dimension_numbers
    scatter_dn = ScatterDimensionNumbers(
        dn.offset_dims,
        dn.collapsed_slice_dims,
        dn.start_index_map,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
    )
    zeros = _zeros(x.aval.shape, aval_of(ct).dtype)
    t_x = _scatter(
        "gather", "add", zeros, indices, ct, scatter_dn, indices_are_sorted, False, "clip"
    )
    return [t_x, None]


def_op(
    "stablehlo.gather",
    _gather_rule,
    _gather_lowering,
    decode=_gather_decode,
    jvp=_gather_jvp,
    transpose=_gather_transpose,
)


def _shifted(dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(d + 1 for d in dims)


def _gather_batch(values, dims, *, axis_size, dimension_numbers, slice_sizes, indices_are_sorted):
    (x, indices), (x_dim, indices_dim), dn = values, dims, dimension_numbers
    if indices_dim is None:  # the batch dim is one more window dim, first in operand and output
        x = moveaxis(x, x_dim, 0)
        dn = GatherDimensionNumbers(
            (0, *_shifted(dn.offset_dims)),
            _shifted(dn.collapsed_slice_dims),
            _shifted(dn.start_index_map),
            _shifted(dn.operand_batching_dims),
            dn.start_indices_batching_dims,
        )
        sizes = (axis_size, *slice_sizes)
    else:
        # The batch dim leads the indices and so the output's batch dims.
        indices = moveaxis(indices, indices_dim, 0)
        if x_dim is None:
            dn = GatherDimensionNumbers(
                _shifted(dn.offset_dims),
                dn.collapsed_slice_dims,
                dn.start_index_map,
                dn.operand_batching_dims,
                _shifted(dn.start_indices_batching_dims),
            )
            sizes = tuple(slice_sizes)
        else:  # a pair of batching dims: example i gathers from operand i
            x = moveaxis(x, x_dim, 0)
            dn = GatherDimensionNumbers(
                _shifted(dn.offset_dims),
                _shifted(dn.collapsed_slice_dims),
                _shifted(dn.start_index_map),
                (0, *_shifted(dn.operand_batching_dims)),
                (0, *_shifted(dn.start_indices_batching_dims)),
            )
            sizes = (1, *slice_sizes)
        indices_are_sorted = False  # sorted per example, not across the batch
    out = bind(
        "stablehlo.gather",
        x,
        indices,
        dimension_numbers=dn,
        slice_sizes=sizes,
        indices_are_sorted=indices_are_sorted,
    )
    return out, 0


dispatch.batch_rules["stablehlo.gather"] = _gather_batch


def _default_fill(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return True
    if dtype.kind == "i":
        return int(dtypes.iinfo(dtype).min)
    if dtype.kind == "u":
        return int(dtypes.iinfo(dtype).max)
    return np.nan


def gather(
    operand: Any,
    start_indices: Any,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value: Any = None,
) -> Any:
    """Gathers the `slice_sizes` windows of `operand` that start at each index vector.

    The index vectors are the last dimension of `start_indices`; the result has the other
    dimensions of `start_indices` as batch dimensions and the window at `offset_dims`.

    Args:
      operand: the array to gather from.
      start_indices: an integer array; `start_indices[..., k]` indexes operand dimension
        `dimension_numbers.start_index_map[k]`.
      dimension_numbers: a `GatherDimensionNumbers`.
      slice_sizes: the window size in every operand dimension.
      unique_indices: accepted for JAX compatibility (a promise about the indices; unused).
      indices_are_sorted: promise that the indices are sorted (passed to XLA).
      mode: a `GatherScatterMode` or its name. None means PROMISE_IN_BOUNDS, where XLA clamps
        the windows into bounds like CLIP.
      fill_value: the value of out-of-bounds windows under FILL_OR_DROP; by default NaN for
        inexact dtypes, the minimum of signed integers, the maximum of unsigned ones, True for
        booleans.

    Returns:
      The gathered array (`stablehlo.gather`, after clamping/masking lax ops for the mode).
    """
    del unique_indices
    return _gather(
        "gather",
        operand,
        start_indices,
        dimension_numbers,
        slice_sizes,
        indices_are_sorted,
        mode,
        fill_value,
    )


def _gather(
    opname: str,
    operand: Any,
    start_indices: Any,
    dimension_numbers: Any,
    slice_sizes: Sequence[int],
    indices_are_sorted: bool,
    mode: Any,
    fill_value: Any,
) -> Any:
    mode = _parse_mode(opname, mode, GatherScatterMode.PROMISE_IN_BOUNDS)
    dn = _normalize_dnums(dimension_numbers, GatherDimensionNumbers, opname)
    sizes = _ints(slice_sizes, "slice_sizes", opname)
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval_of(operand).dtype)
    params = dict(
        dimension_numbers=dn, slice_sizes=sizes, indices_are_sorted=bool(indices_are_sorted)
    )
    aval, indices_aval = aval_of(operand), aval_of(start_indices)
    out_aval = _gather_shape(opname, aval, indices_aval, dn, sizes)
    if mode == GatherScatterMode.PROMISE_IN_BOUNDS:
        return bind("stablehlo.gather", operand, start_indices, **params)
    upper = _window_bounds(aval.shape, dn.start_index_map, sizes, indices_aval.dtype)
    out = bind("stablehlo.gather", operand, _clamp_indices(start_indices, upper), **params)
    if mode == GatherScatterMode.CLIP:
        return out
    batch_dims = [d for d in range(out_aval.ndim) if d not in dn.offset_dims]
    mask = broadcast_in_dim(_in_bounds(start_indices, upper), out_aval.shape, batch_dims)
    fill = _default_fill(aval.dtype) if fill_value is None else fill_value
    return select(mask, out, full(out_aval.shape, fill, aval.dtype))


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
    """`src[idxs[0], idxs[1], ...]` along `axes`: the i-th result row takes index i of each.

    Args:
      src: the array.
      idxs: one 1-D integer array per axis, all of the same length n.
      axes: the axes of `src` they index.

    Returns:
      An array of shape (n, *the dimensions of src not in axes) (`stablehlo.gather`; indices
      out of bounds are clamped).
    """
    axes = tuple(canonicalize_axis(a, aval_of(src).ndim, "index_take") for a in axes)
    idxs = list(idxs)
    avals = [aval_of(i) for i in idxs]
    if len(idxs) != len(axes) or any(
        a.ndim != 1 or not _is_int(a) or a.shape != avals[0].shape for a in avals
    ):
        raise _type_error(
            "index_take",
            "needs one 1-D integer index array per axis, all of one "
            f"length, got {', '.join(a.str_short() for a in avals)} for axes {axes}",
        )
    dtype = _index_dtype(avals)
    indices = concatenate([expand_dims(convert_element_type(i, dtype), (1,)) for i in idxs], 1)
    shape = aval_of(src).shape
    rest = len(shape) - len(axes)
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(1, 1 + rest)),
        collapsed_slice_dims=tuple(sorted(axes)),
        start_index_map=axes,
    )
    sizes = tuple(1 if d in axes else s for d, s in enumerate(shape))
    return _gather("index_take", src, indices, dn, sizes, False, None, None)


# --- scatter -----------------------------------------------------------------------------------

# The region combines the current value and the update: "replace" returns the update, the others
# are reduction monoids (their bodies and decoding are shared with `stablehlo.reduce`).
SCATTER_COMPUTATIONS = ("replace", "add", "mul", "min", "max")


def _scatter_shape(
    name: str,
    computation: str,
    operand: ShapedArray,
    indices: ShapedArray,
    updates: ShapedArray,
    dn: ScatterDimensionNumbers,
) -> ShapedArray:
    check_dtype(name, operand.dtype, MONOIDS[computation][1] if computation in MONOIDS else ANY)
    if updates.dtype != operand.dtype:
        raise _type_error(
            name,
            "operand and updates must have the same dtype, got "
            f"{operand.str_short()} and {updates.str_short()}",
        )
    _check_indices(
        name,
        indices,
        dn.scatter_dims_to_operand_dims,
        "scatter_dims_to_operand_dims",
        operand.ndim,
        dn.operand_batching_dims,
    )
    if updates.ndim != len(dn.update_window_dims) + indices.ndim - 1:
        raise _type_error(
            name,
            f"updates {updates.str_short()} must have rank "
            f"{len(dn.update_window_dims) + indices.ndim - 1}: the window "
            f"dimensions plus the batch dimensions of {indices.str_short()}",
        )
    _check_dims(name, "update_window_dims", dn.update_window_dims, updates.ndim)
    _check_dims(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
    _check_batching(
        name,
        operand,
        indices,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
        "scatter_indices",
    )
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_dims = [d for d in range(operand.ndim) if d not in dropped]
    if len(dropped) != len(dn.inserted_window_dims) + len(dn.operand_batching_dims) or len(
        window_dims
    ) != len(dn.update_window_dims):
        raise _type_error(
            name,
            f"update_window_dims {dn.update_window_dims}, inserted_window_"
            f"dims {dn.inserted_window_dims} and operand_batching_dims "
            f"{dn.operand_batching_dims} must together cover the "
            f"{operand.ndim} dimensions of {operand.str_short()} once",
        )
    windows = [updates.shape[d] for d in dn.update_window_dims]
    scatter_sizes = [s for d, s in enumerate(updates.shape) if d not in dn.update_window_dims]
    if any(w > operand.shape[d] for w, d in zip(windows, window_dims, strict=True)) or (
        scatter_sizes != list(indices.shape[:-1])
    ):
        raise _type_error(
            name,
            f"updates {updates.str_short()} do not match: windows must fit "
            f"in {operand.str_short()} and the other dimensions must equal the "
            f"batch dimensions of {indices.str_short()}",
        )
    return operand


def _scatter_rule(
    operand: ShapedArray,
    indices: ShapedArray,
    updates: ShapedArray,
    *,
    computation: str,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool,
    unique_indices: bool,
) -> ShapedArray:
    name = "scatter" if computation == "replace" else f"scatter_{computation}"
    if computation not in SCATTER_COMPUTATIONS:
        raise _value_error("scatter", f"unknown computation {computation!r}")
    return _scatter_shape(name, computation, operand, indices, updates, dimension_numbers)


def _scatter_lowering(
    operands,
    in_avals,
    out_avals,
    *,
    computation,
    dimension_numbers,
    indices_are_sorted,
    unique_indices,
):
    dn = dimension_numbers
    attr = mlir.stablehlo.ScatterDimensionNumbers.get(
        update_window_dims=list(dn.update_window_dims),
        inserted_window_dims=list(dn.inserted_window_dims),
        input_batching_dims=list(dn.operand_batching_dims),
        scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
        index_vector_dim=in_avals[1].ndim - 1,
    )
    op = mlir.emit(
        "stablehlo.scatter",
        operands,
        [mlir.aval_type(out_avals[0])],
        {
            "scatter_dimension_numbers": attr,
            "indices_are_sorted": mlir.bool_attr(indices_are_sorted),
            "unique_indices": mlir.bool_attr(unique_indices),
        },
        regions=1,
    )
    scalar = mlir.tensor_type((), in_avals[0].dtype)
    block = op.regions[0].blocks.append(scalar, scalar)
    if computation == "replace":
        with ir.InsertionPoint(block):
            mlir.emit("stablehlo.return", [block.arguments[1]], [])
    else:
        emit_monoid_body(block, computation, in_avals[0].dtype)
    return list(op.results)


def _scatter_decode(op: Any) -> dict[str, Any]:
    dn = mlir.stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
    fields = (
        "update_window_dims",
        "inserted_window_dims",
        "scattered_dims_to_operand_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
    )
    body = list(op.regions[0].blocks[0].operations)
    return {
        "computation": "replace" if len(body) == 1 else computation_of(op),
        "dimension_numbers": ScatterDimensionNumbers(*(tuple(getattr(dn, f)) for f in fields)),
        "indices_are_sorted": _flag(op, "indices_are_sorted"),
        "unique_indices": _flag(op, "unique_indices"),
    }


def _window_gather(x: Any, indices: Any, updates_shape: Sequence[int], dn, fill: Any) -> Any:
    """The operand windows a scatter writes to, shaped like its updates (`fill` where the
    scatter drops the window)."""
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    windows = iter(updates_shape[d] for d in dn.update_window_dims)
    sizes = [1 if d in dropped else next(windows) for d in range(aval_of(x).ndim)]
    gather_dn = GatherDimensionNumbers(
        dn.update_window_dims,
        dn.inserted_window_dims,
        dn.scatter_dims_to_operand_dims,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
    )
    return _gather("scatter", x, indices, gather_dn, sizes, False, "fill", fill)


def _scatter_jvp(primals, tangents, *, computation, **params):
    x, indices, updates = primals
    t_x, _, t_updates = tangents
    out = bind("stablehlo.scatter", x, indices, updates, computation=computation, **params)
    if computation in ("replace", "add"):  # linear in (operand, updates)
        t_x = _zeros_like(x) if t_x is None else t_x
        t_updates = _zeros_like(updates) if t_updates is None else t_updates
        return out, bind(
            "stablehlo.scatter", t_x, indices, t_updates, computation=computation, **params
        )

    def scatter_add(operand, values):
        return bind("stablehlo.scatter", operand, indices, values, computation="add", **params)

    if computation == "mul":
        terms = []
        if t_x is not None:
            terms.append(
                bind("stablehlo.scatter", t_x, indices, updates, computation="mul", **params)
            )
        if t_updates is not None:
            if not params["unique_indices"]:
                raise NotImplementedError(
                    "[jvp] scatter_mul with respect to its updates needs unique_indices=True "
                    "(as in JAX)"
                )
            terms.append(mul(x, scatter_add(_zeros_like(x), t_updates)))
        return out, terms[0] if len(terms) == 1 else add(*terms)
    # min/max: the tangent of whichever value won, averaged over ties.
    dtype = aval_of(out).dtype
    x_won = eq(x, out)
    updates_won = eq(
        updates,
        _window_gather(out, indices, aval_of(updates).shape, params["dimension_numbers"], np.nan),
    )
    t_x = _zeros_like(x) if t_x is None else t_x
    t_updates = _zeros_like(updates) if t_updates is None else t_updates
    total = add(
        select(x_won, t_x, _zeros_like(x)),
        scatter_add(_zeros_like(x), select(updates_won, t_updates, _zeros_like(updates))),
    )
    count = add(
        convert_element_type(x_won, dtype),
        scatter_add(_zeros_like(x), convert_element_type(updates_won, dtype)),
    )
    return out, div(total, count)


def _scatter_transpose(ct, x, indices, updates, *, computation, **params):
    if computation == "mul" and not _undefined(updates):  # linear in the operand alone
        return [
            bind("stablehlo.scatter", ct, indices, updates, computation="mul", **params),
            None,
            None,
        ]
    if computation not in ("replace", "add"):
        raise NotImplementedError(f"[transpose] scatter with {computation} is not linear")
    t_x = t_updates = None
    if _undefined(x):
        t_x = ct
        if computation == "replace":  # overwritten elements did not reach the output
            zeros = _zeros(updates.aval.shape, aval_of(ct).dtype)
            t_x = bind("stablehlo.scatter", ct, indices, zeros, computation="replace", **params)
    if _undefined(updates):
        dn = params["dimension_numbers"]
        t_updates = _window_gather(ct, indices, updates.aval.shape, dn, 0)
    return [t_x, None, t_updates]


def_op(
    "stablehlo.scatter",
    _scatter_rule,
    _scatter_lowering,
    decode=_scatter_decode,
    jvp=_scatter_jvp,
    transpose=_scatter_transpose,
)


def _scatter_batch(values, dims, *, axis_size, dimension_numbers, indices_are_sorted, **params):
    (x, indices, updates), (x_dim, indices_dim, updates_dim) = values, dims
    dn = dimension_numbers
    # Every example updates its own operand: operand and updates get the batch dim first.
    x = bdim_at_front(x, x_dim, axis_size)
    updates = bdim_at_front(updates, updates_dim, axis_size)
    if indices_dim is None:  # the batch dim is one more window dim
        dn = ScatterDimensionNumbers(
            (0, *_shifted(dn.update_window_dims)),
            _shifted(dn.inserted_window_dims),
            _shifted(dn.scatter_dims_to_operand_dims),
            _shifted(dn.operand_batching_dims),
            dn.scatter_indices_batching_dims,
        )
    else:  # a pair of batching dims: example i scatters into operand i
        indices = moveaxis(indices, indices_dim, 0)
        dn = ScatterDimensionNumbers(
            _shifted(dn.update_window_dims),
            _shifted(dn.inserted_window_dims),
            _shifted(dn.scatter_dims_to_operand_dims),
            (0, *_shifted(dn.operand_batching_dims)),
            (0, *_shifted(dn.scatter_indices_batching_dims)),
        )
        indices_are_sorted = False
    out = bind(
        "stablehlo.scatter",
        x,
        indices,
        updates,
        dimension_numbers=dn,
        indices_are_sorted=indices_are_sorted,
        **params,
    )
    return out, 0


dispatch.batch_rules["stablehlo.scatter"] = _scatter_batch


def _scatter(
    opname: str,
    computation: str,
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str | GatherScatterMode | None,
) -> Any:
    mode = _parse_mode(opname, mode, GatherScatterMode.FILL_OR_DROP)
    dn = _normalize_dnums(dimension_numbers, ScatterDimensionNumbers, opname)
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval_of(operand).dtype)
    aval = aval_of(operand)
    if dtypes.is_python_scalar(updates):
        updates = _scalar_operand(updates, [aval.dtype])
    params = dict(
        computation=computation,
        dimension_numbers=dn,
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
    )
    indices_aval, updates_aval = aval_of(scatter_indices), aval_of(updates)
    _scatter_shape(opname, computation, aval, indices_aval, updates_aval, dn)
    if mode == GatherScatterMode.CLIP:
        dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
        windows = iter(updates_aval.shape[d] for d in dn.update_window_dims)
        sizes = [1 if d in dropped else next(windows) for d in range(aval.ndim)]
        upper = _window_bounds(
            aval.shape, dn.scatter_dims_to_operand_dims, sizes, indices_aval.dtype
        )
        scatter_indices = _clamp_indices(scatter_indices, upper)
    # FILL_OR_DROP needs nothing: XLA skips update windows that are not entirely in bounds.
    return bind("stablehlo.scatter", operand, scatter_indices, updates, **params)


def _scatter_function(opname: str, computation: str, effect: str) -> Callable[..., Any]:
    """The public scatter of one combiner: JAX's signature, calling `_scatter`."""

    def scatter_fun(
        operand: Any,
        scatter_indices: Any,
        updates: Any,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ) -> Any:
        if computation == "sub":  # x - u == x + (-u), exactly, also for wrapping integers
            if dtypes.is_python_scalar(updates):
                updates = _scalar_operand(updates, [aval_of(operand).dtype])
            updates = neg(updates)
        args = (operand, scatter_indices, updates, dimension_numbers)
        body = "add" if computation == "sub" else computation
        return _scatter(opname, body, *args, indices_are_sorted, unique_indices, mode)

    scatter_fun.__name__ = scatter_fun.__qualname__ = opname
    scatter_fun.__doc__ = f"""Scatters `updates` into `operand`, {effect}.

    Update windows are placed as `dimension_numbers` describe; where windows overlap, all their
    updates are applied (for `scatter`, which one wins is unspecified).

    Args:
      operand: the array to update.
      scatter_indices: an integer array whose last dimension holds the index vectors.
      updates: the windows, with the batch dimensions of `scatter_indices`.
      dimension_numbers: a `ScatterDimensionNumbers`.
      indices_are_sorted: promise that the indices are sorted (passed to XLA).
      unique_indices: promise that no index repeats (passed to XLA).
      mode: a `GatherScatterMode` or its name; None means FILL_OR_DROP: update windows that are
        not entirely in bounds are skipped. CLIP clamps the indices first.

    Returns:
      The updated array (`stablehlo.scatter`, the combiner in its region).
    """
    return scatter_fun


scatter = _scatter_function("scatter", "replace", "replacing the elements it hits")
scatter_add = _scatter_function("scatter_add", "add", "adding to the elements it hits")
scatter_sub = _scatter_function("scatter_sub", "sub", "subtracting from the elements it hits")
scatter_mul = _scatter_function("scatter_mul", "mul", "multiplying the elements it hits")
scatter_min = _scatter_function("scatter_min", "min", "taking the minimum with what it hits")
scatter_max = _scatter_function("scatter_max", "max", "taking the maximum with what it hits")


def scatter_apply(
    operand: Any,
    scatter_indices: Any,
    func: Callable[[Any], Any],
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
) -> Any:
    """Replaces the elements of `operand` that the scatter windows hit by `func` of them.

    `func` must be elementwise: it is applied to the whole operand and selected where a window
    of shape `update_shape` lands (a boolean scatter builds the mask). Unlike XLA's per-update
    application in JAX, an element hit by several windows gets `func` applied once.

    Args:
      operand: the array.
      scatter_indices: an integer array whose last dimension holds the index vectors.
      func: an elementwise function of arrays, returning the operand's shape and dtype.
      dimension_numbers: a `ScatterDimensionNumbers`.
      update_shape: the shape the updates would have (batch and window dimensions).
      indices_are_sorted: promise that the indices are sorted.
      unique_indices: promise that no index repeats.
      mode: as for `scatter`.

    Returns:
      The updated array (`stablehlo.scatter` of the mask, then `stablehlo.select`).
    """
    aval = aval_of(operand)
    update_shape = _ints(update_shape, "update_shape", "scatter_apply")
    mask = _scatter(
        "scatter_apply",
        "replace",
        full(aval.shape, False, np.bool_),
        scatter_indices,
        full(update_shape, True, np.bool_),
        dimension_numbers,
        indices_are_sorted,
        unique_indices,
        mode,
    )
    return select(mask, func(operand), operand)


__all__ = [
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
    "dynamic_index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "gather",
    "index_take",
    "scatter",
    "scatter_add",
    "scatter_apply",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_sub",
]
