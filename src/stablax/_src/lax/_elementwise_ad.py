"""Derivative rules of the elementwise family, written with lax functions: the jvps and
transposes that take more than a line (the rows of _elementwise_ops.py carry the others).

A unary derivative gives the tangent from (t, x, y) with y the primal output.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dispatch, dtypes
from stablax._src import ir as mlir
from stablax._src.interpreters.ad import is_undefined
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
from stablax._src.lax._elementwise_unary import imag, neg, real
from stablax._src.lax._shapes import broadcast_in_dim, full_like


def one_minus_square(x):
    return sub(full_like(x, 1), square(x))


def tanh_jvp(t, y):
    # (t + t*y) * (1 - y): this association transposes to JAX's rounding exactly.
    return mul(add(t, mul(t, y)), sub(full_like(y, 1), y))


def bessel_i1e_derivative(x, y):
    # i0e(x) - i1e(x) (sign(x) + 1/x), whose limit at 0 is 1/2. Within eps of 0 that limit is
    # accurate to O(x) and 1/x could overflow (float32 subnormals), so the limit is used there.
    eps = float(dtypes.finfo(mlir_dtype(x)).eps)
    not_tiny = gt(unary.abs(x), full_like(x, eps))
    safe_x = select(not_tiny, x, full_like(x, eps))
    derivative = sub(bessel_i0e(safe_x), mul(y, add(sign(safe_x), div(full_like(x, 1), safe_x))))
    return select(not_tiny, derivative, full_like(x, 0.5))


def abs_jvp(t, x, y):
    if mlir_dtype(x).kind == "c":
        # d|z| = Re(conj(z) dz) / |z|, with 0 at z = 0
        safe = select(eq(y, full_like(y, 0)), full_like(y, 1), y)
        return real(mul(div(complex(real(x), neg(imag(x))), complex(safe, full_like(safe, 0))), t))
    # JAX's convention: the derivative at 0 is +1 (select(x >= 0, t, -t)), not sign(0) = 0.
    return select(ge(x, full_like(x, 0)), t, neg(t))


def mlir_dtype(x: Any) -> np.dtype:
    return x.aval.dtype


def unary_jvp(op_name, derivative):
    """The jvp rule of a unary op whose tangent is derivative(t, x, y)."""

    def jvp(primals, tangents, **params):  # params: the op's `accuracy`, if any
        (x,), (t,) = primals, tangents
        y = dispatch.bind(op_name, x, **params)
        return y, derivative(t, x, y)

    return jvp


# --- binary ------------------------------------------------------------------------------------


def _zero_if_none(t, like):
    return full_like(like, 0) if t is None else t


def max_min_jvp(op_name):
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


def mul_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = mul(x, y)
    if x is y and tx is ty and tx is not None:  # x * x (square, integer_pow): 2x dx, one product
        return out, mul(tx, mul(full_like(x, 2), x))
    terms = [mul(tx, y) if tx is not None else None, mul(x, ty) if ty is not None else None]
    return out, _sum(terms)


def div_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = div(x, y)
    # -ty * x * y**-2 (JAX's form): where y is a broadcast, XLA computes y**-2 before it.
    terms = [
        div(tx, y) if tx is not None else None,
        mul(mul(neg(ty), x), integer_pow(y, -2)) if ty is not None else None,
    ]
    return out, _sum(terms)


def rem_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    out = ew.rem(x, y)
    quotient = div(sub(x, out), y)  # the integer-valued x / y rounded toward zero
    terms = [tx, neg(mul(ty, quotient)) if ty is not None else None]
    return out, _sum(terms)


def pow_jvp(primals, tangents):
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


def atan2_jvp(primals, tangents):
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


def linear_binary_jvp(op_name, sign_y=1):
    def jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        out = dispatch.bind(op_name, x, y)
        if ty is None:
            return out, tx
        ty = ty if sign_y == 1 else neg(ty)
        return out, ty if tx is None else add(tx, ty)

    return jvp


def complex_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return complex(x, y), complex(_zero_if_none(tx, x), _zero_if_none(ty, y))


def polygamma_jvp(primals, tangents):
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


def transpose_add(ct, x, y):
    return [ct if is_undefined(x) else None, ct if is_undefined(y) else None]


def transpose_sub(ct, x, y):
    return [ct if is_undefined(x) else None, neg(ct) if is_undefined(y) else None]


def transpose_mul(ct, x, y):
    if is_undefined(x) and is_undefined(y):
        raise ValueError("[transpose] mul is not linear in both operands at once")
    return [mul(ct, y) if is_undefined(x) else None, mul(x, ct) if is_undefined(y) else None]


def transpose_div(ct, x, y):
    if is_undefined(y):
        raise ValueError("[transpose] div is only linear in its numerator")
    return [div(ct, y), None]


def transpose_complex(ct, x, y):
    return [real(ct) if is_undefined(x) else None, imag(neg(ct)) if is_undefined(y) else None]


# --- select and clamp -------------------------------------------------------------------------


def select_jvp(primals, tangents):
    pred, on_true, on_false = primals
    _, t_true, t_false = tangents
    out = select(pred, on_true, on_false)
    if t_true is None and t_false is None:
        return out, None
    return out, select(pred, _zero_if_none(t_true, on_true), _zero_if_none(t_false, on_false))


def select_transpose(ct, pred, on_true, on_false):
    zeros = full_like(ct, 0)
    return [
        None,
        select(pred, ct, zeros) if is_undefined(on_true) else None,
        select(pred, zeros, ct) if is_undefined(on_false) else None,
    ]


def clamp_jvp(primals, tangents):
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
    if v.aval.shape == x.aval.shape:
        return v
    return broadcast_in_dim(v, x.aval.shape, ())
