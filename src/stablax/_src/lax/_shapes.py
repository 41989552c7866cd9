"""The core layout ops the rest of lax is built from: convert_element_type, broadcast_in_dim,
reshape, transpose, iota and full; and the helpers every shape op shares (parameter checks,
attribute decoders, the linear jvp, batch dims). Parameters are normalised to tuples of ints.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, runtime
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind, weak_scalar
from stablax._src.interpreters.batching import moveaxis
from stablax._src.lax._argcheck import lax_ints
from stablax._src.lax._elementwise_common import _prepare
from stablax._src.lax._reduce_monoids import reduce_sum
from stablax._src.op_rules import attribute_lowering, def_op


def _error(opname: str, message: str) -> TypeError:
    return TypeError(f"lax.{opname}: {message}{mlir.where_suffix()}")


def i64s(op: Any, name: str) -> tuple[int, ...]:
    return tuple(int(v) for v in mlir.ir.DenseI64ArrayAttr(op.attributes[name]))


def result_aval(op: Any) -> ShapedArray:
    t = op.results[0].type
    return ShapedArray(mlir.shape_of_type(t), mlir.dtype_of_type(t))


# --- derivative helpers (rules are written with lax functions, see transforms/ad.py) -----------


def zeros(aval: ShapedArray) -> Any:
    return full(aval.shape, 0, aval.dtype)


def linear_jvp(name: str):
    """The jvp of an op linear in all its operands: the op applied to the tangents."""

    def jvp(primals, tangents, **params):
        tangents = [zeros(aval_of(p)) if t is None else t for p, t in zip(primals, tangents)]
        return bind(name, *primals, **params), bind(name, *tangents, **params)

    return jvp


def same_bdim_batch(name: str):
    """The batching rule of a one-operand op that maps each element on its own, whatever the
    shape: the op applies to the batched operand as it is."""

    def rule(values, dims, *, axis_size, **params):
        return bind(name, values[0], **params), dims[0]

    return rule


def batch_at(x: Any, bdim: int | None, dst: int, axis_size: int) -> Any:
    """x with its batch dimension at `dst`, broadcasting an unbatched x (shared by the rules of
    multi-operand ops, which need one batch position for all operands)."""
    if bdim is not None:
        return moveaxis(x, bdim, dst)
    shape = list(aval_of(x).shape)
    shape.insert(dst, axis_size)
    return broadcast_in_dim(x, shape, [d for d in range(len(shape)) if d != dst])


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
    decode=lambda op: {"new_dtype": result_aval(op).dtype, "weak_type": False},
    jvp=_convert_jvp,
    transpose=_convert_transpose,
    batch=same_bdim_batch("stablehlo.convert"),
)


def convert_element_type(operand: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """Casts to `new_dtype` (`stablehlo.convert`); to bool means `!= 0`, complex drops imag."""
    if new_dtype is None:  # JAX's check and class
        raise ValueError(f"lax.convert_element_type: dtype must be specified{mlir.where_suffix()}")
    new_dtype = dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(new_dtype, "convert_element_type")
    )
    if type(operand) is int:  # wraps like NumPy's astype, as JAX: no int32/int64 overflow check
        try:
            host = np.asarray(operand).astype(new_dtype)[()]
        except OverflowError:
            raise OverflowError(
                f"lax.convert_element_type: Python int {operand} too large to convert to "
                f"{new_dtype.name}{mlir.where_suffix()}"
            ) from None
        return weak_scalar(host, new_dtype, weak_type=bool(weak_type))
    aval = aval_of(operand)
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval.dtype, weak_type=aval.weak_type)  # bools: strong
    old = aval.dtype
    if old == new_dtype and aval.weak_type == weak_type and hasattr(operand, "aval"):
        return operand
    # lax.ne and lax.real, bound here: the elementwise wrappers sit above this module.
    if new_dtype == np.bool_ and old != np.bool_:
        zero = weak_scalar(0, old) if old.kind != "c" else weak_scalar(0j, old)
        out = bind("stablehlo.compare", *_prepare("ne", operand, zero), direction="NE")
        if aval_of(out).weak_type == weak_type:
            return out
        return bind("stablehlo.convert", out, new_dtype=new_dtype, weak_type=bool(weak_type))
    if old.kind == "c" and new_dtype.kind != "c":
        operand = bind("stablehlo.real", *_prepare("real", operand))
    return bind("stablehlo.convert", operand, new_dtype=new_dtype, weak_type=bool(weak_type))


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
        "shape": result_aval(op).shape,
        "broadcast_dimensions": i64s(op, "broadcast_dimensions"),
    }


def _broadcast_in_dim_batch(values, dims, *, axis_size, shape, broadcast_dimensions):
    x = moveaxis(values[0], dims[0], 0)
    target = (0, *(d + 1 for d in broadcast_dimensions))
    return broadcast_in_dim(x, (axis_size, *shape), target), 0


def _unbroadcast(ct: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """Sums `ct` over the dimensions a broadcast created or stretched, back to `shape`."""
    out_shape = aval_of(ct).shape
    summed = [d for d in range(len(out_shape)) if d not in broadcast_dimensions]
    summed += [d for i, d in enumerate(broadcast_dimensions) if shape[i] == 1 and out_shape[d] != 1]
    return reshape(reduce_sum(ct, summed), shape)


def_op(
    "stablehlo.broadcast_in_dim",
    _broadcast_in_dim_rule,
    attribute_lowering(
        "stablehlo.broadcast_in_dim",
        broadcast_dimensions=("broadcast_dimensions", mlir.i64_array),
    ),
    decode=_broadcast_in_dim_decode,
    jvp=linear_jvp("stablehlo.broadcast_in_dim"),
    transpose=lambda ct, x, *, shape, broadcast_dimensions: [
        _unbroadcast(ct, x.aval.shape, broadcast_dimensions)
    ],
    batch=_broadcast_in_dim_batch,
)


def broadcast_in_dim(
    operand: Any,
    shape: Sequence[int],
    broadcast_dimensions: Sequence[int],
    *,
    out_sharding: Any = None,
) -> Any:
    """Broadcasts to `shape`, operand dim i going to `broadcast_dimensions[i]`.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "lax.broadcast_in_dim")
    shape = lax_ints(shape, "shape", "broadcast_in_dim")
    dims = lax_ints(broadcast_dimensions, "broadcast_dimensions", "broadcast_in_dim")
    aval = aval_of(operand)
    if aval.shape == shape and dims == tuple(range(len(shape))) and hasattr(operand, "aval"):
        return operand
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval.dtype, aval.weak_type)
    return bind("stablehlo.broadcast_in_dim", operand, shape=shape, broadcast_dimensions=dims)


