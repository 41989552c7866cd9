"""Ops that move, convert or create data without arithmetic: convert, broadcast, reshape, pad, ...

Parameters are normalised to tuples of Python ints before `bind`, so they can key caches.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dispatch, dtypes
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray
from stablax._src.dispatch import attribute_lowering, bind, def_op, weak_scalar
from stablax._src.lax._batch_rules import bdim_at_front, moveaxis
from stablax._src.lax._elementwise import FLOAT, _scalar_operand, check_dtype, select


def _ints(values: Any, what: str, opname: str) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(
            f"lax.{opname}: {what} must be a sequence of integers, got {values!r}"
            f"{mlir.where_suffix()}"
        ) from None


def _error(opname: str, message: str) -> TypeError:
    return TypeError(f"lax.{opname}: {message}{mlir.where_suffix()}")


def aval_of(x: Any) -> ShapedArray:
    """The abstract value of an operand (arrays, tracers, NumPy values, Python scalars)."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if dtypes.is_python_scalar(x):
        return ShapedArray((), dtypes.python_scalar_dtype(x), True)
    array = np.asarray(x)
    return ShapedArray(array.shape, dtypes.canonicalize_dtype(array.dtype), False)


# --- decoders: the params of an emitted op, so that rewrites can re-bind it -------------------


def _i64s(op: Any, name: str) -> tuple[int, ...]:
    return tuple(int(v) for v in mlir.ir.DenseI64ArrayAttr(op.attributes[name]))


def _result_aval(op: Any) -> ShapedArray:
    t = op.results[0].type
    return ShapedArray(mlir.shape_of_type(t), mlir.dtype_of_type(t))


# --- derivative helpers (rules are written with lax functions, see transforms/ad.py) -----------


def _undefined(x: Any) -> bool:
    from stablax._src.transforms.ad import is_undefined

    return is_undefined(x)


def _zeros(aval: ShapedArray) -> Any:
    return full(aval.shape, 0, aval.dtype)


def _linear_jvp(name: str):
    """The jvp of an op linear in all its operands: the op applied to the tangents."""

    def jvp(primals, tangents, **params):
        tangents = [_zeros(aval_of(p)) if t is None else t for p, t in zip(primals, tangents)]
        return bind(name, *primals, **params), bind(name, *tangents, **params)

    return jvp


def _same_bdim_batch(name: str):
    """The batching rule of a one-operand op that maps each element on its own, whatever the
    shape: the op applies to the batched operand as it is."""

    def rule(values, dims, *, axis_size, **params):
        return bind(name, values[0], **params), dims[0]

    return rule


# --- convert_element_type ----------------------------------------------------------------------


def _convert_rule(x: ShapedArray, *, new_dtype: np.dtype, weak_type: bool) -> ShapedArray:
    return ShapedArray(x.shape, new_dtype, weak_type)


# The weak-type flag is not in the IR: a re-bound convert is strongly typed.
def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    out = bind("stablehlo.convert", primals[0], new_dtype=new_dtype, weak_type=weak_type)
    if not dtypes.issubdtype(new_dtype, np.inexact):
        return out, None
    return out, bind("stablehlo.convert", tangents[0], new_dtype=new_dtype, weak_type=False)


def _convert_transpose(ct, x, *, new_dtype, weak_type):
    return [convert_element_type(ct, x.aval.dtype)]


def_op(
    "stablehlo.convert",
    _convert_rule,
    decode=lambda op: {"new_dtype": _result_aval(op).dtype, "weak_type": False},
    jvp=_convert_jvp,
    transpose=_convert_transpose,
)
dispatch.batch_rules["stablehlo.convert"] = _same_bdim_batch("stablehlo.convert")


def convert_element_type(operand: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """Casts to `new_dtype` (`stablehlo.convert`); to bool means `!= 0`, complex drops imag."""
    new_dtype = dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(new_dtype, "convert_element_type")
    )
    aval = aval_of(operand)
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval.dtype)
    old = aval.dtype
    if old == new_dtype and aval.weak_type == weak_type and hasattr(operand, "aval"):
        return operand
    if new_dtype == np.bool_ and old != np.bool_:
        from stablax._src.lax._elementwise import ne

        return ne(operand, weak_scalar(0, old) if old.kind != "c" else weak_scalar(0j, old))
    if old.kind == "c" and new_dtype.kind != "c":
        from stablax._src.lax._elementwise import real

        operand = real(operand)
    return bind("stablehlo.convert", operand, new_dtype=new_dtype, weak_type=bool(weak_type))


