"""Elementwise ops: unary math, binary arithmetic and bitwise ops, comparisons, select, clamp.

Each op is one row in a family table; the family helpers give it a shape rule and lowering.
Operands must have equal shapes, except that a rank-0 operand broadcasts (as in JAX's lax), and
equal dtypes, except that a Python scalar takes the dtype of an array operand of its kind.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray
from stablax._src.dispatch import bind, def_op, weak_scalar

# --- dtype groups ------------------------------------------------------------------------------


def _is_float(dt: np.dtype) -> bool:
    return dtypes.issubdtype(dt, np.floating)


def _is_complex(dt: np.dtype) -> bool:
    return dt.kind == "c"


def _is_int(dt: np.dtype) -> bool:
    return dt.kind in "iu" or dtypes.issubdtype(dt, np.integer)


def _is_bool(dt: np.dtype) -> bool:
    return dt == np.bool_


FLOAT = ("floating", _is_float)
COMPLEX = ("complexfloating", _is_complex)
INT = ("integer", _is_int)
SIGNED = ("signedinteger", lambda dt: dt.kind == "i")
BOOL = ("bool", _is_bool)
INEXACT = (FLOAT, COMPLEX)
NUMBER = (INT, FLOAT, COMPLEX)
ANY = (BOOL, INT, FLOAT, COMPLEX)
INT_OR_BOOL = (BOOL, INT)


def check_dtype(opname: str, dtype: np.dtype, groups: tuple) -> None:
    if not any(test(dtype) for _, test in groups):
        accepted = ", ".join(name for name, _ in groups)
        raise TypeError(
            f"lax.{opname} does not accept dtype {dtype.name}. Accepted dtypes are subtypes "
            f"of {accepted}.{mlir.where_suffix()}"
        )


# --- operand preparation (Python-side, before bind) -------------------------------------------


def _aval_of(x: Any) -> ShapedArray | None:
    aval = getattr(x, "aval", None)
    return aval if isinstance(aval, ShapedArray) else None


def _prepare(opname: str, *operands: Any) -> list[Any]:
    """Python scalars adopt an array operand's dtype of the same kind; rank-0 operands broadcast."""
    avals = [_aval_of(x) for x in operands]
    array_dtypes = [a.dtype for a in avals if a is not None]
    prepared = []
    for x, aval in zip(operands, avals, strict=True):
        if aval is None and not isinstance(x, (np.ndarray, np.generic)):
            if not dtypes.is_python_scalar(x):
                from stablax._src.dispatch import to_array

                x = to_array(x)
            else:
                x = _scalar_operand(x, array_dtypes)
        prepared.append(x)
    shapes = {np.shape(x) if _aval_of(x) is None else x.aval.shape for x in prepared}
    if len(shapes) > 1:
        nonscalar = {s for s in shapes if s != ()}
        if len(nonscalar) > 1:
            listed = ", ".join(
                str(np.shape(x) if _aval_of(x) is None else x.aval.shape) for x in prepared
            )
            raise TypeError(
                f"{opname} got incompatible shapes for broadcasting: {listed}.{mlir.where_suffix()}"
            )
        (target,) = nonscalar
        from stablax._src.lax._shapes import broadcast_in_dim

        prepared = [
            broadcast_in_dim(x, target, ())
            if (np.shape(x) if _aval_of(x) is None else x.aval.shape) == ()
            else x
            for x in prepared
        ]
    return prepared


def _scalar_operand(x: Any, array_dtypes: list[np.dtype]) -> Any:
    """A Python scalar as a weakly typed operand, of an array operand's dtype if of its kind."""
    dtype = dtypes.python_scalar_dtype(x)
    for dt in array_dtypes:
        if _same_kind(dtype, dt):
            dtype = dt
            break
    return weak_scalar(x, dtype)


def _same_kind(scalar_dtype: np.dtype, dt: np.dtype) -> bool:
    if scalar_dtype == np.bool_:
        return dt == np.bool_
    if scalar_dtype.kind in "iu":
        return dt.kind in "iu"
    if scalar_dtype.kind == "f":
        return _is_float(dt)
    return dt.kind == "c"


