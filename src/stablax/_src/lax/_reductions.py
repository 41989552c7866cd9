"""Reductions over axes: sum, prod, max, min, and, or, xor, and argmax/argmin (`stablehlo.reduce`).

One op, `stablehlo.reduce`, with a `computation` parameter naming its body. For the monoids the
body is a single binary op on scalars, which is what the autodiff and batching rules read back;
argmax/argmin reduce (values, indices) pairs with a comparator body.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray, Tracer, current_trace, to_tracer
from stablax._src.dispatch import bind, def_op
from stablax._src.ir import ir
from stablax._src.lax import _elementwise as ew
from stablax._src.lax._elementwise import ANY, BOOL, FLOAT, INT, INT_OR_BOOL, check_dtype
from stablax._src.lax._shapes import aval_of, broadcasted_iota

# computation -> (body op, accepted dtypes)
MONOIDS: dict[str, tuple[str, tuple]] = {
    "add": ("stablehlo.add", ANY),
    "mul": ("stablehlo.multiply", ANY),
    "max": ("stablehlo.maximum", ANY),
    "min": ("stablehlo.minimum", ANY),
    "and": ("stablehlo.and", INT_OR_BOOL),
    "or": ("stablehlo.or", INT_OR_BOOL),
    "xor": ("stablehlo.xor", INT_OR_BOOL),
}


def identity_element(computation: str, dtype: np.dtype) -> np.ndarray:
    """The value that leaves the reduction unchanged (0 for add, -inf/min int for max, ...)."""
    dtype = np.dtype(dtype)
    if computation in ("add", "or", "xor"):
        return np.zeros((), dtype)
    if computation == "mul":
        return np.ones((), dtype)
    if computation == "and":
        return np.asarray(True if dtype == np.bool_ else -1).astype(dtype)
    is_max = computation == "max"
    if dtype == np.bool_:
        return np.asarray(not is_max, dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.asarray(info.min if is_max else info.max, dtype)
    return np.asarray(-np.inf if is_max else np.inf, dtype)


def _normalize_axes(axes: Sequence[int], ndim: int, opname: str) -> tuple[int, ...]:
    result = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise ValueError(
                f"lax.{opname}: axis {a} is out of bounds for an array of rank {ndim}"
                f"{mlir.where_suffix()}"
            )
        result.append(a % ndim)
    if len(set(result)) != len(result):
        raise ValueError(f"lax.{opname}: duplicate axes in {tuple(axes)}{mlir.where_suffix()}")
    return tuple(sorted(result))


def emit_region_body(block: ir.Block, body: Any) -> None:
    """Fills a region's `block` with `body(*scalar tracers) -> tuple`, written with lax functions.

    Lowerings run inside a trace, so lax calls on tracers of the block arguments emit at the
    block's insertion point; the outputs become the block's `stablehlo.return`.
    """
    trace = current_trace()
    args = [Tracer(trace, ShapedArray((), mlir.dtype_of_type(a.type)), a) for a in block.arguments]
    with ir.InsertionPoint(block):
        outs = [to_tracer(trace, o) for o in body(*args)]
        mlir.emit("stablehlo.return", [o.value for o in outs], [])


def _reduce_rule(*operands: ShapedArray, computation: str, axes: tuple[int, ...]) -> Any:
    if computation in ARG_REDUCTIONS:
        return _arg_reduce_rule(*operands, computation=computation, axes=axes)
    (x,) = operands
    check_dtype(f"reduce_{computation}", x.dtype, MONOIDS[computation][1])
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _reduce_lowering(operands, in_avals, out_avals, *, computation, axes):
    if computation in ARG_REDUCTIONS:
        return _arg_reduce_lowering(operands, in_avals, out_avals, computation=computation,
                                    axes=axes)
    (x,) = operands
    dtype = in_avals[0].dtype
    init = mlir.constant(identity_element(computation, dtype))
    op = mlir.emit("stablehlo.reduce", [x, init], [mlir.aval_type(out_avals[0])],
                   {"dimensions": mlir.i64_array(axes)}, regions=1)
    scalar = mlir.tensor_type((), dtype)
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        body = mlir.emit(MONOIDS[computation][0], list(block.arguments), [scalar])
        mlir.emit("stablehlo.return", list(body.results), [])
    return list(op.results)


# argmax/argmin are the same op with two operands, (values, indices), and two results; the index
# operand is an explicit iota so that the ruled op's operands and results mirror the emitted
# `stablehlo.reduce` one to one (rewrites map results positionally; XLA drops the unused values).
ARG_REDUCTIONS = ("argmax", "argmin")


def _arg_reduce_rule(x: ShapedArray, indices: ShapedArray, *, computation: str,
                     axes: tuple[int, ...]) -> tuple[ShapedArray, ShapedArray]:
    where = mlir.where_suffix()
    check_dtype(computation, x.dtype, (BOOL, INT, FLOAT))
    if indices.dtype.kind not in "iu":
        raise TypeError(f"lax.{computation}: index_dtype must be an integer type, got "
                        f"{indices.dtype.name}{where}")
    if indices.shape != x.shape or len(axes) != 1:
        raise TypeError(f"lax.{computation}: indices {indices.str_short()} must match the operand "
                        f"{x.str_short()} and one axis is reduced, got axes {axes}{where}")
    (axis,) = axes
    if x.shape[axis] == 0:
        raise ValueError(f"lax.{computation} requires a non-empty reduced dimension, got "
                         f"{x.str_short()} with axis {axis}{where}")
    shape = tuple(d for i, d in enumerate(x.shape) if i != axis)
    return ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, indices.dtype)


def _arg_reduce_lowering(operands, in_avals, out_avals, *, computation, axes):
    x_aval, index_aval = in_avals
    monoid = "max" if computation == "argmax" else "min"
    inits = [mlir.constant(identity_element(monoid, x_aval.dtype)),
             mlir.constant(np.zeros((), index_aval.dtype))]
    op = mlir.emit("stablehlo.reduce", [*operands, *inits],
                   [mlir.aval_type(a) for a in out_avals], {"dimensions": mlir.i64_array(axes)},
                   regions=1)
    value_t, index_t = mlir.tensor_type((), x_aval.dtype), mlir.tensor_type((), index_aval.dtype)
    block = op.regions[0].blocks.append(value_t, index_t, value_t, index_t)
    emit_region_body(block, _arg_reduce_body(computation, _is_float(x_aval.dtype)))
    return list(op.results)


def _is_float(dtype: np.dtype) -> bool:
    return dtypes.issubdtype(dtype, np.floating)


def _arg_reduce_body(computation: str, is_float: bool):
    beats = ew.gt if computation == "argmax" else ew.lt

    # NaN beats every number (the first NaN wins, as in NumPy); equal values go to the lower index.
    def strictly_better(u, v):
        if not is_float:
            return beats(u, v)
        return ew.or_(beats(u, v), ew.and_(ew.ne(u, u), ew.eq(v, v)))

    def body(a, a_index, b, b_index):
        pick_a = ew.or_(strictly_better(a, b),
                        ew.and_(ew.not_(strictly_better(b, a)), ew.lt(a_index, b_index)))
        return ew.select(pick_a, a, b), ew.select(pick_a, a_index, b_index)

    return body


def_op("stablehlo.reduce", _reduce_rule, _reduce_lowering)


def _reduce(computation: str, operand: Any, axes: Sequence[int]) -> Any:
    aval = getattr(operand, "aval", None)
    ndim = aval.ndim if aval is not None else np.ndim(operand)
    axes = _normalize_axes(axes, ndim, f"reduce_{computation}")
    if not axes and aval is not None:
        _reduce_rule(aval, computation=computation, axes=axes)
        return operand
    return bind("stablehlo.reduce", operand, computation=computation, axes=axes)


def reduce_sum(operand: Any, axes: Sequence[int]) -> Any:
    """Sum over `axes` (`stablehlo.reduce` with an add body)."""
    return _reduce("add", operand, axes)


def reduce_prod(operand: Any, axes: Sequence[int]) -> Any:
    """Product over `axes` (`stablehlo.reduce` with a multiply body)."""
    return _reduce("mul", operand, axes)


def reduce_max(operand: Any, axes: Sequence[int]) -> Any:
    """Maximum over `axes` (`stablehlo.reduce` with a maximum body)."""
    return _reduce("max", operand, axes)


def reduce_min(operand: Any, axes: Sequence[int]) -> Any:
    """Minimum over `axes` (`stablehlo.reduce` with a minimum body)."""
    return _reduce("min", operand, axes)


def reduce_and(operand: Any, axes: Sequence[int]) -> Any:
    """Logical/bitwise AND over `axes`."""
    return _reduce("and", operand, axes)


def reduce_or(operand: Any, axes: Sequence[int]) -> Any:
    """Logical/bitwise OR over `axes`."""
    return _reduce("or", operand, axes)


def reduce_xor(operand: Any, axes: Sequence[int]) -> Any:
    """Logical/bitwise XOR over `axes`."""
    return _reduce("xor", operand, axes)


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
    """Index of the largest element along `axis` (a two-operand `stablehlo.reduce`).

    Ties go to the lowest index; NaN counts as the largest value (the first NaN wins), as in
    `numpy.argmax`.

    Args:
      operand: a boolean, integer or floating array with a non-empty `axis`.
      axis: the axis to reduce.
      index_dtype: the integer dtype of the result.

    Returns:
      An `index_dtype` array of the operand's shape without `axis`.
    """
    return _arg_reduce("argmax", operand, axis, index_dtype)


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
    """Index of the smallest element along `axis`; ties and NaN handled as in `argmax`."""
    return _arg_reduce("argmin", operand, axis, index_dtype)


def _arg_reduce(computation: str, operand: Any, axis: int, index_dtype: Any) -> Any:
    aval = aval_of(operand)
    (axis,) = _normalize_axes((axis,), aval.ndim, computation)
    index_dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(index_dtype, computation))
    if index_dtype.kind not in "iu":
        raise TypeError(f"lax.{computation}: index_dtype must be an integer type, got "
                        f"{index_dtype.name}{mlir.where_suffix()}")
    indices = broadcasted_iota(index_dtype, aval.shape, axis)
    return bind("stablehlo.reduce", operand, indices, computation=computation, axes=(axis,))[1]


# The monoid computations `reduce` recognises, by function identity (as JAX does).
_MONOID_FUNCTIONS = {
    ew.add: "add", ew.mul: "mul", ew.max: "max", ew.min: "min",
    ew.bitwise_and: "and", ew.bitwise_or: "or", ew.bitwise_xor: "xor",
}


def reduce(operands: Any, init_values: Any, computation: Any, dimensions: Sequence[int]) -> Any:
    """Reduces `operands` over `dimensions` with a monoid `computation` (`stablehlo.reduce`).

    Args:
      operands: an array (or a 1-tuple of one).
      init_values: a scalar (or a 1-tuple of one) combined once into every result.
      computation: one of `lax.add`, `lax.mul`, `lax.max`, `lax.min`, `lax.bitwise_and`,
        `lax.bitwise_or`, `lax.bitwise_xor`.
      dimensions: the axes to reduce.

    Returns:
      `computation(init_values, reduction of operands over dimensions)`, like the operands.
    """
    single = not isinstance(operands, (tuple, list))
    operand_list = [operands] if single else list(operands)
    init_list = [init_values] if single else list(init_values)
    name = _MONOID_FUNCTIONS.get(computation)
    if name is None or len(operand_list) != 1 or len(init_list) != 1:
        raise NotImplementedError(
            "lax.reduce supports one operand with a monoid computation (lax.add, lax.mul, "
            "lax.max, lax.min, lax.bitwise_and, lax.bitwise_or, lax.bitwise_xor); got "
            f"{getattr(computation, '__name__', computation)!r} on {len(operand_list)} "
            f"operand(s){mlir.where_suffix()}"
        )
    (operand,), (init,) = operand_list, init_list
    init_aval = aval_of(init)
    if init_aval.shape != ():
        raise ValueError(f"lax.reduce: init_values must be scalars, got shape {init_aval.shape}"
                         f"{mlir.where_suffix()}")
    result = _reduce(name, operand, dimensions)
    if not _is_identity(init, name, aval_of(operand).dtype):
        result = computation(init, result)
    return result if single else (result,)


def _is_identity(value: Any, computation: str, dtype: np.dtype) -> bool:
    if isinstance(value, Tracer):  # its value is unknown until the program runs
        return False
    with np.errstate(all="ignore"):
        return bool(np.asarray(value).astype(dtype) == identity_element(computation, dtype))


__all__ = [
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
    "reduce_xor", "argmax", "argmin", "reduce", "identity_element", "emit_region_body",
    "MONOIDS",
]