def broadcast(operand: Any, sizes: Sequence[int], *, out_sharding: Any = None) -> Any:
    """Adds leading dimensions of the given sizes.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "lax.broadcast")
    sizes = lax_ints(sizes, "sizes", "broadcast")
    aval = aval_of(operand)
    dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
    return broadcast_in_dim(operand, sizes + aval.shape, dims)


# --- reshape -----------------------------------------------------------------------------------


def _reshape_rule(x: ShapedArray, *, new_sizes) -> ShapedArray:
    if any(d < 0 for d in new_sizes):
        raise _error("reshape", f"negative dimension in new_sizes {new_sizes}")
    if math.prod(new_sizes) != x.size:
        raise _error("reshape", f"cannot reshape {x.str_short()} into shape {new_sizes}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def_op(
    "stablehlo.reshape",
    _reshape_rule,
    decode=lambda op: {"new_sizes": result_aval(op).shape},
    jvp=linear_jvp("stablehlo.reshape"),
    transpose=lambda ct, x, *, new_sizes: [reshape(ct, x.aval.shape)],
    # Row-major order only survives with the batch dim first.
    batch=lambda values, dims, *, axis_size, new_sizes: (
        reshape(moveaxis(values[0], dims[0], 0), (axis_size, *new_sizes)),
        0,
    ),
)


def reshape(
    operand: Any,
    new_sizes: Sequence[int],
    dimensions: Sequence[int] | None = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """Reshapes in row-major order, after transposing by `dimensions` if given.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "lax.reshape")
    new_sizes = lax_ints(new_sizes, "new_sizes", "reshape")
    aval = aval_of(operand)
    if dimensions is not None:
        dimensions = lax_ints(dimensions, "dimensions", "reshape")
        if dimensions != tuple(range(aval.ndim)):
            operand = transpose(operand, dimensions)
            aval = aval_of(operand)  # the permuted operand's shape is the one compared below
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


