"""Ops that move, convert or create data without arithmetic: convert, broadcast, reshape, iota, ...

Parameters are normalised to tuples of Python ints before `bind`, so they can key caches.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray
from stablax._src.dispatch import bind, def_op, weak_scalar


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


# --- convert_element_type ----------------------------------------------------------------------


def _convert_rule(x: ShapedArray, *, new_dtype: np.dtype, weak_type: bool) -> ShapedArray:
    return ShapedArray(x.shape, new_dtype, weak_type)


def_op("stablehlo.convert", _convert_rule)


def convert_element_type(operand: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """Casts to `new_dtype` (`stablehlo.convert`); to bool means `!= 0`, complex drops imag."""
    new_dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(new_dtype, "convert_element_type"))
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


def_op("stablehlo.bitcast_convert", _bitcast_rule)


def bitcast_convert_type(operand: Any, new_dtype: Any) -> Any:
    """Reinterprets the bits as `new_dtype`, adding/removing a trailing dim if sizes differ."""
    new_dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(new_dtype, "bitcast_convert_type"))
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


def _broadcast_in_dim_lowering(operands, in_avals, out_avals, *, shape, broadcast_dimensions):
    op = mlir.emit(
        "stablehlo.broadcast_in_dim",
        operands,
        [mlir.aval_type(out_avals[0])],
        {"broadcast_dimensions": mlir.i64_array(broadcast_dimensions)},
    )
    return list(op.results)


def_op("stablehlo.broadcast_in_dim", _broadcast_in_dim_rule, _broadcast_in_dim_lowering)


def broadcast_in_dim(operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
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


def_op("stablehlo.reshape", _reshape_rule)


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
            "transpose", f"permutation {permutation} is not a permutation of the axes of "
            f"{x.str_short()}"
        )
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


def _transpose_lowering(operands, in_avals, out_avals, *, permutation):
    op = mlir.emit("stablehlo.transpose", operands, [mlir.aval_type(out_avals[0])],
                   {"permutation": mlir.i64_array(permutation)})
    return list(op.results)


def_op("stablehlo.transpose", _transpose_rule, _transpose_lowering)


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
    op = mlir.emit("stablehlo.iota", [], [mlir.aval_type(out_avals[0])],
                   {"iota_dimension": mlir.i64(dimension)})
    return list(op.results)


def_op("stablehlo.iota", _iota_rule, _iota_lowering)


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
        scalar = weak_scalar(np.asarray(fill_value).item(), dtype) if weak else _strong_scalar(
            fill_value, dtype)
    return broadcast_in_dim(scalar, shape, ())


def _strong_scalar(value: Any, dtype: np.dtype) -> Any:
    return weak_scalar(np.asarray(value).astype(dtype).item(), dtype, weak_type=False)


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None) -> Any:
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
            raise _error("concatenate", "operands must have the same dtype, got "
                         f"{', '.join(o.dtype.name for o in operands)}")
        if x.ndim != first.ndim or any(a != b for i, (a, b) in enumerate(
                zip(x.shape, first.shape, strict=True)) if i != dimension):
            raise _error("concatenate", "operands must have equal shapes except along dimension "
                         f"{dimension}, got {', '.join(o.str_short() for o in operands)}")
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in operands)
    return ShapedArray(shape, first.dtype, all(x.weak_type for x in operands))


def _concatenate_lowering(operands, in_avals, out_avals, *, dimension):
    op = mlir.emit("stablehlo.concatenate", operands, [mlir.aval_type(out_avals[0])],
                   {"dimension": mlir.i64(dimension)})
    return list(op.results)


def_op("stablehlo.concatenate", _concatenate_rule, _concatenate_lowering)


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
        raise _error("slice", f"start_indices {start_indices}, limit_indices {limit_indices} and "
                     f"strides {strides} must each have one entry per dimension of "
                     f"{x.str_short()}")
    for d, (lo, hi, st) in enumerate(zip(start_indices, limit_indices, strides, strict=True)):
        if st < 1 or not 0 <= lo <= hi <= x.shape[d]:
            raise _error("slice", f"invalid slice [{lo}:{hi}:{st}] of dimension {d} of "
                         f"{x.str_short()}")
    shape = tuple((hi - lo + st - 1) // st for lo, hi, st in
                  zip(start_indices, limit_indices, strides, strict=True))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_lowering(operands, in_avals, out_avals, *, start_indices, limit_indices, strides):
    op = mlir.emit("stablehlo.slice", operands, [mlir.aval_type(out_avals[0])], {
        "start_indices": mlir.i64_array(start_indices),
        "limit_indices": mlir.i64_array(limit_indices),
        "strides": mlir.i64_array(strides),
    })
    return list(op.results)


def_op("stablehlo.slice", _slice_rule, _slice_lowering)


def slice(operand: Any, start_indices: Sequence[int], limit_indices: Sequence[int],  # noqa: A001
          strides: Sequence[int] | None = None) -> Any:
    """The static sub-array [start:limit:stride] in every dimension (`stablehlo.slice`)."""
    start = _ints(start_indices, "start_indices", "slice")
    limit = _ints(limit_indices, "limit_indices", "slice")
    step = (1,) * len(start) if strides is None else _ints(strides, "strides", "slice")
    aval = aval_of(operand)
    if start == (0,) * aval.ndim and limit == aval.shape and step == (1,) * aval.ndim:
        _slice_rule(aval, start_indices=start, limit_indices=limit, strides=step)
        return operand
    return bind("stablehlo.slice", operand, start_indices=start, limit_indices=limit,
                strides=step)


def _rev_rule(x: ShapedArray, *, dimensions) -> ShapedArray:
    if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise _error("rev", f"invalid dimensions {dimensions} for {x.str_short()}")
    return x


def _rev_lowering(operands, in_avals, out_avals, *, dimensions):
    op = mlir.emit("stablehlo.reverse", operands, [mlir.aval_type(out_avals[0])],
                   {"dimensions": mlir.i64_array(dimensions)})
    return list(op.results)


def_op("stablehlo.reverse", _rev_rule, _rev_lowering)


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """Reverses the order of elements along `dimensions` (`stablehlo.reverse`)."""
    dimensions = _ints(dimensions, "dimensions", "rev")
    if not dimensions:
        return operand
    return bind("stablehlo.reverse", operand, dimensions=dimensions)