def _bitcast_rule(x: ShapedArray, *, new_dtype: np.dtype) -> ShapedArray:
    old_size, new_size = x.dtype.itemsize, new_dtype.itemsize
    if old_size == new_size:
        shape = x.shape
    elif old_size > new_size:
        shape = (*x.shape, old_size // new_size)
    else:
        if not x.shape or x.shape[-1] != new_size // old_size:
            raise _error(
                "bitcast_convert_type",
                f"cannot bitcast {x.str_short()} to {new_dtype.name}: the last dimension must "
                f"be {new_size // old_size}",
            )
        shape = x.shape[:-1]
    return ShapedArray(shape, new_dtype, False)


def_op(
    "stablehlo.bitcast_convert",
    _bitcast_rule,
    decode=lambda op: {"new_dtype": _result_aval(op).dtype},
)


def _bitcast_batch(values, dims, *, axis_size, new_dtype):
    (x,), (d,) = values, dims
    aval = aval_of(x)
    if d == aval.ndim - 1 and aval.dtype.itemsize < new_dtype.itemsize:  # the last dim is eaten
        x, d = moveaxis(x, d, 0), 0
    return bind("stablehlo.bitcast_convert", x, new_dtype=new_dtype), d


dispatch.batch_rules["stablehlo.bitcast_convert"] = _bitcast_batch


def bitcast_convert_type(operand: Any, new_dtype: Any) -> Any:
    """Reinterprets the bits as `new_dtype`, adding/removing a trailing dim if sizes differ."""
    new_dtype = dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(new_dtype, "bitcast_convert_type")
    )
    return bind("stablehlo.bitcast_convert", operand, new_dtype=new_dtype)


# --- broadcast_in_dim --------------------------------------------------------------------------


def _broadcast_in_dim_rule(x: ShapedArray, *, shape, broadcast_dimensions) -> ShapedArray:
    if len(broadcast_dimensions) != x.ndim:
        raise _error(
            "broadcast_in_dim",
            f"broadcast_dimensions {broadcast_dimensions} must have one entry per operand "
            f"dimension of {x.str_short()}",
        )
    if any(s < 0 for s in shape):
        raise _error("broadcast_in_dim", f"negative dimension in target shape {shape}")
    previous = -1
    for operand_dim, target_dim in enumerate(broadcast_dimensions):
        if not 0 <= target_dim < len(shape) or target_dim <= previous:
            raise _error(
                "broadcast_in_dim",
                f"broadcast_dimensions {broadcast_dimensions} must be strictly increasing "
                f"indices into the target shape {shape}",
            )
        previous = target_dim
        if x.shape[operand_dim] not in (1, shape[target_dim]):
            raise _error(
                "broadcast_in_dim",
                f"cannot broadcast operand {x.str_short()} to shape {shape} with "
                f"broadcast_dimensions {broadcast_dimensions}",
            )
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_decode(op: Any) -> dict[str, Any]:
    return {
        "shape": _result_aval(op).shape,
        "broadcast_dimensions": _i64s(op, "broadcast_dimensions"),
    }


def_op(
    "stablehlo.broadcast_in_dim",
    _broadcast_in_dim_rule,
    attribute_lowering(
        "stablehlo.broadcast_in_dim",
        broadcast_dimensions=("broadcast_dimensions", mlir.i64_array),
    ),
    decode=_broadcast_in_dim_decode,
    jvp=_linear_jvp("stablehlo.broadcast_in_dim"),
    transpose=lambda ct, x, *, shape, broadcast_dimensions: [
        _unbroadcast(ct, x.aval.shape, broadcast_dimensions)
    ],
)


def _broadcast_in_dim_batch(values, dims, *, axis_size, shape, broadcast_dimensions):
    x = moveaxis(values[0], dims[0], 0)
    target = (0, *(d + 1 for d in broadcast_dimensions))
    return broadcast_in_dim(x, (axis_size, *shape), target), 0


dispatch.batch_rules["stablehlo.broadcast_in_dim"] = _broadcast_in_dim_batch


