"""Division, remainders and powers with NumPy's rounding and signed zeros and JAX's dtypes:
true_divide, floor_divide, remainder, fmod, divmod, power, square, reciprocal."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.jit import jit as _eager
from stablax._src.numpy._promotion import (
    check_arraylike,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_args_shapes_only,
    promote_dtypes,
    promote_dtypes_as_given,
    promote_dtypes_numeric,
)


@_eager
def true_divide(x, y):
    """Elementwise x / y; integers divide as floats."""
    return lax.div(*promote_args_inexact("true_divide", x, y))


divide = true_divide


def _int_floor_div(x, y):
    # x // 0 is 0, as in NumPy (JAX gives -2 here, an artefact of XLA's x / 0 = -1).
    zero = lax.full_like(y, 0)
    q = lax.div(x, y)
    if dtypes.issubdtype(x.aval.dtype, np.signedinteger):  # int4 and int2 included
        r = lax.rem(x, y)
        fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))
        q = lax.select(fix, lax.sub(q, lax.full_like(q, 1)), q)
    return lax.select(lax.eq(y, zero), zero, q)


@_eager
def floor_divide(x, y):
    """Elementwise floor(x / y) with NumPy's rounding toward minus infinity; integer x // 0 is
    0, as in NumPy (booleans divide as int32, as in JAX)."""
    x, y = promote_args_numeric("floor_divide", x, y)
    dt = x.aval.dtype
    if dtypes.issubdtype(dt, np.integer):  # (u)int4 and (u)int2 included
        return _int_floor_div(x, y)
    if dt.kind == "c":
        raise TypeError("jnp.floor_divide does not support complex inputs")
    # One infinite operand: the Array API's quotient, x / y (NumPy and JAX give NaN and -1).
    one_infinite = lax.ne(_isinf_float(x), _isinf_float(y))
    return lax.select(one_infinite, lax.div(x, y), _float_divmod(x, y)[0])


def _isinf_float(x):
    return lax.eq(lax.abs(x), lax.full_like(x, np.inf))


def sign_bit(x):
    """True where the float's sign bit is set (-0.0 included)."""
    if float(dtypes.finfo(x.aval.dtype).min) >= 0:  # float8_e8m0fnu has no sign bit
        return lax.full_like(x, False, dtype=np.bool_)
    if dtypes.itemsize_bits(x.aval.dtype) < 8:  # float4/float6 pack; float32 keeps the sign
        x = lax.convert_element_type(x, np.float32)
    as_int = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[x.aval.dtype.itemsize]
    bits = lax.bitcast_convert_type(x, as_int)
    return lax.lt(bits, lax.full_like(bits, 0))


def _zero_with_sign_of(s):
    zero = lax.full_like(s, 0)
    return lax.select(sign_bit(s), lax.neg(zero), zero)


def _float_divmod(x, y):
    """NumPy's float divmod step by step, so infinities and signed zeros come out as NumPy's:
    the quotient is floor((x - fmod(x, y)) / y) corrected towards the divisor's sign."""
    one = lax.full_like(x, 1)
    mod = lax.rem(x, y)
    div = lax.div(lax.sub(x, mod), y)
    zero = lax.full_like(x, 0)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.lt(y, zero), lax.lt(mod, zero)))
    mod = lax.select(fix, lax.add(mod, y), mod)
    div = lax.select(fix, lax.sub(div, one), div)
    mod = lax.select(lax.eq(mod, zero), _zero_with_sign_of(y), mod)
    floordiv = lax.floor(div)
    half = lax.full_like(x, 0.5)
    floordiv = lax.select(lax.gt(lax.sub(div, floordiv), half), lax.add(floordiv, one), floordiv)
    quotient = lax.div(x, y)
    floordiv = lax.select(lax.eq(div, zero), _zero_with_sign_of(quotient), floordiv)
    # x / 0 is +-inf or nan, as in NumPy.
    return lax.select(lax.eq(y, zero), quotient, floordiv), mod


def _mod(x, y):
    if x.aval.dtype.kind == "f" or dtypes.issubdtype(x.aval.dtype, np.floating):
        return _float_divmod(x, y)[1]
    r = lax.rem(x, y)
    zero = lax.full_like(r, 0)
    if dtypes.issubdtype(x.aval.dtype, np.signedinteger):  # int4 and int2 included
        fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))
        r = lax.select(fix, lax.add(r, y), r)
    return lax.select(lax.eq(y, zero), zero, r)  # x % 0 is 0, as in NumPy and JAX


