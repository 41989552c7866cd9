"""Elementwise NumPy functions with JAX's promotion rules, each compiled once per signature
(division, remainders and powers: _ufuncs_division.py).

Binary functions go through `_eager` (a `jit`): an eager call on arrays is one cached executable,
promotion and broadcasting included; under a trace they inline.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._complex_special import complex_function
from stablax._src.numpy._promotion import (
    check_arraylike,
    check_out_none,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_args_shapes_only,
    promote_dtypes,
)
from stablax._src.numpy._sorting import nonzero
from stablax._src.numpy._ufuncs_division import _int_floor_div, _mod


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
        if x.aval.dtype.kind != "c":
            return lax.div(lax.log(x), lax.log(lax.full_like(x, base)))
        # Each part over the real log(base) (the Array API's formula): a complex division by
        # log(base) + 0j would make inf * 0 = NaN of an infinite part.
        z = complex_function("log", x)
        scale = lax.log(lax.full_like(lax.real(z), base))
        return lax.complex(lax.div(lax.real(z), scale), lax.div(lax.imag(z), scale))

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
    c = asarray(c)
    return _to_bool(c)


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
