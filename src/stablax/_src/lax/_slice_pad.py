"""Static slices and the linear ops they pair with: slice and pad (each other's transpose),
concatenate (which transposes to slices) and rev; and the one-axis conveniences slice_in_dim and
index_in_dim. Slices at runtime offsets live in _slicing.py."""

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
from stablax._src.interpreters.batching import bdim_at_front
from stablax._src.lax._argcheck import RANK, axis_arg, lax_ints, sequence
from stablax._src.lax._elementwise import select, sub
from stablax._src.lax._elementwise_common import _scalar_operand
from stablax._src.lax._reduce_monoids import reduce_sum
from stablax._src.lax._reshape_axes import squeeze
from stablax._src.lax._shapes import (
    _error,
    broadcast_in_dim,
    convert_element_type,
    full,
    i64s,
    linear_jvp,
    zeros,
)
from stablax._src.op_rules import attribute_lowering, def_op

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
    if len(operands) > 1 and dtypes.itemsize_bits(first.dtype) == 2:
        # XLA:CPU aborts the process on a concatenation of 2-bit integers (JAX's too).
        raise _error("concatenate", f"does not accept dtype {first.dtype.name} (XLA's limit)")
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in operands)
    return ShapedArray(shape, first.dtype, all(x.weak_type for x in operands))


def _concatenate_transpose(ct, *operands, dimension):
    results, start = [], 0
    for x in operands:
        size = x.aval.shape[dimension]
        results.append(
            slice_in_dim(ct, start, start + size, axis=dimension) if is_undefined(x) else None
        )
        start += size
    return results


def _concatenate_batch(values, dims, *, axis_size, dimension):
    moved = [bdim_at_front(x, d, axis_size) for x, d in zip(values, dims, strict=True)]
    return concatenate(moved, dimension + 1), 0


def_op(
    "stablehlo.concatenate",
    _concatenate_rule,
    attribute_lowering("stablehlo.concatenate", dimension=("dimension", mlir.i64)),
    decode=lambda op: {"dimension": mlir.ir.IntegerAttr(op.attributes["dimension"]).value},
    jvp=linear_jvp("stablehlo.concatenate"),
    transpose=_concatenate_transpose,
    batch=_concatenate_batch,
)


def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """Joins arrays along `dimension` (`stablehlo.concatenate`)."""
    operands = sequence(operands, "operands", "lax.concatenate")
    if not operands:  # JAX's class
        raise ValueError(f"lax.concatenate: needs at least one operand{mlir.where_suffix()}")
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
    return {name: i64s(op, name) for name in names}


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    # Zeros around and between the sliced elements: a pad whose interior is stride - 1.
    config = []
    for d, lo, n, st in zip(x.aval.shape, start_indices, aval_of(ct).shape, strides, strict=True):
        used = lo + (n - 1) * st + 1 if n else lo
        config.append((lo, d - used, st - 1))
    return [pad(ct, zeros(ShapedArray((), aval_of(ct).dtype)), config)]


def _slice_batch(values, dims, *, axis_size, start_indices, limit_indices, strides):
    b = dims[0]  # the whole batch dim, where it is
    starts, limits, steps = list(start_indices), list(limit_indices), list(strides)
    starts.insert(b, 0)
    limits.insert(b, axis_size)
    steps.insert(b, 1)
    return slice(values[0], starts, limits, steps), b


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
    jvp=linear_jvp("stablehlo.slice"),
    transpose=_slice_transpose,
    batch=_slice_batch,
)