# --- unary ops ---------------------------------------------------------------------------------


def _unary_rule(opname: str, groups: tuple, result_dtype=None):
    def rule(x: ShapedArray) -> ShapedArray:
        check_dtype(opname, x.dtype, groups)
        if result_dtype is None:
            return x
        return ShapedArray(x.shape, result_dtype(x.dtype), x.weak_type)

    return rule


def _real_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.finfo(dt).dtype) if dt.kind == "c" else dt


def _bool_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.bool_)


# public name -> (MLIR op, accepted dtypes, result dtype function or None for "same as input")
UNARY_OPS: dict[str, tuple[str, tuple, Any]] = {
    "neg": ("stablehlo.negate", NUMBER, None),
    "sign": ("stablehlo.sign", NUMBER, None),
    "floor": ("stablehlo.floor", (FLOAT,), None),
    "ceil": ("stablehlo.ceil", (FLOAT,), None),
    "is_finite": ("stablehlo.is_finite", (FLOAT,), _bool_dtype),
    "exp": ("stablehlo.exponential", INEXACT, None),
    "log": ("stablehlo.log", INEXACT, None),
    "log1p": ("stablehlo.log_plus_one", INEXACT, None),
    "expm1": ("stablehlo.exponential_minus_one", INEXACT, None),
    "tanh": ("stablehlo.tanh", INEXACT, None),
    "logistic": ("stablehlo.logistic", INEXACT, None),
    "sin": ("stablehlo.sine", INEXACT, None),
    "cos": ("stablehlo.cosine", INEXACT, None),
    "tan": ("stablehlo.tan", INEXACT, None),
    "sqrt": ("stablehlo.sqrt", INEXACT, None),
    "rsqrt": ("stablehlo.rsqrt", INEXACT, None),
    "cbrt": ("stablehlo.cbrt", (FLOAT,), None),
    "abs": ("stablehlo.abs", (SIGNED, FLOAT, COMPLEX), _real_dtype),
    "bitwise_not": ("stablehlo.not", INT_OR_BOOL, None),
    "population_count": ("stablehlo.popcnt", (INT,), None),
    "clz": ("stablehlo.count_leading_zeros", (INT,), None),
    "real": ("stablehlo.real", (COMPLEX,), _real_dtype),
    "imag": ("stablehlo.imag", (COMPLEX,), _real_dtype),
    "asin": ("chlo.asin", INEXACT, None),
    "acos": ("chlo.acos", INEXACT, None),
    "atan": ("chlo.atan", INEXACT, None),
    "sinh": ("chlo.sinh", INEXACT, None),
    "cosh": ("chlo.cosh", INEXACT, None),
    "asinh": ("chlo.asinh", INEXACT, None),
    "acosh": ("chlo.acosh", INEXACT, None),
    "atanh": ("chlo.atanh", INEXACT, None),
    "erf": ("chlo.erf", (FLOAT,), None),
    "erfc": ("chlo.erfc", (FLOAT,), None),
    "erf_inv": ("chlo.erf_inv", (FLOAT,), None),
    "lgamma": ("chlo.lgamma", (FLOAT,), None),
    "digamma": ("chlo.digamma", (FLOAT,), None),
    "bessel_i1e": ("chlo.bessel_i1e", (FLOAT,), None),
}

for _name, (_op, _groups, _result) in UNARY_OPS.items():
    def_op(_op, _unary_rule(_name, _groups, _result))


def _unary(opname: str, x: Any) -> Any:
    return bind(UNARY_OPS[opname][0], *_prepare(opname, x))


def neg(x):
    """Elementwise negation (`stablehlo.negate`)."""
    return _unary("neg", x)