def _unbroadcast(ct: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """Sums `ct` over the dimensions a broadcast created or stretched, back to `shape`."""
    from stablax._src.lax._reductions import reduce_sum

    out_shape = aval_of(ct).shape
    summed = [d for d in range(len(out_shape)) if d not in broadcast_dimensions]
    summed += [d for i, d in enumerate(broadcast_dimensions) if shape[i] == 1 and out_shape[d] != 1]
    return reshape(reduce_sum(ct, summed), shape)


def broadcast_in_dim(
    operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Any:
    """Broadcasts to `shape`, operand dim i going to `broadcast_dimensions[i]`."""
    shape = _ints(shape, "shape", "broadcast_in_dim")
    dims = _ints(broadcast_dimensions, "broadcast_dimensions", "broadcast_in_dim")
    aval = aval_of(operand)
    if aval.shape == shape and dims == tuple(range(len(shape))) and hasattr(operand, "aval"):
        return operand
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval.dtype)
    return bind("stablehlo.broadcast_in_dim", operand, shape=shape, broadcast_dimensions=dims)


def broadcast(operand: Any, sizes: Sequence[int]) -> Any:
    """Adds leading dimensions of the given sizes."""
    sizes = _ints(sizes, "sizes", "broadcast")
    aval = aval_of(operand)
    dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
    return broadcast_in_dim(operand, sizes + aval.shape, dims)


# --- reshape -----------------------------------------------------------------------------------


def _reshape_rule(x: ShapedArray, *, new_sizes) -> ShapedArray:
    if any(d < 0 for d in new_sizes):
        raise _error("reshape", f"negative dimension in new_sizes {new_sizes}")
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise _error("reshape", f"cannot reshape {x.str_short()} into shape {new_sizes}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def_op(
    "stablehlo.reshape",
    _reshape_rule,
    decode=lambda op: {"new_sizes": _result_aval(op).shape},
    jvp=_linear_jvp("stablehlo.reshape"),
    transpose=lambda ct, x, *, new_sizes: [reshape(ct, x.aval.shape)],
)
# Row-major order only survives with the batch dim first.
dispatch.batch_rules["stablehlo.reshape"] = lambda values, dims, *, axis_size, new_sizes: (
    reshape(moveaxis(values[0], dims[0], 0), (axis_size, *new_sizes)),
    0,
)


def reshape(operand: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None) -> Any:
    """Reshapes in row-major order, after transposing by `dimensions` if given."""
    new_sizes = _ints(new_sizes, "new_sizes", "reshape")
    aval = aval_of(operand)
    if dimensions is not None:
        dimensions = _ints(dimensions, "dimensions", "reshape")
        if dimensions != tuple(range(aval.ndim)):
            operand = transpose(operand, dimensions)
    if aval.shape == new_sizes and hasattr(operand, "aval"):
        return operand
    return bind("stablehlo.reshape", operand, new_sizes=new_sizes)


# --- transpose ---------------------------------------------------------------------------------


def _transpose_rule(x: ShapedArray, *, permutation) -> ShapedArray:
    if sorted(permutation) != list(range(x.ndim)):
        raise _error(
            "transpose",
            f"permutation {permutation} is not a permutation of the axes of {x.str_short()}",
        )
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


def_op(
    "stablehlo.transpose",
    _transpose_rule,
    attribute_lowering("stablehlo.transpose", permutation=("permutation", mlir.i64_array)),
    decode=lambda op: {"permutation": _i64s(op, "permutation")},
    jvp=_linear_jvp("stablehlo.transpose"),
    transpose=lambda ct, x, *, permutation: [transpose(ct, np.argsort(permutation))],
)


def _transpose_batch(values, dims, *, axis_size, permutation):
    b = dims[0]  # the batch dim goes first, the others are permuted around it
    return transpose(values[0], (b, *(p + (p >= b) for p in permutation))), 0


dispatch.batch_rules["stablehlo.transpose"] = _transpose_batch


def transpose(operand: Any, permutation: Sequence[int]) -> Any:
    """Permutes the axes: output axis i is operand axis `permutation[i]` (`stablehlo.transpose`)."""
    permutation = _ints(permutation, "permutation", "transpose")
    if permutation == tuple(range(len(permutation))) and hasattr(operand, "aval"):
        _transpose_rule(operand.aval, permutation=permutation)
        return operand
    return bind("stablehlo.transpose", operand, permutation=permutation)


# --- iota and constants ------------------------------------------------------------------------


def _iota_rule(*, dtype, shape, dimension) -> ShapedArray:
    if not 0 <= dimension < len(shape):
        raise _error("iota", f"dimension {dimension} out of range for shape {shape}")
    return ShapedArray(shape, dtype, False)


def _iota_lowering(operands, in_avals, out_avals, *, dtype, shape, dimension):
    op = mlir.emit(
        "stablehlo.iota",
        [],
        [mlir.aval_type(out_avals[0])],
        {"iota_dimension": mlir.i64(dimension)},
    )
    return list(op.results)


def _iota_decode(op: Any) -> dict[str, Any]:
    aval = _result_aval(op)
    dimension = mlir.ir.IntegerAttr(op.attributes["iota_dimension"]).value
    return {"dtype": aval.dtype, "shape": aval.shape, "dimension": dimension}


def_op("stablehlo.iota", _iota_rule, _iota_lowering, decode=_iota_decode)
# No operands, so never batched: vmap emits it as it is (the rule is here for the table's sake).
dispatch.batch_rules["stablehlo.iota"] = lambda values, dims, *, axis_size, **params: (
    bind("stablehlo.iota", **params),
    None,
)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
    """An array of `shape` counting 0, 1, ... along `dimension` (`stablehlo.iota`)."""
    dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "iota"))
    shape = _ints(shape, "shape", "iota")
    return bind("stablehlo.iota", dtype=dtype, shape=shape, dimension=operator.index(dimension))


