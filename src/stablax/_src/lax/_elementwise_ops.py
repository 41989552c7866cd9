"""The elementwise family registered: one row per op carrying all of its rules. The shape rules
and lowerings are the wrappers' modules' (_elementwise, _elementwise_unary), the longer derivative
rules _elementwise_ad.py's; every op batches with `elementwise_batch_rule`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from stablax._src.interpreters.ad import jvp_not_implemented
from stablax._src.interpreters.batching import elementwise_batch_rule
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_ad as ew_ad
from stablax._src.lax._elementwise import (
    BINARY_OPS,
    add,
    binary_rule,
    clamp_rule,
    compare_lowering,
    compare_rule,
    complex,  # noqa: A004
    complex_rule,
    decode_compare,
    div,
    integer_division_lowering,
    integer_pow,
    mul,
    select_rule,
    square,
    sub,
)
from stablax._src.lax._elementwise_common import FLOAT
from stablax._src.lax._elementwise_unary import (
    UNARY_OPS,
    WITH_ACCURACY,
    accuracy_decode,
    accuracy_lowering,
    cos,
    cosh,
    digamma,
    exp,
    imag,
    neg,
    real,
    rsqrt,
    sin,
    sinh,
    unary_rule,
)
from stablax._src.lax._shapes import full_like
from stablax._src.op_rules import def_op

# A unary op's derivative: its tangent from (t, x, y), y the primal output.
Derivative = Callable[[Any, Any, Any], Any]

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)  # erf's slope at 0


def _unary(
    name: str,
    derivative: Derivative | None = None,
    *,
    transpose: Any = None,
    differentiable: bool = True,
) -> None:
    """Registers the UNARY_OPS row `name`: its dtypes' shape rule, the accuracy attribute of the
    transcendental ones, and d(op)(x)·t = derivative(t, x, y)."""
    op, groups, result_dtype = UNARY_OPS[name]
    accurate = name in WITH_ACCURACY
    def_op(
        op,
        unary_rule(name, groups, result_dtype),
        accuracy_lowering(op) if accurate else None,
        decode=accuracy_decode if accurate else None,
        jvp=None if derivative is None else ew_ad.unary_jvp(op, derivative),
        transpose=transpose,
        batch=elementwise_batch_rule(op),
        differentiable=differentiable,
    )


def _binary(
    name: str,
    jvp: Any = None,
    *,
    transpose: Any = None,
    lowering: Any = None,
    differentiable: bool = True,
) -> None:
    """Registers the BINARY_OPS row `name`: operands of one dtype and shape."""
    op, groups = BINARY_OPS[name]
    def_op(
        op,
        binary_rule(name, groups),
        lowering,
        jvp=jvp,
        transpose=transpose,
        batch=elementwise_batch_rule(op),
        differentiable=differentiable,
    )


def _other(name: str, shape_rule: Any, lowering: Any = None, **rules: Any) -> None:
    """Registers an elementwise op of no table (compare, select, clamp, complex, round)."""
    def_op(name, shape_rule, lowering, batch=elementwise_batch_rule(name), **rules)


# --- unary ops: zero derivative (rounding, bit manipulation), linear, then the others ----------

_unary("sign", differentiable=False)
_unary("floor", differentiable=False)
_unary("ceil", differentiable=False)
_unary("is_finite", differentiable=False)
_unary("bitwise_not", differentiable=False)
_unary("population_count", differentiable=False)
_unary("clz", differentiable=False)
_unary("neg", lambda t, x, y: neg(t), transpose=lambda ct, x: [neg(ct)])
_unary("real", lambda t, x, y: real(t), transpose=lambda ct, x: [complex(ct, full_like(ct, 0))])
_unary(
    "imag", lambda t, x, y: imag(t), transpose=lambda ct, x: [complex(full_like(ct, 0), neg(ct))]
)
_unary("exp", lambda t, x, y: mul(t, y))
_unary("log", lambda t, x, y: div(t, x))
_unary("log1p", lambda t, x, y: div(t, add(x, full_like(x, 1))))
_unary("expm1", lambda t, x, y: mul(t, add(y, full_like(y, 1))))
_unary("tanh", lambda t, x, y: ew_ad.tanh_jvp(t, y))
_unary("logistic", lambda t, x, y: mul(t, mul(y, sub(full_like(y, 1), y))))
_unary("sin", lambda t, x, y: mul(t, cos(x)))
_unary("cos", lambda t, x, y: neg(mul(t, sin(x))))
_unary("tan", lambda t, x, y: mul(t, add(full_like(y, 1), square(y))))
_unary("sqrt", lambda t, x, y: div(t, mul(y, full_like(y, 2))))
_unary("rsqrt", lambda t, x, y: mul(t, mul(div(y, x), full_like(y, -0.5))))
_unary("cbrt", lambda t, x, y: mul(t, div(integer_pow(y, -2), full_like(y, 3))))
_unary("abs", ew_ad.abs_jvp)
_unary("asin", lambda t, x, y: mul(t, rsqrt(ew_ad.one_minus_square(x))))
_unary("acos", lambda t, x, y: neg(mul(t, rsqrt(ew_ad.one_minus_square(x)))))
_unary("atan", lambda t, x, y: div(t, add(full_like(x, 1), square(x))))
_unary("sinh", lambda t, x, y: mul(t, cosh(x)))
_unary("cosh", lambda t, x, y: mul(t, sinh(x)))
_unary("asinh", lambda t, x, y: mul(t, rsqrt(add(square(x), full_like(x, 1)))))
# x**2 - 1 as JAX: at x = -1 it is +0, so the slope is +inf (not (x-1)(x+1)'s -0 and -inf)
_unary("acosh", lambda t, x, y: mul(t, rsqrt(sub(square(x), full_like(x, 1)))))
_unary("atanh", lambda t, x, y: div(t, ew_ad.one_minus_square(x)))
_unary("erf", lambda t, x, y: mul(t, mul(full_like(x, _TWO_OVER_SQRT_PI), exp(neg(square(x))))))
_unary("erfc", lambda t, x, y: mul(t, mul(full_like(x, -_TWO_OVER_SQRT_PI), exp(neg(square(x))))))
_unary("erf_inv", lambda t, x, y: mul(t, mul(full_like(x, math.sqrt(math.pi) / 2), exp(square(y)))))
_unary("lgamma", lambda t, x, y: mul(t, digamma(x)))
_unary("digamma", lambda t, x, y: mul(t, ew.polygamma(full_like(x, 1), x)))
_unary("bessel_i1e", lambda t, x, y: mul(t, ew_ad.bessel_i1e_derivative(x, y)))

# --- binary ops --------------------------------------------------------------------------------

_binary("add", ew_ad.linear_binary_jvp("stablehlo.add"), transpose=ew_ad.transpose_add)
_binary("sub", ew_ad.linear_binary_jvp("stablehlo.subtract", -1), transpose=ew_ad.transpose_sub)
_binary("mul", ew_ad.mul_jvp, transpose=ew_ad.transpose_mul)
_binary(
    "div",
    ew_ad.div_jvp,
    transpose=ew_ad.transpose_div,
    lowering=integer_division_lowering("stablehlo.divide"),
)
_binary("rem", ew_ad.rem_jvp, lowering=integer_division_lowering("stablehlo.remainder"))
_binary("pow", ew_ad.pow_jvp)
_binary("max", ew_ad.max_min_jvp("stablehlo.maximum"))
_binary("min", ew_ad.max_min_jvp("stablehlo.minimum"))
_binary("atan2", ew_ad.atan2_jvp)
_binary("polygamma", ew_ad.polygamma_jvp)
# As JAX's lax.zeta (jax.scipy.special.zeta differentiates through a series, as stablax's does).
_binary("zeta", jvp_not_implemented("zeta"))
_binary("nextafter", differentiable=False)
_binary("bitwise_and", differentiable=False)
_binary("bitwise_or", differentiable=False)
_binary("bitwise_xor", differentiable=False)
_binary("shift_left", differentiable=False)
_binary("shift_right_logical", differentiable=False)
_binary("shift_right_arithmetic", differentiable=False)
_binary("mulhi", differentiable=False)

# --- the others --------------------------------------------------------------------------------

_other("stablehlo.complex", complex_rule, jvp=ew_ad.complex_jvp, transpose=ew_ad.transpose_complex)
_other(
    "stablehlo.compare",
    compare_rule,
    compare_lowering,
    decode=decode_compare,
    differentiable=False,
)
# Operands in StableHLO's order: (pred, on_true, on_false).
_other("stablehlo.select", select_rule, jvp=ew_ad.select_jvp, transpose=ew_ad.select_transpose)
_other("stablehlo.clamp", clamp_rule, jvp=ew_ad.clamp_jvp)
_other("stablehlo.round_nearest_afz", unary_rule("round", (FLOAT,)), differentiable=False)
_other("stablehlo.round_nearest_even", unary_rule("round", (FLOAT,)), differentiable=False)