def sign(x):
    """Elementwise sign: -1, 0 or 1 (`stablehlo.sign`; unsigned integers: x != 0, as JAX)."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and np.dtype(dtype).kind == "u":
        from stablax._src.lax._shapes import convert_element_type, full_like

        return convert_element_type(ne(x, full_like(x, 0)), dtype)
    return _unary("sign", x)


def floor(x):
    """Elementwise floor (`stablehlo.floor`)."""
    return _unary("floor", x)


def ceil(x):
    """Elementwise ceiling (`stablehlo.ceil`)."""
    return _unary("ceil", x)


def is_finite(x):
    """True where x is neither infinite nor NaN (`stablehlo.is_finite`)."""
    return _unary("is_finite", x)


def exp(x):
    """Elementwise e**x (`stablehlo.exponential`)."""
    return _unary("exp", x)


def log(x):
    """Elementwise natural logarithm (`stablehlo.log`)."""
    return _unary("log", x)


def log1p(x):
    """Elementwise log(1 + x), accurate near zero (`stablehlo.log_plus_one`)."""
    return _unary("log1p", x)


def expm1(x):
    """Elementwise e**x - 1, accurate near zero (`stablehlo.exponential_minus_one`)."""
    return _unary("expm1", x)


def tanh(x):
    """Elementwise hyperbolic tangent (`stablehlo.tanh`)."""
    return _unary("tanh", x)


def logistic(x):
    """Elementwise 1 / (1 + e**-x) (`stablehlo.logistic`)."""
    return _unary("logistic", x)


def sin(x):
    """Elementwise sine (`stablehlo.sine`)."""
    return _unary("sin", x)


def cos(x):
    """Elementwise cosine (`stablehlo.cosine`)."""
    return _unary("cos", x)


def tan(x):
    """Elementwise tangent (`stablehlo.tan`)."""
    return _unary("tan", x)


def sqrt(x):
    """Elementwise square root (`stablehlo.sqrt`)."""
    return _unary("sqrt", x)


def rsqrt(x):
    """Elementwise 1 / sqrt(x) (`stablehlo.rsqrt`)."""
    return _unary("rsqrt", x)


def cbrt(x):
    """Elementwise cube root (`stablehlo.cbrt`)."""
    return _unary("cbrt", x)


def abs(x):  # noqa: A001 (lax.abs is JAX's public name)
    """Elementwise absolute value; complex inputs give their real magnitude (`stablehlo.abs`)."""
    return _unary("abs", x)


def bitwise_not(x):
    """Elementwise bitwise/logical NOT (`stablehlo.not`)."""
    return _unary("bitwise_not", x)


not_ = bitwise_not


def population_count(x):
    """Number of set bits per element (`stablehlo.popcnt`)."""
    return _unary("population_count", x)


def clz(x):
    """Number of leading zero bits per element (`stablehlo.count_leading_zeros`)."""
    return _unary("clz", x)


def real(x):
    """Real part of a complex array (`stablehlo.real`)."""
    return _unary("real", x)


def imag(x):
    """Imaginary part of a complex array (`stablehlo.imag`)."""
    return _unary("imag", x)


def asin(x):
    """Elementwise arcsine (`chlo.asin`)."""
    return _unary("asin", x)


def acos(x):
    """Elementwise arccosine (`chlo.acos`)."""
    return _unary("acos", x)


def atan(x):
    """Elementwise arctangent (`chlo.atan`)."""
    return _unary("atan", x)


def sinh(x):
    """Elementwise hyperbolic sine (`chlo.sinh`)."""
    return _unary("sinh", x)


def cosh(x):
    """Elementwise hyperbolic cosine (`chlo.cosh`)."""
    return _unary("cosh", x)


def asinh(x):
    """Elementwise inverse hyperbolic sine (`chlo.asinh`)."""
    return _unary("asinh", x)


def acosh(x):
    """Elementwise inverse hyperbolic cosine (`chlo.acosh`)."""
    return _unary("acosh", x)


def atanh(x):
    """Elementwise inverse hyperbolic tangent (`chlo.atanh`)."""
    return _unary("atanh", x)


def erf(x):
    """Elementwise error function (`chlo.erf`)."""
    return _unary("erf", x)


def erfc(x):
    """Elementwise complementary error function (`chlo.erfc`)."""
    return _unary("erfc", x)


def erf_inv(x):
    """Elementwise inverse error function (`chlo.erf_inv`)."""
    return _unary("erf_inv", x)


def lgamma(x):
    """Elementwise log of the absolute gamma function (`chlo.lgamma`)."""
    return _unary("lgamma", x)


def digamma(x):
    """Elementwise digamma function (`chlo.digamma`)."""
    return _unary("digamma", x)


def bessel_i1e(x):
    """Exponentially scaled modified Bessel function of order 1 (`chlo.bessel_i1e`)."""
    return _unary("bessel_i1e", x)


def conj(x):
    """Complex conjugate; real inputs are returned unchanged (as JAX does)."""
    aval = _aval_of(x)
    dt = aval.dtype if aval is not None else dtypes.dtype_of(x)
    if dt.kind != "c":
        return x
    return complex(real(x), neg(imag(x)))


def exp2(x):
    """Elementwise 2**x, as exp(x * ln 2)."""
    (x,) = _prepare("exp2", x)
    check_dtype("exp2", _aval_of(x).dtype if _aval_of(x) else dtypes.dtype_of(x), INEXACT)
    return exp(mul(x, float(np.log(2.0))))


def square(x):
    """Elementwise x * x."""
    return mul(x, x)


def reciprocal(x):
    """Elementwise 1 / x."""
    return integer_pow(x, -1)


def round(x, rounding_method: int = 0):  # noqa: A001 (lax.round is JAX's public name)
    """Rounds to the nearest integer: ties away from zero (0, default) or to even (1)."""
    op = (
        "stablehlo.round_nearest_even"
        if int(rounding_method) == 1
        else "stablehlo.round_nearest_afz"
    )
    return bind(op, *_prepare("round", x))


class RoundingMethod:
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def_op("stablehlo.round_nearest_afz", _unary_rule("round", (FLOAT,)))
def_op("stablehlo.round_nearest_even", _unary_rule("round", (FLOAT,)))


# --- binary ops --------------------------------------------------------------------------------


def _binary_rule(opname: str, groups: tuple, result_dtype=None):
    def rule(x: ShapedArray, y: ShapedArray) -> ShapedArray:
        if x.dtype != y.dtype:
            raise TypeError(
                f"lax.{opname} requires arguments to have the same dtypes, got {x.dtype.name}, "
                f"{y.dtype.name}.{mlir.where_suffix()}"
            )
        if x.shape != y.shape:
            raise TypeError(
                f"lax.{opname} got incompatible shapes: {x.shape}, {y.shape}.{mlir.where_suffix()}"
            )
        check_dtype(opname, x.dtype, groups)
        dt = x.dtype if result_dtype is None else result_dtype(x.dtype)
        return ShapedArray(x.shape, dt, x.weak_type and y.weak_type)

    return rule


BINARY_OPS: dict[str, tuple[str, tuple]] = {
    "add": ("stablehlo.add", ANY),
    "sub": ("stablehlo.subtract", NUMBER),
    "mul": ("stablehlo.multiply", ANY),
    "div": ("stablehlo.divide", NUMBER),
    "rem": ("stablehlo.remainder", (INT, FLOAT)),
    "pow": ("stablehlo.power", NUMBER),
    "max": ("stablehlo.maximum", ANY),
    "min": ("stablehlo.minimum", ANY),
    "atan2": ("stablehlo.atan2", INEXACT),
    "nextafter": ("chlo.next_after", (FLOAT,)),
    "polygamma": ("chlo.polygamma", (FLOAT,)),
    "zeta": ("chlo.zeta", (FLOAT,)),
    "bitwise_and": ("stablehlo.and", INT_OR_BOOL),
    "bitwise_or": ("stablehlo.or", INT_OR_BOOL),
    "bitwise_xor": ("stablehlo.xor", INT_OR_BOOL),
    "shift_left": ("stablehlo.shift_left", (INT,)),
    "shift_right_logical": ("stablehlo.shift_right_logical", (INT,)),
    "shift_right_arithmetic": ("stablehlo.shift_right_arithmetic", (INT,)),
}

for _name, (_op, _groups) in BINARY_OPS.items():
    def_op(_op, _binary_rule(_name, _groups))


def _binary(opname: str, x: Any, y: Any) -> Any:
    return bind(BINARY_OPS[opname][0], *_prepare(opname, x, y))


def add(x, y):
    """Elementwise x + y (`stablehlo.add`); no dtype promotion, see `jnp.add` for that."""
    return _binary("add", x, y)


def sub(x, y):
    """Elementwise x - y (`stablehlo.subtract`)."""
    return _binary("sub", x, y)


def mul(x, y):
    """Elementwise x * y (`stablehlo.multiply`)."""
    return _binary("mul", x, y)


def div(x, y):
    """Elementwise x / y; integer division rounds toward zero (`stablehlo.divide`)."""
    return _binary("div", x, y)


def rem(x, y):
    """Elementwise remainder with the sign of x, like C's fmod (`stablehlo.remainder`)."""
    return _binary("rem", x, y)


