"""Cumulative reductions (cumsum, cumprod, cummax, cummin, cumlogsumexp) and their derivatives.

As in JAX on CPU/GPU, a cumulative op is one `stablehlo.reduce_window` whose window spans the
whole axis, padded by n - 1 on one side, so each has the rules of a single ruled op. Their
tangents are one associative scan over (value, tangent) pairs: O(n log n) work in O(log n)
steps, where differentiating the window generically would stack n windows of n elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dispatch, dtypes
from stablax._src import ir as mlir
from stablax._src.dispatch import bind
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax._argcheck import int_arg
from stablax._src.lax._control_flow_misc import associative_scan
from stablax._src.lax._elementwise_common import NUMBER, check_dtype
from stablax._src.lax._reduce_bodies import complex_extremum, identity_element
from stablax._src.lax._reductions import init_operand
from stablax._src.lax._shapes import aval_of, convert_element_type, full_like

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


def logaddexp(a: Any, b: Any, const: Any = None) -> Any:
    """log(e^a + e^b) as max + log1p(e^-|a - b|); a - b is NaN for equal infinities (or a NaN).

    Complex: the lexicographic max m, then m + log1p(e^(a + b - 2m)) with the imaginary part
    wrapped into [-pi, pi], as JAX. `const(like, value)` makes its scalar constants (a region
    body passes one that emits them inside the region).
    """
    if aval_of(a).dtype.kind == "c":
        if const is None:

            def const(like, value):
                return full_like(like, value)

        larger = complex_extremum("max")(a, b)[0]
        delta = ew.sub(ew.add(a, b), ew.mul(larger, const(larger, 2)))
        out = ew.add(larger, unary.log1p(unary.exp(delta)))
        imag = unary.imag(out)
        pi, two_pi = const(imag, np.pi), const(imag, 2 * np.pi)
        wrapped = ew.rem(ew.add(imag, pi), two_pi)
        wrapped = ew.select(ew.lt(wrapped, const(imag, 0)), ew.add(wrapped, two_pi), wrapped)
        return ew.complex(unary.real(out), ew.sub(wrapped, pi))
    larger = ew.max(a, b)
    delta = ew.sub(a, b)
    stable = ew.add(larger, unary.log1p(unary.exp(unary.neg(unary.abs(delta)))))
    return ew.select(ew.ne(delta, delta), larger, stable)


# --- derivatives -------------------------------------------------------------------------------


def cumulative_axis(params: dict[str, Any], shape: tuple[int, ...]) -> tuple[int, bool] | None:
    """`(axis, reverse)` if these reduce_window parameters are a cumulative op's, else None."""
    ones = (1,) * len(shape)
    if any(
        tuple(params[k]) != ones for k in ("window_strides", "base_dilation", "window_dilation")
    ):
        return None
    spans = [d for d, w in enumerate(params["window_dimensions"]) if w != 1]
    if len(spans) != 1 or params["window_dimensions"][spans[0]] != shape[spans[0]]:
        return None
    axis, n = spans[0], shape[spans[0]]
    pads = [tuple(p) for p in params["padding"]]
    if any(p != (0, 0) for d, p in enumerate(pads) if d != axis):
        return None
    if pads[axis] in ((n - 1, 0), (0, n - 1)):
        return axis, pads[axis] == (0, n - 1)
    return None


def _jvp_pairs(op_name: str):
    """Combines (value, tangent) pairs with the op's own jvp rule: JAX's tie and zero handling."""

    def combine(a, b):
        (xa, ta), (xb, tb) = a, b
        return tuple(dispatch.jvp_rules[op_name]((xa, xb), (ta, tb)))

    return combine


def _logaddexp_pairs(a, b):
    (xa, ta), (xb, tb) = a, b
    out = logaddexp(xa, xb)

    def share(x):  # exp(x - out), +inf read as 0 as in JAX; nothing when out is -inf
        def finite(v):
            return ew.select(ew.eq(v, full_like(v, np.inf)), full_like(v, 0.0), v)

        weight = unary.exp(ew.sub(finite(x), finite(out)))
        return ew.select(ew.eq(out, full_like(out, -np.inf)), full_like(x, 0.0), weight)

    return out, ew.add(ew.mul(ta, share(xa)), ew.mul(tb, share(xb)))


_PAIR_COMBINES = {
    "mul": _jvp_pairs("stablehlo.multiply"),
    "max": _jvp_pairs("stablehlo.maximum"),
    "min": _jvp_pairs("stablehlo.minimum"),
    "logaddexp": _logaddexp_pairs,
}


def cumulative_tangent(computation: str, x: Any, tangent: Any, params: dict[str, Any]) -> Any:
    """The tangent of a cumulative reduce_window (not a sum), or None if `params` are not one."""
    cumulative = cumulative_axis(params, aval_of(x).shape)
    if cumulative is None or computation not in _PAIR_COMBINES:
        return None
    axis, reverse = cumulative
    pairs = (x, tangent)
    return associative_scan(_PAIR_COMBINES[computation], pairs, reverse=reverse, axis=axis)[1]


__all__ = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]