def _transpose_batch(values, dims, *, axis_size, permutation):
    b = dims[0]  # the batch dim goes first, the others are permuted around it
    return transpose(values[0], (b, *(p + (p >= b) for p in permutation))), 0


def_op(
    "stablehlo.transpose",
    _transpose_rule,
    attribute_lowering("stablehlo.transpose", permutation=("permutation", mlir.i64_array)),
    decode=lambda op: {"permutation": i64s(op, "permutation")},
    jvp=linear_jvp("stablehlo.transpose"),
    transpose=lambda ct, x, *, permutation: [transpose(ct, np.argsort(permutation))],
    batch=_transpose_batch,
)


def transpose(operand: Any, permutation: Sequence[int]) -> Any:
    """Permutes the axes: output axis i is operand axis `permutation[i]` (`stablehlo.transpose`)."""
    permutation = lax_ints(permutation, "permutation", "transpose")
    if permutation == tuple(range(len(permutation))) and hasattr(operand, "aval"):
        _transpose_rule(operand.aval, permutation=permutation)
        return operand
    return bind("stablehlo.transpose", operand, permutation=permutation)


# --- iota and constants ------------------------------------------------------------------------


_IOTA_BOOL = "does not accept dtype bool; use an integer, float or complex dtype"


def _iota_rule(*, dtype, shape, dimension) -> ShapedArray:
    if dtype == np.bool_:
        raise _error("iota", _IOTA_BOOL)
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
    aval = result_aval(op)
    dimension = mlir.ir.IntegerAttr(op.attributes["iota_dimension"]).value
    return {"dtype": aval.dtype, "shape": aval.shape, "dimension": dimension}


def_op(
    "stablehlo.iota",
    _iota_rule,
    _iota_lowering,
    decode=_iota_decode,
    # No operands, so never batched: vmap emits it as it is (the rule is here for the table's sake).
    batch=lambda values, dims, *, axis_size, **params: (bind("stablehlo.iota", **params), None),
    differentiable=False,
)