def slice(  # noqa: A001
    operand: Any,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Any:
    """The static sub-array [start:limit:stride] in every dimension (`stablehlo.slice`)."""
    start = lax_ints(start_indices, "start_indices", "slice")
    limit = lax_ints(limit_indices, "limit_indices", "slice")
    step = (1,) * len(start) if strides is None else lax_ints(strides, "strides", "slice")
    aval = aval_of(operand)
    if start == (0,) * aval.ndim and limit == aval.shape and step == (1,) * aval.ndim:
        _slice_rule(aval, start_indices=start, limit_indices=limit, strides=step)
        return _as_array(operand, aval)
    if len(start) == len(limit) == len(step):
        # A stride past the slice's length takes its first element only: the same slice with
        # that length as the stride, which fits the op's 64-bit attribute (2**63 does not).
        step = tuple(
            min(st, max(hi - lo, 1)) for lo, hi, st in zip(start, limit, step, strict=True)
        )
    return bind("stablehlo.slice", operand, start_indices=start, limit_indices=limit, strides=step)


def _rev_rule(x: ShapedArray, *, dimensions) -> ShapedArray:
    if any(not 0 <= d < x.ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise _error("rev", f"invalid dimensions {dimensions} for {x.str_short()}")
    return x


def _rev_batch(values, dims, *, axis_size, dimensions):
    return rev(values[0], tuple(d + (d >= dims[0]) for d in dimensions)), dims[0]


def_op(
    "stablehlo.reverse",
    _rev_rule,
    attribute_lowering("stablehlo.reverse", dimensions=("dimensions", mlir.i64_array)),
    decode=lambda op: {"dimensions": i64s(op, "dimensions")},
    jvp=linear_jvp("stablehlo.reverse"),
    transpose=lambda ct, x, *, dimensions: [rev(ct, dimensions)],
    batch=_rev_batch,
)


def _as_array(operand: Any, aval: ShapedArray) -> Any:
    """`operand` itself when it is an array or tracer; a Python or NumPy value as an array of
    its canonical dtype and weak type (what a no-op lax function returns, as in JAX)."""
    if hasattr(operand, "aval"):
        return operand
    return convert_element_type(operand, aval.dtype, weak_type=aval.weak_type)


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """Reverses the order of elements along `dimensions` (`stablehlo.reverse`)."""
    dimensions = lax_ints(dimensions, "dimensions", "rev")
    if not dimensions:
        return _as_array(operand, aval_of(operand))
    return bind("stablehlo.reverse", operand, dimensions=dimensions)


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
    axis = axis_arg(axis, len(shape), "lax.slice_in_dim", array=RANK)
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
    axis = axis_arg(axis, len(shape), "lax.index_in_dim", array=RANK)
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
    return {"padding_config": tuple(zip(*(i64s(op, n) for n in names), strict=True))}


def _pad_transpose(ct, x, padding_value, *, padding_config):
    zero = zeros(ShapedArray((), aval_of(ct).dtype))
    # Undo the edges (negative ones grow back), then keep every (interior + 1)-th element.
    spread = pad(ct, zero, [(-lo, -hi, 0) for lo, hi, _ in padding_config])
    shape = aval_of(spread).shape
    t_x = slice(spread, (0,) * len(shape), shape, [i + 1 for _, _, i in padding_config])
    t_value = None
    if is_undefined(padding_value):
        every = tuple(range(len(shape)))
        t_value = sub(reduce_sum(ct, every), reduce_sum(t_x, every))
    return [t_x if is_undefined(x) else None, t_value]


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
    padded = pad(x, zeros(ShapedArray((), aval.dtype)), config)
    inside = pad(full(aval.shape, True, np.bool_), False, config)
    shape = aval_of(padded).shape
    return select(inside, padded, broadcast_in_dim(value, shape, (0,))), 0


def_op(
    "stablehlo.pad",
    _pad_rule,
    _pad_lowering,
    decode=_pad_decode,
    jvp=linear_jvp("stablehlo.pad"),
    transpose=_pad_transpose,
    batch=_pad_batch,
)


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
    if hasattr(padding_value, "shape") and tuple(padding_value.shape) != ():  # first, as JAX
        raise ValueError(
            f"lax.pad: padding_value must be a scalar, got shape {tuple(padding_value.shape)}"
            f"{mlir.where_suffix()}"
        )
    try:
        config = tuple(tuple(operator.index(v) for v in triple) for triple in padding_config)
        count = len(padding_config)
    except TypeError:
        config, count = (), -1
    if any(len(triple) != 3 for triple in config) or len(config) != count:
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
