"""Conversions that act on the bit representation: bitcast_convert_type (the same bits read as
another dtype) and reduce_precision (floats rounded to a narrower format). convert_element_type
lives in _shapes.py, since full needs it."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind, weak_scalar
from stablax._src.interpreters.batching import moveaxis
from stablax._src.lax._elementwise_common import FLOAT, check_dtype
from stablax._src.lax._shapes import _error, linear_jvp, result_aval, same_bdim_batch
from stablax._src.op_rules import def_op

# --- bitcast_convert_type ----------------------------------------------------------------------


def _bitcast_rule(x: ShapedArray, *, new_dtype: np.dtype) -> ShapedArray:
    old_size, new_size = dtypes.itemsize_bits(x.dtype), dtypes.itemsize_bits(new_dtype)
    if old_size == new_size:
        shape = x.shape
    elif old_size > new_size:
        shape = (*x.shape, old_size // new_size)
    else:
        if not x.shape or x.shape[-1] != new_size // old_size:
            raise ValueError(
                f"lax.bitcast_convert_type: cannot bitcast {x.str_short()} to {new_dtype.name}: "
                f"the last dimension must be {new_size // old_size}{mlir.where_suffix()}"
            )
        shape = x.shape[:-1]
    # JAX checks the sizes first, then the kinds
    kinds = {x.dtype.kind, new_dtype.kind}
    if x.dtype != new_dtype and ("b" in kinds or "c" in kinds):
        raise _error(
            "bitcast_convert_type",
            f"bool and complex values are not supported unless the operand and destination "
            f"types match, got {x.dtype.name} to {new_dtype.name}; use arr.view() instead",
        )
    return ShapedArray(shape, new_dtype, False)


def _bitcast_batch(values, dims, *, axis_size, new_dtype):
    (x,), (d,) = values, dims
    aval = aval_of(x)
    if d == aval.ndim - 1 and aval.dtype.itemsize < new_dtype.itemsize:  # the last dim is eaten
        x, d = moveaxis(x, d, 0), 0
    return bind("stablehlo.bitcast_convert", x, new_dtype=new_dtype), d


def_op(
    "stablehlo.bitcast_convert",
    _bitcast_rule,
    decode=lambda op: {"new_dtype": result_aval(op).dtype},
    batch=_bitcast_batch,
    differentiable=False,
)


def bitcast_convert_type(operand: Any, new_dtype: Any) -> Any:
    """Reinterprets the bits as `new_dtype`, adding/removing a trailing dim if sizes differ."""
    if new_dtype is None:  # JAX's class
        raise ValueError(f"lax.bitcast_convert_type: dtype must be specified{mlir.where_suffix()}")
    new_dtype = dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(new_dtype, "bitcast_convert_type")
    )
    return bind("stablehlo.bitcast_convert", operand, new_dtype=new_dtype)


# --- reduce_precision --------------------------------------------------------------------------


def _reduce_precision_rule(x: ShapedArray, *, exponent_bits: int, mantissa_bits: int):
    _check_bits(exponent_bits, mantissa_bits)
    check_dtype("reduce_precision", x.dtype, (FLOAT,))
    # JAX meets the int32 limit only when lowering, after the dtype check
    if exponent_bits >= 2**31 or mantissa_bits >= 2**31:  # StableHLO's attributes are int32
        raise ValueError(
            f"lax.reduce_precision: exponent_bits and mantissa_bits must be below 2**31, got "
            f"{exponent_bits} and {mantissa_bits}{mlir.where_suffix()}"
        )
    return x


def _check_bits(exponent_bits: int, mantissa_bits: int) -> None:
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
    jvp=linear_jvp("stablehlo.reduce_precision"),
    transpose=lambda ct, x, **params: [bind("stablehlo.reduce_precision", ct, **params)],
    batch=same_bdim_batch("stablehlo.reduce_precision"),
)


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
    aval_of(operand)  # an operand that is no array (None, bytes) first, as JAX
    exponent_bits, mantissa_bits = operator.index(exponent_bits), operator.index(mantissa_bits)
    _check_bits(exponent_bits, mantissa_bits)  # before the dtype, as JAX
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval_of(operand).dtype)
    return bind(
        "stablehlo.reduce_precision",
        operand,
        exponent_bits=operator.index(exponent_bits),
        mantissa_bits=operator.index(mantissa_bits),
    )