def pow(x, y):  # noqa: A001 (lax.pow is JAX's public name)
    """Elementwise x ** y (`stablehlo.power`)."""
    return _binary("pow", x, y)


def max(x, y):  # noqa: A001
    """Elementwise maximum, NaN-propagating (`stablehlo.maximum`); complex: lexicographic."""
    x, y = _prepare("max", x, y)
    if _aval_of(x) is not None and _aval_of(x).dtype.kind == "c":
        return select(_complex_ge(x, y), x, y)
    return bind("stablehlo.maximum", x, y)


def min(x, y):  # noqa: A001
    """Elementwise minimum, NaN-propagating (`stablehlo.minimum`); complex: lexicographic."""
    x, y = _prepare("min", x, y)
    if _aval_of(x) is not None and _aval_of(x).dtype.kind == "c":
        return select(_complex_ge(y, x), x, y)
    return bind("stablehlo.minimum", x, y)


def _complex_ge(x, y):
    # XLA's CPU maximum compares only real parts; order by real part, then imaginary part.
    xr, yr = real(x), real(y)
    return bitwise_or(gt(xr, yr), bitwise_and(eq(xr, yr), ge(imag(x), imag(y))))


def atan2(x, y):
    """Elementwise arctangent of x / y using both signs (`stablehlo.atan2`)."""
    return _binary("atan2", x, y)