def iota(dtype: Any, size: int) -> Any:
    """0, 1, ..., size - 1 (`stablehlo.iota`)."""
    return broadcasted_iota(dtype, (operator.index(size),), 0)


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """An array of `shape` filled with `fill_value` (a broadcast scalar)."""
    shape = _ints(shape, "shape", "full")
    if dtype is None:
        aval = aval_of(fill_value)
        dtype, weak = aval.dtype, aval.weak_type
    else:
        dtype, weak = dtypes.canonicalize_dtype(dtype), False
    if aval_of(fill_value).shape != ():
        raise _error("full", f"fill_value must be a scalar, got shape {aval_of(fill_value).shape}")
    if hasattr(fill_value, "aval"):
        scalar = convert_element_type(fill_value, dtype, weak_type=weak)
    else:
        scalar = (
            weak_scalar(np.asarray(fill_value).item(), dtype)
            if weak
            else _strong_scalar(fill_value, dtype)
        )
    return broadcast_in_dim(scalar, shape, ())


def _strong_scalar(value: Any, dtype: np.dtype) -> Any:
    return weak_scalar(np.asarray(value).astype(dtype).item(), dtype, weak_type=False)


def full_like(
    x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None
) -> Any:
    """An array like `x` (shape, dtype, weak type) filled with `fill_value`."""
    aval = aval_of(x)
    target_dtype = aval.dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    target_shape = aval.shape if shape is None else _ints(shape, "shape", "full_like")
    weak = aval.weak_type and dtype is None
    if weak:
        scalar = weak_scalar(np.asarray(fill_value).astype(target_dtype).item(), target_dtype)
    else:
        scalar = _strong_scalar(fill_value, target_dtype)
    return broadcast_in_dim(scalar, target_shape, ())


def zeros_like_array(x: Any) -> Any:
    return full_like(x, 0)


# --- concatenate -------------------------------------------------------------------------------


def _concatenate_rule(*operands: ShapedArray, dimension: int) -> ShapedArray:
    first = operands[0]
    if not 0 <= dimension < first.ndim:
        raise _error("concatenate", f"dimension {dimension} out of range for {first.str_short()}")
    for x in operands[1:]:
        if x.dtype != first.dtype:
            raise _error(
                "concatenate",
                "operands must have the same dtype, got "
                f"{', '.join(o.dtype.name for o in operands)}",
            )
        if x.ndim != first.ndim or any(
            a != b
            for i, (a, b) in enumerate(zip(x.shape, first.shape, strict=True))
            if i != dimension
        ):
            raise _error(
                "concatenate",
                "operands must have equal shapes except along dimension "
                f"{dimension}, got {', '.join(o.str_short() for o in operands)}",
            )
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in operands)
    return ShapedArray(shape, first.dtype, all(x.weak_type for x in operands))


def _concatenate_transpose(ct, *operands, dimension):
    results, start = [], 0
    for x in operands:
        size = x.aval.shape[dimension]
        results.append(
            slice_in_dim(ct, start, start + size, axis=dimension) if _undefined(x) else None
        )
        start += size
    return results


def_op(
    "stablehlo.concatenate",
    _concatenate_rule,
    attribute_lowering("stablehlo.concatenate", dimension=("dimension", mlir.i64)),
    decode=lambda op: {"dimension": mlir.ir.IntegerAttr(op.attributes["dimension"]).value},
    jvp=_linear_jvp("stablehlo.concatenate"),
    transpose=_concatenate_transpose,
)