def broadcasted_iota(
    dtype: Any, shape: Sequence[int], dimension: int, *, out_sharding: Any = None
) -> Any:
    """An array of `shape` counting 0, 1, ... along `dimension` (`stablehlo.iota`).

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    if dtype is None:  # JAX's class, before the sharding
        raise ValueError(f"lax.iota: dtype must be specified{mlir.where_suffix()}")
    runtime.check_sharding(out_sharding, "lax.broadcasted_iota")
    dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "iota"))
    shape = lax_ints((shape,) if isinstance(shape, int) else shape, "shape", "iota")  # as JAX
    if any(d < 0 for d in shape):  # JAX's class and words
        raise TypeError(
            f"iota shape must have every element be nonnegative, got {shape}.{mlir.where_suffix()}"
        )
    if dtype == np.bool_:  # JAX's order: the shape's signs, the dtype, then the dimension
        raise _error("iota", _IOTA_BOOL)
    dimension = operator.index(dimension)
    if not 0 <= dimension < len(shape):  # JAX's class
        raise ValueError(
            f"lax.iota: dimension must be in [0, {len(shape)}) for shape {shape}, got "
            f"{dimension}{mlir.where_suffix()}"
        )
    return bind("stablehlo.iota", dtype=dtype, shape=shape, dimension=dimension)


def iota(dtype: Any, size: int) -> Any:
    """0, 1, ..., size - 1 (`stablehlo.iota`)."""
    return broadcasted_iota(dtype, (operator.index(size),), 0)


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None, *, sharding: Any = None) -> Any:
    """An array of `shape` filled with `fill_value` (a broadcast scalar); a Python int shape
    is one dimension, as in JAX.

    `sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(sharding, "lax.full", "sharding")
    shape = lax_ints((shape,) if isinstance(shape, int) else shape, "shape", "full")
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
        _check_complex_fill(fill_value, dtype, "full")
        scalar = weak_scalar(_host_fill(fill_value, dtype), dtype, weak_type=weak)
    return broadcast_in_dim(scalar, shape, ())


def _check_complex_fill(fill_value: Any, dtype: Any, name: str) -> None:
    """A Python complex converts only to complex and bool (Python's int()/float() rule, which
    JAX applies): NumPy's cast would drop the imaginary part silently. NumPy's complex128
    subclasses `complex`, but JAX casts NumPy scalars as NumPy does, so it is not refused."""
    if type(fill_value) is complex and np.dtype(dtype).kind not in "cb":
        raise _error(name, f"a complex fill_value {fill_value!r} cannot be converted to {dtype}")


def _host_fill(value: Any, dtype: np.dtype, name: str = "full") -> Any:
    """A host fill value cast to `dtype` as NumPy casts it (JAX's rule: 2**40 wraps in int32),
    as a Python scalar. A Python int beyond 64 bits converts straight to `dtype`: 2**100 fills
    a float32 array, as in JAX, and overflows an integer one."""
    host = np.asarray(value)
    if host.dtype.kind == "O" and isinstance(value, int):
        try:
            return np.array(value, dtype).item()
        except OverflowError:
            raise OverflowError(
                f"lax.{name}: Python int {value} too large to convert to "
                f"{np.dtype(dtype).name}{mlir.where_suffix()}"
            ) from None
    if host.dtype.kind in "OUS":  # objects and strings: NumPy would fail inside .astype
        raise _error(name, f"fill_value must be a number, got {type(value).__name__}")
    if type(value) is float and np.dtype(dtype).kind in "iu":
        # A Python float converts as XLA converts it in JAX: NaN is 0 and the rest saturates
        # (NumPy's cast of -inf to int8 is undefined: 0 here, where JAX fills -128)
        info = np.iinfo(dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            cast = np.where(np.isnan(host), 0, host).astype(dtype)
        cast = np.where(host >= info.max, info.max, np.where(host <= info.min, info.min, cast))
        return cast.astype(dtype).item()
    return host.astype(dtype).item()


def full_like(
    x: Any,
    fill_value: Any,
    dtype: Any = None,
    shape: Sequence[int] | None = None,
    sharding: Any = None,
) -> Any:
    """An array like `x` (shape, dtype, weak type) filled with `fill_value` (a scalar);
    `sharding` is None or a sharding on stablax's one device."""
    runtime.check_sharding(sharding, "lax.full_like", "sharding")
    fill_shape = np.shape(fill_value) if not hasattr(fill_value, "aval") else fill_value.aval.shape
    if fill_shape != ():  # JAX's class
        raise TypeError(
            f"lax.full_like: fill_value must be a scalar, got shape {fill_shape}"
            f"{mlir.where_suffix()}"
        )
    aval = aval_of(x)
    target_dtype = aval.dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    if isinstance(shape, int):  # one dimension, as in JAX
        shape = (shape,)
    target_shape = aval.shape if shape is None else lax_ints(shape, "shape", "full_like")
    weak = aval.weak_type and dtype is None
    if not weak and not hasattr(fill_value, "aval"):  # a weak x takes NumPy's cast, as JAX
        _check_complex_fill(fill_value, target_dtype, "full_like")
    if hasattr(fill_value, "aval"):  # an array or a traced value, converted in the program
        scalar = convert_element_type(fill_value, target_dtype, weak_type=weak)
    else:  # bytes and str are no numbers here either (NumPy would parse b"1" as 1)
        fill = _host_fill(fill_value, target_dtype, "full_like")
        scalar = weak_scalar(fill, target_dtype, weak_type=weak)
    return broadcast_in_dim(scalar, target_shape, ())


def zeros_like_array(x: Any) -> Any:
    return full_like(x, 0)
