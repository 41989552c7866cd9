"""Reductions by a named computation: the monoids and their identity elements, reduce_sum & co,
and the shape rule of a `stablehlo.reduce` whose computation is a name. Below _shapes, whose
broadcast transposes to a sum; the op's other rules are in _reductions.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from stablax._src import dtypes, runtime
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.config import config
from stablax._src.core import Tracer
from stablax._src.dispatch import bind, weak_scalar
from stablax._src.lax._argcheck import RANK, axes_arg, int_sequence
from stablax._src.lax._elementwise_common import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    INT_OR_BOOL,
    NUMBER,
    check_dtype,
)

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

# Operands are (*arrays, *init_values), mirroring the emitted `stablehlo.reduce` one to one so that
# rewrites re-bind it positionally. Monoids reduce one array; argmax/argmin reduce two, (values,
# indices), and return both: the public functions keep the indices (XLA drops the rest).
ARG_REDUCTIONS = ("argmax", "argmin")


def normalize_axes(axes: Sequence[int], ndim: int, name: str) -> tuple[int, ...]:
    """A reduction's axes, sorted; lax takes no negative axes, as JAX (XLA's rule)."""
    repeated = "{name}: duplicate axes in {axes}"
    result = axes_arg(
        axes,
        ndim,
        name,
        convert=int_sequence,
        repeated=repeated,
        what="axes",
        array=RANK,
        negative=False,
    )
    return tuple(sorted(result))


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
    if dtypes.KIND.get(dtype) in ("i", "u"):  # int4's numpy kind is "V"
        info = dtypes.iinfo(dtype)
        return np.asarray(info.min if is_max else info.max, dtype)
    infinity = np.asarray(-np.inf if is_max else np.inf, dtype)
    if np.isinf(infinity):
        return infinity
    # A float without infinities (float8_e4m3fn and kin): its most extreme finite value, as JAX.
    info = dtypes.finfo(dtype)
    return np.asarray(info.min if is_max else info.max, dtype)


# --- the shape rule of a reduce by name --------------------------------------------------------


def named_reduce_rule(*args: ShapedArray, computation: str, axes: tuple[int, ...]) -> Any:
    """The avals a `stablehlo.reduce` by a monoid's name (or argmax/argmin) returns."""
    where = mlir.where_suffix()
    operands, inits = args[: len(args) // 2], args[len(args) // 2 :]
    opname = computation if computation in ARG_REDUCTIONS else f"reduce_{computation}"
    for x, init in zip(operands, inits, strict=True):
        if init.shape != () or init.dtype != x.dtype:
            raise TypeError(
                f"lax.{opname}: init values must be scalars of the operands' dtypes, got "
                f"{init.str_short()} for {x.str_short()}{where}"
            )
    if computation in ARG_REDUCTIONS:
        return _arg_reduce_rule(*operands, computation=computation, axes=axes)
    (x,) = operands
    check_dtype(opname, x.dtype, MONOIDS[computation][1])
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    # As JAX: sums, products, max and min keep a weak type; the logical reductions do not.
    weak = x.weak_type and computation in ("add", "mul", "max", "min")
    return ShapedArray(shape, x.dtype, weak)


def _arg_reduce_rule(
    x: ShapedArray, indices: ShapedArray, *, computation: str, axes: tuple[int, ...]
) -> tuple[ShapedArray, ShapedArray]:
    where = mlir.where_suffix()
    check_dtype(computation, x.dtype, (BOOL, INT, FLOAT))
    if indices.dtype.kind not in "iu":
        raise TypeError(
            f"lax.{computation}: index_dtype must be an integer type, got "
            f"{indices.dtype.name}{where}"
        )
    if indices.shape != x.shape or len(axes) != 1:
        raise TypeError(
            f"lax.{computation}: indices {indices.str_short()} must match the operand "
            f"{x.str_short()} and one axis is reduced, got axes {axes}{where}"
        )
    (axis,) = axes
    if x.shape[axis] == 0:
        raise ValueError(
            f"lax.{computation} requires a non-empty reduced dimension, got "
            f"{x.str_short()} with axis {axis}{where}"
        )
    shape = tuple(d for i, d in enumerate(x.shape) if i != axis)
    return ShapedArray(shape, x.dtype, False), ShapedArray(shape, indices.dtype)


# --- reducing by a monoid ----------------------------------------------------------------------


def init_operand(init_value: Any, dtype: np.dtype) -> Any:
    """A concrete init value as a scalar of `dtype`; traced ones are left to the shape rules."""
    if isinstance(init_value, Tracer):
        return init_value
    with np.errstate(all="ignore"):
        value = np.asarray(init_value).astype(dtype)
    return weak_scalar(value.item(), dtype, weak_type=False) if value.shape == () else value


def reduce_monoid(computation: str, operand: Any, axes: Sequence[int], init: Any = None) -> Any:
    """`operand` reduced over `axes` by a monoid, from its identity unless `init` is given."""
    aval = aval_of(operand)
    if computation in MONOIDS:  # the dtype before the axes, in JAX's order
        check_dtype(f"reduce_{computation}", aval.dtype, MONOIDS[computation][1])
    logical = computation in ("and", "or", "xor")
    if logical and aval.dtype != np.bool_ and dtypes.itemsize_bits(aval.dtype) < 8:
        # JAX's logical reductions take bool and the 8- to 64-bit integers only.
        raise TypeError(
            f"lax.reduce_{computation}: logical reductions take bool or 8- to 64-bit integer "
            f"operands, got {aval.dtype.name}{mlir.where_suffix()}"
        )
    axes = normalize_axes(axes, aval.ndim, f"lax.reduce_{computation}")
    if init is None:
        init = identity_element(computation, aval.dtype)
        if not axes and hasattr(operand, "aval"):
            named_reduce_rule(
                aval, aval.update(shape=(), weak_type=False), computation=computation, axes=axes
            )
            return operand
    init = init_operand(init, aval.dtype)
    return bind("stablehlo.reduce", operand, init, computation=computation, axes=axes)


def _check_reducible(name: str, operand: Any, axes: Sequence[int]) -> None:
    # JAX's order: an operand that is no array at all, then the axes, then a boolean dtype.
    dtype = aval_of(operand).dtype
    if dtype != np.bool_:
        check_dtype(name, dtype, NUMBER)
    normalize_axes(axes, aval_of(operand).ndim, f"lax.{name}")
    check_dtype(name, dtype, NUMBER)


_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def reduce_sum(operand: Any, axes: Sequence[int], *, out_sharding: Any = None) -> Any:
    """Sum over `axes` (`stablehlo.reduce` with an add body).

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "lax.reduce_sum")
    if not config.jax_allow_f16_reductions and aval_of(operand).dtype in _HALF:
        raise TypeError(
            f"lax.reduce_sum of {aval_of(operand).dtype.name} with "
            f"jax_allow_f16_reductions=False{mlir.where_suffix()}"
        )
    _check_reducible("reduce_sum", operand, axes)
    return reduce_monoid("add", operand, axes)


def reduce_prod(operand: Any, axes: Sequence[int]) -> Any:
    """Product over `axes` (`stablehlo.reduce` with a multiply body)."""
    _check_reducible("reduce_prod", operand, axes)
    return reduce_monoid("mul", operand, axes)


def reduce_max(operand: Any, axes: Sequence[int]) -> Any:
    """Maximum over `axes` (`stablehlo.reduce` with a maximum body)."""
    return reduce_monoid("max", operand, axes)


def reduce_min(operand: Any, axes: Sequence[int]) -> Any:
    """Minimum over `axes` (`stablehlo.reduce` with a minimum body)."""
    return reduce_monoid("min", operand, axes)


def reduce_and(operand: Any, axes: Sequence[int]) -> Any:
    """Logical/bitwise AND over `axes`."""
    return reduce_monoid("and", operand, axes)


def reduce_or(operand: Any, axes: Sequence[int]) -> Any:
    """Logical/bitwise OR over `axes`."""
    return reduce_monoid("or", operand, axes)


def reduce_xor(operand: Any, axes: Sequence[int]) -> Any:
    """Logical/bitwise XOR over `axes`."""
    return reduce_monoid("xor", operand, axes)
