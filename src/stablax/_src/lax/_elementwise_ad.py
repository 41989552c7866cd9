"""Derivative rules of the elementwise family, one row per op, written with lax functions.

Unary rows give the tangent from (t, x, y) with y the primal output; binary rows give one
function per operand. Linear ops also get a transpose rule. Ops listed in ZERO_DERIVATIVE have
zero derivative wherever defined (rounding, comparisons, bit manipulation), as in JAX.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax._src import dispatch, dtypes, op_rules
from stablax._src import ir as mlir
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax._bessel import bessel_i0e
from stablax._src.lax._elementwise import (
    add,
    atan2,
    complex,  # noqa: A004
    div,
    eq,
    ge,
    gt,
    integer_pow,
    lt,
    mul,
    select,
    sign,
    square,
    sub,
)
from stablax._src.lax._elementwise_unary import (
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
)
from stablax._src.lax._shapes import full_like


def _one_minus_square(x):
    return sub(full_like(x, 1), square(x))


# MLIR op -> d(op)(x)·t given (t, x, y)
UNARY_JVPS = {
    "stablehlo.exponential": lambda t, x, y: mul(t, y),
    "stablehlo.log": lambda t, x, y: div(t, x),
    "stablehlo.log_plus_one": lambda t, x, y: div(t, add(x, full_like(x, 1))),
    "stablehlo.exponential_minus_one": lambda t, x, y: mul(t, add(y, full_like(y, 1))),
    "stablehlo.tanh": lambda t, x, y: _tanh_jvp(t, y),
    "stablehlo.logistic": lambda t, x, y: mul(t, mul(y, sub(full_like(y, 1), y))),
    "stablehlo.sine": lambda t, x, y: mul(t, cos(x)),
    "stablehlo.cosine": lambda t, x, y: neg(mul(t, sin(x))),
    "stablehlo.tan": lambda t, x, y: mul(t, add(full_like(y, 1), square(y))),
    "stablehlo.sqrt": lambda t, x, y: div(t, mul(y, full_like(y, 2))),
    "stablehlo.rsqrt": lambda t, x, y: mul(t, mul(div(y, x), full_like(y, -0.5))),
    "stablehlo.cbrt": lambda t, x, y: mul(t, div(integer_pow(y, -2), full_like(y, 3))),
    "stablehlo.abs": lambda t, x, y: _abs_jvp(t, x, y),
    "stablehlo.negate": lambda t, x, y: neg(t),
    "chlo.asin": lambda t, x, y: mul(t, rsqrt(_one_minus_square(x))),
    "chlo.acos": lambda t, x, y: neg(mul(t, rsqrt(_one_minus_square(x)))),
    "chlo.atan": lambda t, x, y: div(t, add(full_like(x, 1), square(x))),
    "chlo.sinh": lambda t, x, y: mul(t, cosh(x)),
    "chlo.cosh": lambda t, x, y: mul(t, sinh(x)),
    "chlo.asinh": lambda t, x, y: mul(t, rsqrt(add(square(x), full_like(x, 1)))),
    # x**2 - 1 as JAX: at x = -1 it is +0, so the slope is +inf (not (x-1)(x+1)'s -0 and -inf)
    "chlo.acosh": lambda t, x, y: mul(t, rsqrt(sub(square(x), full_like(x, 1)))),
    "chlo.atanh": lambda t, x, y: div(t, _one_minus_square(x)),
    "chlo.erf": lambda t, x, y: mul(
        t, mul(full_like(x, 2 / math.sqrt(math.pi)), exp(neg(square(x))))
    ),
    "chlo.erfc": lambda t, x, y: mul(
        t, mul(full_like(x, -2 / math.sqrt(math.pi)), exp(neg(square(x))))
    ),
    "chlo.erf_inv": lambda t, x, y: mul(
        t, mul(full_like(x, math.sqrt(math.pi) / 2), exp(square(y)))
    ),
    "chlo.lgamma": lambda t, x, y: mul(t, digamma(x)),
    "chlo.digamma": lambda t, x, y: mul(t, ew.polygamma(full_like(x, 1), x)),
    "chlo.bessel_i1e": lambda t, x, y: mul(t, _bessel_i1e_derivative(x, y)),
    "stablehlo.real": lambda t, x, y: real(t),
    "stablehlo.imag": lambda t, x, y: imag(t),
}


def _tanh_jvp(t, y):
    # (t + t*y) * (1 - y): this association transposes to JAX's rounding exactly.
    return mul(add(t, mul(t, y)), sub(full_like(y, 1), y))


def _bessel_i1e_derivative(x, y):
    # i0e(x) - i1e(x) (sign(x) + 1/x), whose limit at 0 is 1/2. Within eps of 0 that limit is
    # accurate to O(x) and 1/x could overflow (float32 subnormals), so the limit is used there.
    eps = float(dtypes.finfo(mlir_dtype(x)).eps)
    not_tiny = gt(unary.abs(x), full_like(x, eps))
    safe_x = select(not_tiny, x, full_like(x, eps))
    derivative = sub(bessel_i0e(safe_x), mul(y, add(sign(safe_x), div(full_like(x, 1), safe_x))))
    return select(not_tiny, derivative, full_like(x, 0.5))


def _abs_jvp(t, x, y):
    if mlir_dtype(x).kind == "c":
        # d|z| = Re(conj(z) dz) / |z|, with 0 at z = 0
        safe = select(eq(y, full_like(y, 0)), full_like(y, 1), y)
        return real(mul(div(complex(real(x), neg(imag(x))), complex(safe, full_like(safe, 0))), t))
    # JAX's convention: the derivative at 0 is +1 (select(x >= 0, t, -t)), not sign(0) = 0.
    return select(ge(x, full_like(x, 0)), t, neg(t))


def mlir_dtype(x: Any) -> np.dtype:
    return x.aval.dtype


def _make_unary_jvp(op_name, derivative):
    def jvp(primals, tangents, **params):  # params: the op's `accuracy`, if any
        (x,), (t,) = primals, tangents
        y = dispatch.bind(op_name, x, **params)
        return y, derivative(t, x, y)

    return jvp


for _op, _derivative in UNARY_JVPS.items():
    op_rules.jvp_rules[_op] = _make_unary_jvp(_op, _derivative)

# Linear unary ops and their transposes.
op_rules.transpose_rules["stablehlo.negate"] = lambda ct, x: [neg(ct)]
op_rules.transpose_rules["stablehlo.real"] = lambda ct, x: [complex(ct, full_like(ct, 0))]
op_rules.transpose_rules["stablehlo.imag"] = lambda ct, x: [complex(full_like(ct, 0), neg(ct))]


# --- binary ------------------------------------------------------------------------------------


def _zero_if_none(t, like):
    return full_like(like, 0) if t is None else t


def _max_min_jvp(op_name):
    # Ties split the tangent evenly, as JAX does. The weight is written as JAX writes it,
    # select(x == out, 1, 0) / select(y == out, 2, 1): the divide makes XLA compute the weight
    # once and share it instead of duplicating it into every consumer fusion.
    def weight(a, b, out):
        one, zero, two = full_like(out, 1), full_like(out, 0), full_like(out, 2)
        return div(select(eq(a, out), one, zero), select(eq(b, out), two, one))

    def jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        out = dispatch.bind(op_name, x, y)
        terms = [
            mul(tx, weight(x, y, out)) if tx is not None else None,
            mul(ty, weight(y, x, out)) if ty is not None else None,
        ]
        return out, _sum(terms)

    return jvp


def _mul_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = mul(x, y)
    if x is y and tx is ty and tx is not None:  # x * x (square, integer_pow): 2x dx, one product
        return out, mul(tx, mul(full_like(x, 2), x))
    terms = [mul(tx, y) if tx is not None else None, mul(x, ty) if ty is not None else None]
    return out, _sum(terms)


def _div_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = div(x, y)
    # -ty * x * y**-2 (JAX's form): where y is a broadcast, XLA computes y**-2 before it.
    terms = [
        div(tx, y) if tx is not None else None,
        mul(mul(neg(ty), x), integer_pow(y, -2)) if ty is not None else None,
    ]
    return out, _sum(terms)


def _rem_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = ew.rem(x, y)
    quotient = div(sub(x, out), y)  # the integer-valued x / y rounded toward zero
    terms = [tx, neg(mul(ty, quotient)) if ty is not None else None]
    return out, _sum(terms)


def _pow_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = ew.pow(x, y)
    terms = []
    if tx is not None:
        # y * x**(y-1), defined as 0 where y == 0 (so 0**0 has derivative 0 in x)
        y_safe = select(eq(y, full_like(y, 0)), full_like(y, 1), y)
        dx = mul(y, ew.pow(x, sub(y_safe, full_like(y_safe, 1))))
        dx = select(eq(y, full_like(y, 0)), full_like(dx, 0), dx)
        terms.append(mul(tx, dx))
    if ty is not None:
        # x**y * log(x), with 0 where x == 0
        x_safe = select(eq(x, full_like(x, 0)), full_like(x, 1), x)
        dy = mul(out, unary.log(x_safe))
        terms.append(mul(ty, dy))
    return out, _sum(terms)


def _atan2_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = atan2(x, y)
    denom = add(square(x), square(y))
    terms = [
        mul(tx, div(y, denom)) if tx is not None else None,
        neg(mul(ty, div(x, denom))) if ty is not None else None,
    ]
    return out, _sum(terms)


def _sum(terms):
    result = None
    for t in terms:
        if t is not None:
            result = t if result is None else add(result, t)
    return result


def _linear_binary_jvp(op_name, sign_y=1):
    def jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        out = dispatch.bind(op_name, x, y)
        if ty is None:
            return out, tx
        ty = ty if sign_y == 1 else neg(ty)
        return out, ty if tx is None else add(tx, ty)

    return jvp


def _complex_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return complex(x, y), complex(_zero_if_none(tx, x), _zero_if_none(ty, y))


op_rules.jvp_rules.update(
    {
        "stablehlo.add": _linear_binary_jvp("stablehlo.add"),
        "stablehlo.subtract": _linear_binary_jvp("stablehlo.subtract", -1),
        "stablehlo.multiply": _mul_jvp,
        "stablehlo.divide": _div_jvp,
        "stablehlo.remainder": _rem_jvp,
        "stablehlo.power": _pow_jvp,
        "stablehlo.maximum": _max_min_jvp("stablehlo.maximum"),
        "stablehlo.minimum": _max_min_jvp("stablehlo.minimum"),
        "stablehlo.atan2": _atan2_jvp,
        "stablehlo.complex": _complex_jvp,
        "chlo.polygamma": lambda primals, tangents: _polygamma_jvp(primals, tangents),
    }
)


def _polygamma_jvp(primals, tangents):
    m, x = primals
    tm, tx = tangents
    if tm is not None:  # the order m is an integer-valued parameter, as JAX says
        raise ValueError(
            f"lax.polygamma: gradient with respect to m is not supported{mlir.where_suffix()}"
        )
    out = ew.polygamma(m, x)
    if tx is None:
        return out, None
    return out, mul(tx, ew.polygamma(add(m, full_like(m, 1)), x))


def _transpose_add(ct, x, y):
    return [ct if _undefined(x) else None, ct if _undefined(y) else None]


def _transpose_sub(ct, x, y):
    return [ct if _undefined(x) else None, neg(ct) if _undefined(y) else None]


def _transpose_mul(ct, x, y):
    if _undefined(x) and _undefined(y):
        raise ValueError("[transpose] mul is not linear in both operands at once")
    return [mul(ct, y) if _undefined(x) else None, mul(x, ct) if _undefined(y) else None]


def _transpose_div(ct, x, y):
    if _undefined(y):
        raise ValueError("[transpose] div is only linear in its numerator")
    return [div(ct, y), None]


def _transpose_complex(ct, x, y):
    return [real(ct) if _undefined(x) else None, imag(neg(ct)) if _undefined(y) else None]


def _undefined(x) -> bool:
    from stablax._src.interpreters.ad import is_undefined

    return is_undefined(x)


op_rules.transpose_rules.update(
    {
        "stablehlo.add": _transpose_add,
        "stablehlo.subtract": _transpose_sub,
        "stablehlo.multiply": _transpose_mul,
        "stablehlo.divide": _transpose_div,
        "stablehlo.complex": _transpose_complex,
    }
)


# --- select, clamp, convert --------------------------------------------------------------------


def _select_jvp(primals, tangents):
    pred, on_true, on_false = primals
    _, t_true, t_false = tangents
    out = select(pred, on_true, on_false)
    if t_true is None and t_false is None:
        return out, None
    return out, select(pred, _zero_if_none(t_true, on_true), _zero_if_none(t_false, on_false))


def _select_transpose(ct, pred, on_true, on_false):
    zeros = full_like(ct, 0)
    return [
        None,
        select(pred, ct, zeros) if _undefined(on_true) else None,
        select(pred, zeros, ct) if _undefined(on_false) else None,
    ]


def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    t_lo, t_x, t_hi = tangents
    out = ew.clamp(lo, x, hi)
    terms = []
    if t_x is not None:
        inside = ew.bitwise_and(gt(x, _broadcast_like(lo, x)), lt(x, _broadcast_like(hi, x)))
        terms.append(select(inside, t_x, full_like(t_x, 0)))
    if t_lo is not None:
        terms.append(
            select(lt(x, _broadcast_like(lo, x)), _broadcast_like(t_lo, x), full_like(x, 0))
        )
    if t_hi is not None:
        terms.append(
            select(gt(x, _broadcast_like(hi, x)), _broadcast_like(t_hi, x), full_like(x, 0))
        )
    return out, _sum(terms)


def _broadcast_like(v, x):
    from stablax._src.lax._shapes import broadcast_in_dim

    if v.aval.shape == x.aval.shape:
        return v
    return broadcast_in_dim(v, x.aval.shape, ())


op_rules.jvp_rules["stablehlo.select"] = _select_jvp
op_rules.transpose_rules["stablehlo.select"] = _select_transpose
op_rules.jvp_rules["stablehlo.clamp"] = _clamp_jvp

ZERO_DERIVATIVE = (
    "stablehlo.sign",
    "stablehlo.floor",
    "stablehlo.ceil",
    "stablehlo.round_nearest_afz",
    "stablehlo.round_nearest_even",
    "stablehlo.is_finite",
    "stablehlo.not",
    "stablehlo.popcnt",
    "stablehlo.count_leading_zeros",
    "stablehlo.compare",
    "stablehlo.and",
    "stablehlo.or",
    "stablehlo.xor",
    "stablehlo.shift_left",
    "stablehlo.shift_right_logical",
    "stablehlo.shift_right_arithmetic",
    "chlo.mulhi",
    "chlo.next_after",
    "stablehlo.bitcast_convert",
    "stablehlo.iota",
)
op_rules.not_differentiable.update(ZERO_DERIVATIVE)

# --- parameter decoders ------------------------------------------------------------------------


def _decode_compare(op, owner=None):
    direction = mlir.stablehlo.ComparisonDirectionAttr(op.attributes["comparison_direction"])
    return {"direction": direction.value}


op_rules.param_decoders["stablehlo.compare"] = _decode_compare