def _concatenate_batch(values, dims, *, axis_size, dimension):
    moved = [bdim_at_front(x, d, axis_size) for x, d in zip(values, dims, strict=True)]
    return concatenate(moved, dimension + 1), 0


dispatch.batch_rules["stablehlo.concatenate"] = _concatenate_batch


def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """Joins arrays along `dimension` (`stablehlo.concatenate`)."""
    operands = list(operands)
    if not operands:
        raise _error("concatenate", "needs at least one operand")
    if len(operands) == 1 and hasattr(operands[0], "aval"):
        return operands[0]
    return bind("stablehlo.concatenate", *operands, dimension=operator.index(dimension))


# --- slice and rev -----------------------------------------------------------------------------


def _slice_rule(x: ShapedArray, *, start_indices, limit_indices, strides) -> ShapedArray:
    n = x.ndim
    if not len(start_indices) == len(limit_indices) == len(strides) == n:
        raise _error(
            "slice",
            f"start_indices {start_indices}, limit_indices {limit_indices} and "
            f"strides {strides} must each have one entry per dimension of "
            f"{x.str_short()}",
        )
    for d, (lo, hi, st) in enumerate(zip(start_indices, limit_indices, strides, strict=True)):
        if st < 1 or not 0 <= lo <= hi <= x.shape[d]:
            raise _error(
                "slice", f"invalid slice [{lo}:{hi}:{st}] of dimension {d} of {x.str_short()}"
            )
    shape = tuple(
        (hi - lo + st - 1) // st
        for lo, hi, st in zip(start_indices, limit_indices, strides, strict=True)
    )
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_decode(op: Any) -> dict[str, Any]:
    names = ("start_indices", "limit_indices", "strides")
    return {name: _i64s(op, name) for name in names}


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    # Zeros around and between the sliced elements: a pad whose interior is stride - 1.
    config = []
    for d, lo, n, st in zip(x.aval.shape, start_indices, aval_of(ct).shape, strides, strict=True):
        used = lo + (n - 1) * st + 1 if n else lo
        config.append((lo, d - used, st - 1))
    return [pad(ct, _zeros(ShapedArray((), aval_of(ct).dtype)), config)]


def_op(
    "stablehlo.slice",
    _slice_rule,
    attribute_lowering(
        "stablehlo.slice",
        start_indices=("start_indices", mlir.i64_array),
        limit_indices=("limit_indices", mlir.i64_array),
        strides=("strides", mlir.i64_array),
    ),
    decode=_slice_decode,
    jvp=_linear_jvp("stablehlo.slice"),
    transpose=_slice_transpose,
)


def _slice_batch(values, dims, *, axis_size, start_indices, limit_indices, strides):
    b = dims[0]  # the whole batch dim, where it is
    starts, limits, steps = list(start_indices), list(limit_indices), list(strides)
    starts.insert(b, 0)
    limits.insert(b, axis_size)
    steps.insert(b, 1)
    return slice(values[0], starts, limits, steps), b


dispatch.batch_rules["stablehlo.slice"] = _slice_batch