def nextafter(x1, x2):
    """The next representable value after x1 in the direction of x2 (`chlo.next_after`)."""
    return _binary("nextafter", x1, x2)


def polygamma(m, x):
    """The m-th derivative of digamma at x; m is a float array of integer values."""
    return _binary("polygamma", m, x)


def zeta(x, q):
    """Hurwitz zeta function (`chlo.zeta`)."""
    return _binary("zeta", x, q)


def bitwise_and(x, y):
    """Elementwise AND (`stablehlo.and`)."""
    return _binary("bitwise_and", x, y)


def bitwise_or(x, y):
    """Elementwise OR (`stablehlo.or`)."""
    return _binary("bitwise_or", x, y)


def bitwise_xor(x, y):
    """Elementwise XOR (`stablehlo.xor`)."""
    return _binary("bitwise_xor", x, y)


and_, or_, xor = bitwise_and, bitwise_or, bitwise_xor


def shift_left(x, y):
    """Elementwise x << y (`stablehlo.shift_left`)."""
    return _binary("shift_left", x, y)


def shift_right_logical(x, y):
    """Elementwise logical right shift (`stablehlo.shift_right_logical`)."""
    return _binary("shift_right_logical", x, y)


def shift_right_arithmetic(x, y):
    """Elementwise arithmetic right shift (`stablehlo.shift_right_arithmetic`)."""
    return _binary("shift_right_arithmetic", x, y)


