"""Reductions over axes: sum, prod, max, min, and, or, xor, and argmax/argmin (`stablehlo.reduce`).

One op, `stablehlo.reduce`, with a `computation` parameter naming its body; the body is a single
binary op on scalars, which is what the autodiff and batching rules read back.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src.core import ShapedArray
from stablax._src.dispatch import bind, def_op
from stablax._src.ir import ir
from stablax._src.lax._elementwise import ANY, INT_OR_BOOL, check_dtype

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


def _reduce_rule(x: ShapedArray, *, computation: str, axes: tuple[int, ...]) -> ShapedArray:
    check_dtype(f"reduce_{computation}", x.dtype, MONOIDS[computation][1])
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _reduce_lowering(operands, in_avals, out_avals, *, computation, axes):
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


__all__ = [
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or",
    "reduce_xor", "identity_element", "MONOIDS",
]
