"""The windows of the cumulative reductions, for reduce_window's rules: the logaddexp body and
the tangent of a window spanning a whole axis.

That tangent is one associative scan over (value, tangent) pairs: O(n log n) work in O(log n)
steps, where differentiating the window generically would stack n windows of n elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src.avals import aval_of
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax._associative_scan import associative_scan
from stablax._src.lax._reduce_bodies import complex_extremum
from stablax._src.lax._shapes import full_like
from stablax._src.op_rules import jvp_rules


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
        return tuple(jvp_rules[op_name]((xa, xb), (ta, tb)))

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