def _complex_rule(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    if x.dtype != y.dtype or x.shape != y.shape:
        raise TypeError(
            f"lax.complex requires operands of equal shape and dtype, got {x.str_short()}, "
            f"{y.str_short()}.{mlir.where_suffix()}"
        )
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(
            f"lax.complex requires float32 or float64 operands, got {x.dtype.name}"
            f"{mlir.where_suffix()}"
        )
    dt = np.complex64 if x.dtype == np.float32 else np.complex128
    return ShapedArray(x.shape, dt, x.weak_type and y.weak_type)


def_op("stablehlo.complex", _complex_rule)


def complex(x, y):  # noqa: A001
    """Builds x + i*y from two real arrays (`stablehlo.complex`)."""
    return bind("stablehlo.complex", *_prepare("complex", x, y))


def integer_pow(x, y: int):
    """x ** y for a static integer y, as a chain of multiplies (what XLA would do anyway)."""
    y = int(y)
    (x,) = _prepare("integer_pow", x)
    if y == 0:
        from stablax._src.lax._shapes import full_like

        return full_like(x, 1)
    acc = None
    base = x
    n = -y if y < 0 else y
    while n:
        if n & 1:
            acc = base if acc is None else mul(acc, base)
        n >>= 1
        if n:
            base = mul(base, base)
    if y < 0:
        from stablax._src.lax._shapes import full_like

        acc = div(full_like(acc, 1), acc)
    return acc


# --- comparisons -------------------------------------------------------------------------------

COMPARISONS = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def _compare_rule(x: ShapedArray, y: ShapedArray, *, direction: str) -> ShapedArray:
    name = {v: k for k, v in COMPARISONS.items()}[direction]
    _binary_rule(name, ANY)(x, y)
    return ShapedArray(x.shape, np.bool_, False)


def _compare_lowering(operands, in_avals, out_avals, *, direction):
    dt = in_avals[0].dtype
    if dt.kind == "c" or _is_float(dt):
        compare_type = "FLOAT"
    elif dt.kind == "u" or dt == np.bool_:
        compare_type = "UNSIGNED"
    else:
        compare_type = "SIGNED"
    op = mlir.emit(
        "stablehlo.compare",
        operands,
        [mlir.aval_type(out_avals[0])],
        {
            "comparison_direction": mlir.stablehlo.ComparisonDirectionAttr.get(direction),
            "compare_type": mlir.stablehlo.ComparisonTypeAttr.get(compare_type),
        },
    )
    return list(op.results)


def_op("stablehlo.compare", _compare_rule, _compare_lowering)


def _compare(name: str, x: Any, y: Any) -> Any:
    return bind("stablehlo.compare", *_prepare(name, x, y), direction=COMPARISONS[name])


def eq(x, y):
    """Elementwise x == y (`stablehlo.compare EQ`)."""
    return _compare("eq", x, y)


def ne(x, y):
    """Elementwise x != y (`stablehlo.compare NE`)."""
    return _compare("ne", x, y)


def lt(x, y):
    """Elementwise x < y (`stablehlo.compare LT`)."""
    return _compare("lt", x, y)


def le(x, y):
    """Elementwise x <= y (`stablehlo.compare LE`)."""
    return _compare("le", x, y)


def gt(x, y):
    """Elementwise x > y (`stablehlo.compare GT`)."""
    return _compare("gt", x, y)


def ge(x, y):
    """Elementwise x >= y (`stablehlo.compare GE`)."""
    return _compare("ge", x, y)


# --- select and clamp --------------------------------------------------------------------------


def _select_rule(pred: ShapedArray, on_true: ShapedArray, on_false: ShapedArray) -> ShapedArray:
    if pred.dtype != np.bool_:
        raise TypeError(
            f"lax.select: predicate must be boolean, got {pred.dtype.name}{mlir.where_suffix()}"
        )
    if on_false.dtype != on_true.dtype or on_false.shape != on_true.shape:
        raise TypeError(
            "lax.select_n requires all cases to have the same shape and dtype, got "
            f"{on_false.str_short()}, {on_true.str_short()}.{mlir.where_suffix()}"
        )
    if pred.shape not in ((), on_true.shape):
        raise TypeError(
            f"lax.select_n: predicate shape {pred.shape} must be scalar or equal to the case "
            f"shape {on_true.shape}.{mlir.where_suffix()}"
        )
    return ShapedArray(on_true.shape, on_true.dtype, on_false.weak_type and on_true.weak_type)


# Operands in StableHLO's order: (pred, on_true, on_false).
def_op("stablehlo.select", _select_rule)


def select(pred, on_true, on_false):
    """Elementwise `on_true if pred else on_false` (`stablehlo.select`)."""
    pred_aval = _aval_of(pred)
    pred_dtype = pred_aval.dtype if pred_aval is not None else dtypes.dtype_of(pred)
    if pred_dtype != np.bool_:
        raise TypeError(
            f"lax.select: predicate must be boolean, got {pred_dtype.name}{mlir.where_suffix()}"
        )
    return select_n(pred, on_false, on_true)


def select_n(which, *cases):
    """Picks `cases[which]` elementwise; `which` is boolean (2 cases) or int32 (any number)."""
    if not cases:
        raise ValueError("lax.select_n requires at least one case")
    cases = _prepare("select_n", *cases)
    if len(cases) == 1:
        return cases[0]
    which_aval = _aval_of(which)
    which_dtype = which_aval.dtype if which_aval is not None else dtypes.dtype_of(which)
    if which_dtype == np.bool_:
        if len(cases) != 2:
            raise TypeError(
                f"lax.select_n: a boolean selector needs 2 cases, got {len(cases)}"
                f"{mlir.where_suffix()}"
            )
        return bind("stablehlo.select", which, cases[1], cases[0])
    if which_dtype.kind not in "iu":
        raise TypeError(
            f"lax.select_n: selector must be bool or int32, got {which_dtype.name}"
            f"{mlir.where_suffix()}"
        )
    # Binary tree of selects on the bits of `which`, as JAX lowers it.
    mid = len(cases) // 2
    low = select_n(which, *cases[:mid])
    high = select_n(sub(which, np.asarray(mid, which_dtype)), *cases[mid:])
    return bind("stablehlo.select", lt(which, np.asarray(mid, which_dtype)), low, high)


def _clamp_rule(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
    for bound, name in ((lo, "min"), (hi, "max")):
        if bound.dtype != x.dtype:
            raise TypeError(
                f"lax.clamp requires {name} and operand to have the same dtype, got "
                f"{bound.dtype.name}, {x.dtype.name}.{mlir.where_suffix()}"
            )
        if bound.shape not in ((), x.shape):
            raise TypeError(
                f"lax.clamp requires {name} to be scalar or of the operand's shape {x.shape}, "
                f"got {bound.shape}.{mlir.where_suffix()}"
            )
    check_dtype("clamp", x.dtype, (INT, FLOAT))
    return x


def_op("stablehlo.clamp", _clamp_rule)


def clamp(min, x, max):  # noqa: A002 (JAX's parameter names)
    """Elementwise min(max(x, min), max) (`stablehlo.clamp`); bounds may be scalars."""
    x_aval = _aval_of(x)
    dts = [x_aval.dtype] if x_aval is not None else []
    lo = _scalar_operand(min, dts) if dtypes.is_python_scalar(min) else min
    hi = _scalar_operand(max, dts) if dtypes.is_python_scalar(max) else max
    if dtypes.is_python_scalar(x):
        x = _scalar_operand(x, [])
    return bind("stablehlo.clamp", lo, x, hi)


__all__ = [
    *UNARY_OPS,
    *BINARY_OPS,
    *COMPARISONS,
    "and_",
    "or_",
    "xor",
    "not_",
    "conj",
    "exp2",
    "square",
    "reciprocal",
    "round",
    "RoundingMethod",
    "complex",
    "integer_pow",
    "select",
    "select_n",
    "clamp",
]
