"""Cumulative reductions: cumsum, cumprod, cummax, cummin, cumlogsumexp.

As in JAX on CPU/GPU, a cumulative op is one `stablehlo.reduce_window` whose window spans the
whole axis, padded by n - 1 on one side, so each has the rules of a single ruled op (the
reduce_window family, loaded with the first cumulative op; see _cumulative_windows.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.dispatch import bind
from stablax._src.lax._argcheck import int_arg
from stablax._src.lax._elementwise_common import NUMBER, check_dtype
from stablax._src.lax._reduce_monoids import identity_element, init_operand
from stablax._src.lax._shapes import convert_element_type

# --- the ops -----------------------------------------------------------------------------------


def _cumulative(computation: str, opname: str, operand: Any, axis: int, reverse: bool) -> Any:
    aval = aval_of(operand)
    axis = int_arg(axis, "axis", f"lax.{opname}")
    if not -aval.ndim <= axis < aval.ndim:  # the axis before the dtype, in JAX's order
        raise ValueError(
            f"lax.{opname}: axis {axis} is out of bounds for an array of shape "
            f"{aval.shape}{mlir.where_suffix()}"
        )
    check_dtype(opname, aval.dtype, NUMBER)
    axis %= aval.ndim
    n = aval.shape[axis]
    if computation == "logaddexp" and n and not dtypes.issubdtype(aval.dtype, np.inexact):
        # JAX takes any number dtype but has no -inf to start an integer window from (its
        # OverflowError); only an empty axis, returned as it is, passes there.
        raise TypeError(
            f"lax.{opname} does not accept dtype {aval.dtype.name} along a non-empty axis. "
            f"Accepted dtypes are subtypes of inexact.{mlir.where_suffix()}"
        )
    # n <= 1 is the identity, as in JAX: -0.0 stays, and so do derivatives at inf and NaN; but a
    # lone complex element still has its imaginary part wrapped by logaddexp.
    if n == 0 or (n == 1 and not (computation == "logaddexp" and aval.dtype.kind == "c")):
        if hasattr(operand, "aval"):
            return operand
        return convert_element_type(operand, aval.dtype, weak_type=aval.weak_type)
    from stablax._src.lax import _windowed  # noqa: F401 (the reduce_window family: its rules)

    window = tuple(n if d == axis else 1 for d in range(aval.ndim))
    pad = (0, n - 1) if reverse else (n - 1, 0)
    padding = tuple(pad if d == axis else (0, 0) for d in range(aval.ndim))
    identity = identity_element("max" if computation == "logaddexp" else computation, aval.dtype)
    ones = (1,) * aval.ndim
    return bind(
        "stablehlo.reduce_window",
        operand,
        init_operand(identity, aval.dtype),
        computation=computation,
        window_dimensions=window,
        window_strides=ones,
        padding=padding,
        base_dilation=ones,
        window_dilation=ones,
    )


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running sum along `axis` (from the end if `reverse`), as a `stablehlo.reduce_window`.

    Args:
      operand: an integer, floating or complex array.
      axis: the axis to accumulate along.
      reverse: accumulate from the last element towards the first.

    Returns:
      An array like `operand` whose element i is the sum of elements 0..i along `axis`.
    """
    return _cumulative("add", "cumsum", operand, axis, reverse)


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running product along `axis` (see `cumsum`)."""
    return _cumulative("mul", "cumprod", operand, axis, reverse)


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running maximum along `axis` (see `cumsum`); NaN propagates."""
    return _cumulative("max", "cummax", operand, axis, reverse)


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running minimum along `axis` (see `cumsum`); NaN propagates."""
    return _cumulative("min", "cummin", operand, axis, reverse)


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running log(sum(exp(x))) along `axis`, computed stably (see `cumsum`).

    Floating and complex operands (a complex result's imaginary part wrapped into [-pi, pi], as
    JAX); an integer operand only along an empty axis, which it returns unchanged.
    """
    return _cumulative("logaddexp", "cumlogsumexp", operand, axis, reverse)


__all__ = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]
