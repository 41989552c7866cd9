"""Elementwise NumPy functions with JAX's promotion rules, each compiled once per signature.

Binary functions go through `_eager` (a `jit`): an eager call on arrays is one cached executable,
promotion and broadcasting included; under a trace they inline.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.jit import jit as _eager
from stablax._src.numpy._complex_special import complex_function
from stablax._src.numpy._promotion import (
    check_arraylike,
    check_out_none,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes,
    promote_dtypes_as_given,
    promote_dtypes_numeric,
)


def _unary_inexact(lax_fn):
    def fn(x):
        (x,) = promote_args_inexact(lax_fn.__name__, x)
        return lax_fn(x)

    fn.__name__ = lax_fn.__name__
    fn.__doc__ = f"Elementwise {lax_fn.__name__}, NumPy-style (integers promote to float)."
    return _eager(fn)


def _unary_same(lax_fn, name=None):
    def fn(x):
        check_arraylike(fn.__name__, x)
        (x,) = promote_dtypes(x)
        return lax_fn(x)

    fn.__name__ = name or lax_fn.__name__
    fn.__doc__ = f"Elementwise {fn.__name__}, NumPy-style."
    return _eager(fn)


def _binary(lax_fn, name):
    def fn(x, y):
        return lax_fn(*promote_args(name, x, y))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name} with JAX's dtype promotion and NumPy broadcasting."
    return _eager(fn)


def _special_complex(lax_fn, name):
    # Complex operands: C99's values at infinities, NaNs and signed zeros (_complex_special).
    def fn(x):
        return complex_function(name, x) if x.aval.dtype.kind == "c" else lax_fn(x)

    fn.__name__ = lax_fn.__name__
    return fn


sin = _unary_inexact(lax.sin)
cos = _unary_inexact(lax.cos)
tan = _unary_inexact(lax.tan)
arcsin = _unary_inexact(lax.asin)
arccos = _unary_inexact(_special_complex(lax.acos, "acos"))
arctan = _unary_inexact(lax.atan)
sinh = _unary_inexact(_special_complex(lax.sinh, "sinh"))
cosh = _unary_inexact(_special_complex(lax.cosh, "cosh"))
tanh = _unary_inexact(_special_complex(lax.tanh, "tanh"))
arcsinh = _unary_inexact(_special_complex(lax.asinh, "asinh"))
arccosh = _unary_inexact(_special_complex(lax.acosh, "acosh"))
arctanh = _unary_inexact(_special_complex(lax.atanh, "atanh"))
exp = _unary_inexact(_special_complex(lax.exp, "exp"))


def _exp2(x):
    if x.aval.dtype.kind == "c":  # a weak x stays weak, as JAX's
        ln2 = complex(np.log(2)) if x.aval.weak_type else np.asarray(np.log(2), x.aval.dtype)
        return lax.exp(lax.mul(x, ln2))
    return lax.exp2(x)


_exp2.__name__ = "exp2"
exp2 = _unary_inexact(_exp2)
expm1 = _unary_inexact(_special_complex(lax.expm1, "expm1"))
log = _unary_inexact(_special_complex(lax.log, "log"))
log1p = _unary_inexact(_special_complex(lax.log1p, "log1p"))
sqrt = _unary_inexact(_special_complex(lax.sqrt, "sqrt"))
cbrt = _unary_inexact(lax.cbrt)
negative = _unary_same(lax.neg, "negative")


def _sign(x):
    if x.aval.dtype == np.bool_:
        raise TypeError(f"jnp.sign does not accept dtype bool{mlir.where_suffix()}")
    return lax.sign(x)


sign = _unary_same(_sign, "sign")
abs = absolute = _unary_same(  # noqa: A001 (booleans and unsigned integers are their own abs)
    lambda x: x if dtypes.KIND.get(x.aval.dtype) in ("b", "u") else lax.abs(x), "absolute"
)  # (dtypes.KIND: NumPy's kind letter is "V" for ml_dtypes' uint4 and uint2)
conjugate = conj = _unary_same(
    lambda x: lax.conj(x) if x.aval.dtype.kind == "c" else x, "conjugate"
)
real = _unary_same(lambda x: lax.real(x) if x.aval.dtype.kind == "c" else x, "real")
imag = _unary_same(
    lambda x: lax.imag(x) if x.aval.dtype.kind == "c" else lax.full_like(x, 0), "imag"
)


@_eager
def positive(x):
    """Elementwise +x."""
    (x,) = promote_dtypes(x)
    return x


def _floor_or_ceil(lax_fn, name):
    def fn(x):
        (x,) = promote_dtypes(x)
        if x.aval.dtype.kind == "c":
            raise TypeError(f"jnp.{name} does not support complex inputs{mlir.where_suffix()}")
        if not dtypes.issubdtype(x.aval.dtype, np.floating):
            return x
        return lax_fn(x)

    fn.__name__ = name
    return _eager(fn)


floor = _floor_or_ceil(lax.floor, "floor")
ceil = _floor_or_ceil(lax.ceil, "ceil")
trunc = _floor_or_ceil(lambda x: lax.select(lax.lt(x, 0.0), lax.ceil(x), lax.floor(x)), "trunc")


def _log_base(base):
    def fn(x):
        (x,) = promote_args_inexact("log", x)
        x = lax.convert_element_type(x, x.aval.dtype)  # strongly typed, as in JAX
        return lax.div(lax.log(x), lax.log(lax.full_like(x, base)))

    return _eager(fn)


log2 = _log_base(2.0)
log10 = _log_base(10.0)

add = _binary(lax.add, "add")
multiply = _binary(lax.mul, "multiply")
maximum = _binary(lax.max, "maximum")
minimum = _binary(lax.min, "minimum")
equal = _binary(lax.eq, "equal")
not_equal = _binary(lax.ne, "not_equal")


def _ordering(lax_fn, name):
    # Complex numbers compare lexicographically: by real part, then by imaginary part (as JAX).
    def compare(x, y):
        if x.aval.dtype.kind != "c":
            return lax_fn(x, y)
        xr, yr = lax.real(x), lax.real(y)
        return lax.select(lax.eq(xr, yr), lax_fn(lax.imag(x), lax.imag(y)), lax_fn(xr, yr))

    return _binary(compare, name)


less = _ordering(lax.lt, "less")
less_equal = _ordering(lax.le, "less_equal")
greater = _ordering(lax.gt, "greater")
greater_equal = _ordering(lax.ge, "greater_equal")
bitwise_and = _binary(lax.bitwise_and, "bitwise_and")
bitwise_or = _binary(lax.bitwise_or, "bitwise_or")
bitwise_xor = _binary(lax.bitwise_xor, "bitwise_xor")
left_shift = _eager(lambda x, y: lax.shift_left(*promote_args_numeric("left_shift", x, y)))
arctan2 = _eager(lambda x, y: lax.atan2(*promote_args_inexact("arctan2", x, y)))
nextafter = _eager(lambda x, y: lax.nextafter(*promote_args_inexact("nextafter", x, y)))


@_eager
def subtract(x, y):
    """Elementwise x - y (booleans are rejected, as in NumPy)."""
    x, y = promote_args("subtract", x, y)
    if x.aval.dtype == np.bool_:
        raise TypeError("jnp.subtract: boolean subtract is not supported; use logical_xor")
    return lax.sub(x, y)


@_eager
def right_shift(x, y):
    """Elementwise x >> y: arithmetic for signed, logical for unsigned integers."""
    x, y = promote_args_numeric("right_shift", x, y)
    if x.aval.dtype.kind == "u":
        return lax.shift_right_logical(x, y)
    return lax.shift_right_arithmetic(x, y)


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


def _logical(lax_fn, name):
    def fn(x, y):
        # As JAX: promote, then each operand to bool. A weak 0-d operand is compared with a
        # weak zero (JAX takes it for a Python scalar), so its bool stays weak; a weak array's
        # is strong. The result is weak when both bools are.
        check_arraylike(name, x, y)
        x, y = promote_dtypes(x, y)
        weak = all(_bool_stays_weak(v) for v in (x, y))
        out = lax_fn(*promote_args(name, _to_bool(x), _to_bool(y)))
        return lax.convert_element_type(out, np.bool_, weak_type=weak)

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name} of the truth values of x and y (NumPy's `{name}`)."
    return _eager(fn)


def _bool_stays_weak(x):
    return x.aval.weak_type and (x.aval.dtype == np.bool_ or x.aval.ndim == 0)


def _to_bool(x):
    return x if x.aval.dtype == np.bool_ else lax.ne(x, lax.full_like(x, 0))


logical_and = _logical(lax.bitwise_and, "logical_and")
logical_or = _logical(lax.bitwise_or, "logical_or")
logical_xor = _logical(lax.bitwise_xor, "logical_xor")


@_eager
def logical_not(x):
    """Elementwise NOT of truthiness."""
    (x,) = promote_dtypes(x)
    return lax.bitwise_not(_to_bool(x))


@_eager
def invert(x):
    """Elementwise bitwise NOT (logical NOT for booleans)."""
    (x,) = promote_dtypes(x)
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


@_eager
def isfinite(x):
    (x,) = promote_dtypes(x)
    if not dtypes.issubdtype(x.aval.dtype, np.inexact):
        return lax.full_like(x, True, dtype=np.bool_)
    if x.aval.dtype.kind == "c":
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


@_eager
def isnan(x):
    (x,) = promote_dtypes(x)
    return lax.ne(x, x)


@_eager
def isinf(x):
    (x,) = promote_dtypes(x)
    if not dtypes.issubdtype(x.aval.dtype, np.inexact):
        return lax.full_like(x, False, dtype=np.bool_)
    magnitude = lax.abs(x)
    # JAX compares with a strongly typed infinity: the result is never weak.
    infinity = lax.full_like(magnitude, np.inf)
    return lax.eq(
        magnitude, lax.convert_element_type(infinity, infinity.aval.dtype, weak_type=False)
    )


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """Elementwise `x if condition else y`, broadcasting all three; `where(condition)` alone is
    `nonzero(condition, size=size, fill_value=fill_value)`."""
    if x is None and y is None:
        from stablax._src.numpy._sorting import nonzero

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise TypeError("jnp.where: either both or neither of x and y must be given")
    if size is not None or fill_value is not None:  # JAX's check, after the arguments' types
        check_arraylike("jnp.where", condition, x, y)
        raise ValueError(
            "jnp.where: size and fill_value apply only to the one-argument form"
            f"{mlir.where_suffix()}"
        )
    return _where_select(condition, x, y)


@_eager
def _where_select(condition, x, y):
    x, y = promote_dtypes(x, y)
    condition, x, y = promote_args_shapes_only("where", _to_bool_any(condition), x, y)
    return lax.select(condition, x, y)


def _to_bool_any(c):
    from stablax._src.numpy._creation import asarray

    c = asarray(c)
    return _to_bool(c)


def promote_args_shapes_only(name, *args):
    from stablax._src.numpy._promotion import broadcast_shapes, broadcast_to_shape

    shape = broadcast_shapes(name, *[a.aval.shape for a in args])
    return [broadcast_to_shape(a, shape) for a in args]


@_eager
def clip(x, min=None, max=None):  # noqa: A002
    """Limits values to [min, max] (either bound optional); complex values have no order
    (ValueError, as JAX)."""
    if x is None:  # JAX's check and class
        raise ValueError(f"jnp.clip: no input was provided{mlir.where_suffix()}")
    (x,) = promote_dtypes(x)
    if any(
        dtypes.issubdtype(promote_dtypes(v)[0].aval.dtype, np.complexfloating)
        for v in (x, min, max)
        if v is not None
    ):
        raise ValueError(
            f"jnp.clip: complex values have no ordering and cannot be clipped{mlir.where_suffix()}"
        )
    if min is not None:
        x = maximum(x, min)
    if max is not None:
        x = minimum(x, max)
    return x


def round(a: Any, decimals: int = 0, out: None = None) -> Any:  # noqa: A001
    """Rounds half to even, NumPy-style, to `decimals` places.

    `out` is NumPy's output argument: only None is accepted, as JAX (arrays are immutable).
    """
    check_out_none("jnp.round", out)
    if not isinstance(decimals, (int, np.integer)):  # a static int, as JAX
        raise TypeError(
            f"jnp.round: decimals must be an integer, got {type(decimals).__name__}"
            f"{mlir.where_suffix()}"
        )
    return _round(a, decimals=decimals)


def _round_impl(x, decimals):
    check_arraylike("round", x)
    (x,) = promote_dtypes(x)
    dt = x.aval.dtype
    if dt == np.bool_:  # as JAX (NumPy returns booleans unchanged)
        raise ValueError(f"jnp.round: data type bool not inexact{mlir.where_suffix()}")
    if not dtypes.issubdtype(dt, np.inexact):
        # 10**20 exceeds every integer dtype: a larger power (2**63 digits) would never finish
        return x if decimals >= 0 else _round_integer(x, 10 ** min(-decimals, 20))
    if decimals > np.log10(float(dtypes.finfo(dt).max)):
        # 10**decimals would overflow to inf (inf/inf is NaN); the input has no such digits
        return x
    if dt.kind == "c":
        return lax.complex(_round_impl(lax.real(x), decimals), _round_impl(lax.imag(x), decimals))
    if decimals == 0:
        return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    if dt == np.float16:  # scaled in float32, as JAX: float16's product loses the digit
        return lax.convert_element_type(
            _round_impl(lax.convert_element_type(x, np.float32), decimals), dt
        )
    factor = lax.full_like(x, 10.0**decimals)
    return lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)


def _round_integer(x, step: int):
    # To the nearest multiple of `step`, ties to the even multiple, as NumPy (JAX raises).
    info = dtypes.iinfo(x.aval.dtype)
    if step > info.max:
        return lax.full_like(x, 0)
    step_ = lax.full_like(x, step)
    low = lax.sub(x, _mod(x, step_))
    rest = lax.sub(x, low)
    half_up = lax.gt(rest, lax.sub(step_, rest))
    tie = lax.eq(rest, lax.sub(step_, rest))
    odd = lax.ne(_mod(_int_floor_div(low, step_), lax.full_like(x, 2)), lax.full_like(x, 0))
    up = lax.bitwise_or(half_up, lax.bitwise_and(tie, odd))
    return lax.select(up, lax.add(low, step_), low)


_round = _eager(_round_impl, static_argnames=("decimals",))


def around(a: Any, decimals: int = 0, out: None = None) -> Any:
    """`round` under its other NumPy name: half to even, to `decimals` places (`out`: None)."""
    return round(a, decimals, out)


__all__ = [
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sqrt",
    "cbrt",
    "negative",
    "positive",
    "sign",
    "abs",
    "absolute",
    "conjugate",
    "conj",
    "real",
    "imag",
    "floor",
    "ceil",
    "trunc",
    "add",
    "subtract",
    "multiply",
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
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_invert",
    "invert",
    "left_shift",
    "right_shift",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "arctan2",
    "nextafter",
    "isfinite",
    "isnan",
    "isinf",
    "where",
    "clip",
    "round",
    "around",
]