@_eager
def remainder(x, y):
    """Elementwise remainder with the sign of the divisor (NumPy's `mod`); integer x % 0 is 0."""
    x, y = promote_args_numeric("remainder", x, y)
    if x.aval.dtype.kind == "c":
        raise TypeError("jnp.remainder does not support complex inputs")
    return _mod(x, y)


mod = remainder


@_eager
def fmod(x, y):
    """Elementwise remainder with the sign of the dividend (C's fmod); integer x % 0 is 0."""
    x, y = promote_args("fmod", x, y)
    if x.aval.dtype.kind == "c":
        raise TypeError(f"jnp.fmod does not support complex inputs{mlir.where_suffix()}")
    if x.aval.dtype == np.bool_:
        x, y = (lax.convert_element_type(v, np.int32) for v in (x, y))
    if dtypes.KIND.get(x.aval.dtype) in ("i", "u"):  # x % 0 is 0 (int4 too), as NumPy and JAX
        zero = lax.full_like(y, 0)
        return lax.select(lax.eq(y, zero), zero, lax.rem(x, y))
    return lax.rem(x, y)


def divmod(x, y):  # noqa: A001
    """(floor_divide(x, y), remainder(x, y))."""
    return floor_divide(x, y), remainder(x, y)


def _integer_power(x, y):
    # Binary exponentiation over every bit of y: exact powers modulo 2**bits for y >= 0, as
    # NumPy (JAX reads only y's low 6 bits). For y < 0, 1 / x**|y| truncated toward zero.
    one, zero = lax.full_like(y, 1), lax.full_like(y, 0)
    exponent = lax.select(lax.lt(y, zero), zero, y) if y.aval.dtype.kind == "i" else y
    acc, base = lax.full_like(x, 1), x
    for _ in range(dtypes.itemsize_bits(y.aval.dtype)):
        odd = lax.ne(lax.bitwise_and(exponent, one), zero)
        acc = lax.select(odd, lax.mul(acc, base), acc)
        base = lax.mul(base, base)
        exponent = lax.shift_right_logical(exponent, one)
    if y.aval.dtype.kind != "i":
        return acc
    x_one, x_zero = lax.full_like(x, 1), lax.full_like(x, 0)
    odd = lax.ne(lax.bitwise_and(y, one), zero)
    minus_one = lax.select(odd, lax.neg(x_one), x_one)
    negative = lax.select(lax.eq(x, x_one), x_one, x_zero)
    negative = lax.select(lax.eq(x, lax.neg(x_one)), minus_one, negative)
    return lax.select(lax.lt(y, zero), negative, acc)


@_eager
def _power(x, y):
    x_num, y_num = promote_args_numeric("power", x, y)
    if x_num.aval.dtype.kind in "iu":
        return _integer_power(x_num, y_num)
    x, y = promote_dtypes_as_given(x, y)
    if dtypes.issubdtype(x.aval.dtype, np.inexact) and dtypes.issubdtype(y.aval.dtype, np.integer):
        # An integer exponent keeps the base's type (and its derivative at 0), as in JAX.
        return lax.pow(*promote_args_shapes_only("power", x, y))
    return lax.pow(x_num, y_num)


def _concrete_integer(y: Any) -> int | None:
    if isinstance(y, (bool, int, np.integer)):
        return operator.index(y)
    if isinstance(y, (np.ndarray, Array)) and y.ndim == 0:  # concrete: not a Tracer
        if dtypes.issubdtype(y.dtype, np.integer):
            return operator.index(y)
    return None


def power(x, y):
    """Elementwise x ** y (NumPy's `power` with JAX's dtype rules): a concrete integer exponent
    is a chain of multiplies (`lax.integer_pow`, so negative exponents of integers raise),
    integers raise integers exactly (modulo 2**bits) and floats keep their type under an integer
    exponent."""
    check_arraylike("power", x, y)
    exponent = _concrete_integer(y)
    if exponent is not None:
        (x,) = promote_dtypes_numeric(x)
        return lax.integer_pow(x, exponent)
    return _power(x, y)


pow = power  # noqa: A001


@_eager
def square(x):
    """Elementwise x * x (booleans square as integers, as in JAX)."""
    (x,) = promote_dtypes(x)
    if x.aval.dtype == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    return lax.mul(x, x)


@_eager
def reciprocal(x):
    """Elementwise 1 / x."""
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.div(lax.full_like(x, 1), x)


__all__ = [
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "mod",
    "fmod",
    "divmod",
    "power",
    "pow",
    "square",
    "reciprocal",
]