def slice(  # noqa: A001
    operand: Any,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Any:
    """The static sub-array [start:limit:stride] in every dimension (`stablehlo.slice`)."""
    start = _ints(start_indices, "start_indices", "slice")
    limit = _ints(limit_indices, "limit_indices", "slice")
    step = (1,) * len(start) if strides is None else _ints(strides, "strides", "slice")
    aval = aval_of(operand)
    if start == (0,) * aval.ndim and limit == aval.shape and step == (1,) * aval.ndim:
        _slice_rule(aval, start_indices=start, limit_indices=limit, strides=step)
        return operand
    return bind("stablehlo.slice", operand, start_indices=start, limit_indices=limit, strides=step)


def _rev_rule(x: ShapedArray, *, dimensions) -> ShapedArray:
    if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise _error("rev", f"invalid dimensions {dimensions} for {x.str_short()}")
    return x


def_op(
    "stablehlo.reverse",
    _rev_rule,
    attribute_lowering("stablehlo.reverse", dimensions=("dimensions", mlir.i64_array)),
    decode=lambda op: {"dimensions": _i64s(op, "dimensions")},
    jvp=_linear_jvp("stablehlo.reverse"),
    transpose=lambda ct, x, *, dimensions: [rev(ct, dimensions)],
)
dispatch.batch_rules["stablehlo.reverse"] = lambda values, dims, *, axis_size, dimensions: (
    rev(values[0], tuple(d + (d >= dims[0]) for d in dimensions)),
    dims[0],
)


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """Reverses the order of elements along `dimensions` (`stablehlo.reverse`)."""
    dimensions = _ints(dimensions, "dimensions", "rev")
    if not dimensions:
        return operand
    return bind("stablehlo.reverse", operand, dimensions=dimensions)


# --- squeeze, expand_dims, collapse, broadcast_to_rank (all reshapes) --------------------------


def canonicalize_axis(axis: int, ndim: int, opname: str) -> int:
    """`axis` in [0, ndim), negative axes counting from the end; ValueError when out of range."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"lax.{opname}: axis {axis} is out of bounds for an array of rank {ndim}"
            f"{mlir.where_suffix()}"
        )
    return axis % ndim


def _unique_axes(axes: Sequence[int], ndim: int, opname: str) -> tuple[int, ...]:
    result = tuple(canonicalize_axis(a, ndim, opname) for a in _ints(axes, "dimensions", opname))
    if len(set(result)) != len(result):
        raise ValueError(
            f"lax.{opname}: repeated axis in dimensions {tuple(axes)}{mlir.where_suffix()}"
        )
    return result


def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
    """Removes the size-1 `dimensions` (negative ones count from the end).

    Args:
      array: the operand.
      dimensions: axes of `array`, each of size 1.

    Returns:
      `array` reshaped without those axes (`stablehlo.reshape`).
    """
    aval = aval_of(array)
    dims = _unique_axes(dimensions, aval.ndim, "squeeze")
    if any(aval.shape[d] != 1 for d in dims):
        raise ValueError(
            "lax.squeeze: cannot select an axis to squeeze out which has size not equal to one, "
            f"got shape={aval.shape} and dimensions={tuple(dimensions)}{mlir.where_suffix()}"
        )
    return reshape(array, tuple(d for i, d in enumerate(aval.shape) if i not in dims))


def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
    """Inserts size-1 axes so that they sit at `dimensions` of the result.

    Args:
      array: the operand.
      dimensions: positions in the output (of rank `array.ndim + len(dimensions)`); negative
        positions count from the end of the output.

    Returns:
      `array` reshaped with the new axes (`stablehlo.reshape`).

    Example: `expand_dims(x, (0, -1))` turns `float32[3]` into `float32[1,3,1]`.
    """
    aval = aval_of(array)
    ndim_out = aval.ndim + len(dimensions)
    dims = set(_unique_axes(dimensions, ndim_out, "expand_dims"))
    rest = iter(aval.shape)
    return reshape(array, tuple(1 if i in dims else next(rest) for i in range(ndim_out)))


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """Merges axes [start_dimension, stop_dimension) into one (row-major).

    Args:
      operand: the array.
      start_dimension: first axis to merge; negative counts from the end.
      stop_dimension: one past the last axis to merge (default: the rank); negative counts from
        the end.

    Returns:
      The reshaped array (`stablehlo.reshape`).
    """
    shape = aval_of(operand).shape
    lo = canonicalize_axis(start_dimension, len(shape), "collapse")
    hi = len(shape) if stop_dimension is None else operator.index(stop_dimension)
    hi = min(hi + len(shape) if hi < 0 else hi, len(shape))
    if hi < lo:
        raise ValueError(
            f"lax.collapse: invalid dimension range {shape}[{lo}:{hi}]{mlir.where_suffix()}"
        )
    size = int(np.prod(shape[lo:hi], dtype=np.int64))
    return reshape(operand, (*shape[:lo], size, *shape[hi:]))


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """Adds leading size-1 axes until `x` has `rank` axes (unchanged if it has that many)."""
    aval = aval_of(x)
    missing = operator.index(rank) - aval.ndim
    return x if missing <= 0 else broadcast(x, (1,) * missing)


# --- slice_in_dim and index_in_dim (static slices along one axis) ------------------------------


def slice_in_dim(
    operand: Any, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0
) -> Any:
    """`operand[start:limit:stride]` along `axis` (`stablehlo.slice`).

    Args:
      operand: the array.
      start_index: first index (None: 0); negative indices count from the end.
      limit_index: one past the last index (None: the axis size); negative counts from the end.
      stride: step, at least 1.
      axis: the axis to slice.

    Returns:
      The slice, of the operand's rank.
    """
    shape = aval_of(operand).shape
    axis = canonicalize_axis(axis, len(shape), "slice_in_dim")
    size = shape[axis]
    start = 0 if start_index is None else operator.index(start_index)
    limit = size if limit_index is None else operator.index(limit_index)
    start, limit = (start + size if start < 0 else start), (limit + size if limit < 0 else limit)
    if not 0 <= start <= limit <= size or operator.index(stride) < 1:
        raise _error(
            "slice_in_dim",
            f"invalid slice [{start_index}:{limit_index}:{stride}] of axis {axis} of size {size}",
        )
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, operator.index(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """`operand[index]` along `axis`, as a size-1 axis or (keepdims=False) without it.

    Args:
      operand: the array.
      index: a static index; negative counts from the end. IndexError when out of bounds.
      axis: the axis to index.
      keepdims: keep the indexed axis with size 1.

    Returns:
      The selected slice (`stablehlo.slice`, then `stablehlo.reshape` when not keepdims).
    """
    shape = aval_of(operand).shape
    axis = canonicalize_axis(axis, len(shape), "index_in_dim")
    index, size = operator.index(index), shape[axis]
    if not -size <= index < size:
        raise IndexError(
            f"lax.index_in_dim: index {index} is out of bounds for axis {axis} "
            f"with size {size}{mlir.where_suffix()}"
        )
    index %= size
    result = slice_in_dim(operand, index, index + 1, 1, axis)
    return result if keepdims else squeeze(result, (axis,))


# --- pad ---------------------------------------------------------------------------------------


def _pad_rule(x: ShapedArray, padding_value: ShapedArray, *, padding_config) -> ShapedArray:
    if padding_value.dtype != x.dtype:
        raise _error(
            "pad",
            "operand and padding_value must have the same dtype, got "
            f"{x.dtype.name} and {padding_value.dtype.name}",
        )
    if padding_value.shape != ():
        raise _error("pad", f"padding_value must be a scalar, got {padding_value.str_short()}")
    if len(padding_config) != x.ndim:
        raise ValueError(
            f"lax.pad: padding_config {padding_config} must have one (low, high, "
            f"interior) triple per dimension of {x.str_short()}{mlir.where_suffix()}"
        )
    if any(interior < 0 for _, _, interior in padding_config):
        raise ValueError(
            f"lax.pad: interior padding must be nonnegative, got padding_config "
            f"{padding_config}{mlir.where_suffix()}"
        )
    shape = tuple(
        lo + hi + d + max(d - 1, 0) * interior
        for d, (lo, hi, interior) in zip(x.shape, padding_config, strict=True)
    )
    if any(d < 0 for d in shape):
        raise ValueError(
            f"lax.pad: padding_config {padding_config} gives the negative shape "
            f"{shape} for {x.str_short()}{mlir.where_suffix()}"
        )
    return ShapedArray(shape, x.dtype, x.weak_type)


def _pad_lowering(operands, in_avals, out_avals, *, padding_config):
    low, high, interior = zip(*padding_config, strict=True) if padding_config else ((), (), ())
    op = mlir.emit(
        "stablehlo.pad",
        operands,
        [mlir.aval_type(out_avals[0])],
        {
            "edge_padding_low": mlir.i64_array(low),
            "edge_padding_high": mlir.i64_array(high),
            "interior_padding": mlir.i64_array(interior),
        },
    )
    return list(op.results)


def _pad_decode(op: Any) -> dict[str, Any]:
    names = ("edge_padding_low", "edge_padding_high", "interior_padding")
    return {"padding_config": tuple(zip(*(_i64s(op, n) for n in names), strict=True))}


def _pad_transpose(ct, x, padding_value, *, padding_config):
    from stablax._src.lax._elementwise import sub
    from stablax._src.lax._reductions import reduce_sum

    zero = _zeros(ShapedArray((), aval_of(ct).dtype))
    # Undo the edges (negative ones grow back), then keep every (interior + 1)-th element.
    spread = pad(ct, zero, [(-lo, -hi, 0) for lo, hi, _ in padding_config])
    shape = aval_of(spread).shape
    t_x = slice(spread, (0,) * len(shape), shape, [i + 1 for _, _, i in padding_config])
    t_value = None
    if _undefined(padding_value):
        every = tuple(range(len(shape)))
        t_value = sub(reduce_sum(ct, every), reduce_sum(t_x, every))
    return [t_x if _undefined(x) else None, t_value]


def_op(
    "stablehlo.pad",
    _pad_rule,
    _pad_lowering,
    decode=_pad_decode,
    jvp=_linear_jvp("stablehlo.pad"),
    transpose=_pad_transpose,
)


def _pad_batch(values, dims, *, axis_size, padding_config):
    (x, value), (x_dim, value_dim) = values, dims
    if value_dim is None:
        config = list(padding_config)
        config.insert(x_dim, (0, 0, 0))
        return pad(x, value, config), x_dim
    # One padding value per example: pad with zeros, then select the value where a pad of a
    # mask of the same shape says padding.
    x = bdim_at_front(x, x_dim, axis_size)
    aval = aval_of(x)
    config = ((0, 0, 0), *padding_config)
    padded = pad(x, _zeros(ShapedArray((), aval.dtype)), config)
    inside = pad(full(aval.shape, True, np.bool_), False, config)
    shape = aval_of(padded).shape
    return select(inside, padded, broadcast_in_dim(value, shape, (0,))), 0


dispatch.batch_rules["stablehlo.pad"] = _pad_batch


def pad(operand: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """Pads each dimension with `padding_value`: low/high at the edges, interior between elements.

    Args:
      operand: the array.
      padding_value: a scalar of the operand's dtype (a Python scalar of the same kind adopts it).
      padding_config: one `(low, high, interior)` per dimension; negative low/high crop.

    Returns:
      The padded array (`stablehlo.pad`).

    Example: `pad(jnp.ones(3), 0., [(1, 2, 1)])` is `[0, 1, 0, 1, 0, 1, 0, 0]`.
    """
    try:
        config = tuple(tuple(operator.index(v) for v in triple) for triple in padding_config)
    except TypeError:
        config = ()
    if any(len(triple) != 3 for triple in config) or len(config) != len(padding_config):
        raise _error(
            "pad",
            f"padding_config must be a sequence of (low, high, interior) integer "
            f"triples, got {padding_config!r}",
        )
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval_of(operand).dtype)
    if dtypes.is_python_scalar(padding_value):
        padding_value = _scalar_operand(padding_value, [aval_of(operand).dtype])
    return bind("stablehlo.pad", operand, padding_value, padding_config=config)


# --- reduce_precision --------------------------------------------------------------------------


def _reduce_precision_rule(x: ShapedArray, *, exponent_bits: int, mantissa_bits: int):
    check_dtype("reduce_precision", x.dtype, (FLOAT,))
    if exponent_bits < 1:
        raise ValueError(
            f"lax.reduce_precision: exponent_bits must be positive, got "
            f"{exponent_bits}{mlir.where_suffix()}"
        )
    if mantissa_bits < 0:
        raise ValueError(
            f"lax.reduce_precision: mantissa_bits must be nonnegative, got "
            f"{mantissa_bits}{mlir.where_suffix()}"
        )
    return x


def _reduce_precision_lowering(operands, in_avals, out_avals, *, exponent_bits, mantissa_bits):
    op = mlir.emit(
        "stablehlo.reduce_precision",
        operands,
        [mlir.aval_type(out_avals[0])],
        {"exponent_bits": mlir.i32(exponent_bits), "mantissa_bits": mlir.i32(mantissa_bits)},
    )
    return list(op.results)


def _reduce_precision_decode(op: Any) -> dict[str, Any]:
    names = ("exponent_bits", "mantissa_bits")
    return {name: mlir.ir.IntegerAttr(op.attributes[name]).value for name in names}


def_op(
    "stablehlo.reduce_precision",
    _reduce_precision_rule,
    _reduce_precision_lowering,
    decode=_reduce_precision_decode,
    # As in JAX: linear, the tangent and cotangent rounded the same way.
    jvp=_linear_jvp("stablehlo.reduce_precision"),
    transpose=lambda ct, x, **params: [bind("stablehlo.reduce_precision", ct, **params)],
)
dispatch.batch_rules["stablehlo.reduce_precision"] = _same_bdim_batch("stablehlo.reduce_precision")


def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """Rounds floats to the nearest value of a narrower float format, keeping the dtype.

    Args:
      operand: a floating-point array.
      exponent_bits: exponent width of the format to emulate (at least 1).
      mantissa_bits: explicit mantissa width of that format (at least 0).

    Returns:
      An array of the operand's dtype (`stablehlo.reduce_precision`): round to nearest even,
      overflow to infinity, NaN kept. `reduce_precision(x, 5, 10)` rounds as float16 does.
    """
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval_of(operand).dtype)
    return bind(
        "stablehlo.reduce_precision",
        operand,
        exponent_bits=operator.index(exponent_bits),
        mantissa_bits=operator.index(mantissa_bits),
    )
