"""Unary elementwise ops: the UNARY_OPS table of one-to-one StableHLO/CHLO ops with one wrapper
per row, their shape rule and accuracy attribute, and round (registered in _elementwise_ops.py).
`sign` is a row here, but its wrapper lives in _elementwise.py: for unsigned integers it is a
comparison.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.dispatch import bind
from stablax._src.ir import stablehlo
from stablax._src.lax._dot_algorithms import AccuracyMode, Tolerance
from stablax._src.lax._elementwise_common import (
    COMPLEX,
    FLOAT,
    INEXACT,
    INT,
    INT_OR_BOOL,
    NUMBER,
    SIGNED,
    _prepare,
    check_dtype,
)


def unary_rule(opname: str, groups: tuple, result_dtype=None):
    def rule(x: ShapedArray, accuracy: Any = None) -> ShapedArray:
        check_dtype(opname, x.dtype, groups)
        if opname == "bessel_i1e" and x.dtype.itemsize < 2:
            # XLA has no lowering of chlo.bessel_i1e for 8- and 4-bit floats: refused here
            # rather than failing at compile time (JAX lets the JaxRuntimeError through).
            raise TypeError(
                f"lax.bessel_i1e does not accept dtype {x.dtype}: it takes 16-, 32- and 64-bit "
                f"floats{mlir.where_suffix()}"
            )
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

# --- accuracy of transcendental functions (JAX's `accuracy=`) ----------------------------------

WITH_ACCURACY = frozenset("exp log log1p expm1 tanh logistic sin cos tan sqrt rsqrt cbrt".split())


def _accuracy_attribute(accuracy: Any) -> Any:
    if isinstance(accuracy, AccuracyMode):
        return stablehlo.ResultAccuracyAttr.get(0.0, 0.0, 0, accuracy.name)
    return stablehlo.ResultAccuracyAttr.get(
        accuracy.atol, accuracy.rtol, accuracy.ulps, "TOLERANCE"
    )


def accuracy_lowering(name: str):
    # The op with a `result_accuracy` attribute when an accuracy is asked for.
    def lower(operands, in_avals, out_avals, accuracy=None):
        attrs = None if accuracy is None else {"result_accuracy": _accuracy_attribute(accuracy)}
        return list(mlir.emit(name, operands, [mlir.aval_type(out_avals[0])], attrs).results)

    return lower


def accuracy_decode(op: Any) -> dict[str, Any]:
    if "result_accuracy" not in op.attributes:
        return {}
    attr = stablehlo.ResultAccuracyAttr(op.attributes["result_accuracy"])
    if attr.mode == "TOLERANCE":
        return {"accuracy": Tolerance(atol=attr.atol, rtol=attr.rtol, ulps=attr.ulps)}
    return {"accuracy": AccuracyMode[attr.mode]}


def unary(opname: str, x: Any, accuracy: Any = None) -> Any:
    if accuracy is None:
        return bind(UNARY_OPS[opname][0], *_prepare(opname, x))
    if not isinstance(accuracy, (AccuracyMode, Tolerance)):
        raise TypeError(
            f"lax.{opname}: accuracy must be an AccuracyMode or a Tolerance, got {accuracy!r}"
        )
    return bind(UNARY_OPS[opname][0], *_prepare(opname, x), accuracy=accuracy)


def neg(x):
    """Elementwise negation (`stablehlo.negate`)."""
    return unary("neg", x)


def floor(x):
    """Elementwise floor (`stablehlo.floor`)."""
    return unary("floor", x)


def ceil(x):
    """Elementwise ceiling (`stablehlo.ceil`)."""
    return unary("ceil", x)


def is_finite(x):
    """True where x is neither infinite nor NaN (`stablehlo.is_finite`)."""
    return unary("is_finite", x)


def exp(x, accuracy=None):
    """Elementwise e**x (`stablehlo.exponential`)."""
    return unary("exp", x, accuracy)


def log(x, accuracy=None):
    """Elementwise natural logarithm (`stablehlo.log`)."""
    return unary("log", x, accuracy)


def log1p(x, accuracy=None):
    """Elementwise log(1 + x), accurate near zero (`stablehlo.log_plus_one`)."""
    return unary("log1p", x, accuracy)


def expm1(x, accuracy=None):
    """Elementwise e**x - 1, accurate near zero (`stablehlo.exponential_minus_one`)."""
    return unary("expm1", x, accuracy)


def tanh(x, accuracy=None):
    """Elementwise hyperbolic tangent (`stablehlo.tanh`)."""
    return unary("tanh", x, accuracy)


def logistic(x, accuracy=None):
    """Elementwise 1 / (1 + e**-x) (`stablehlo.logistic`)."""
    return unary("logistic", x, accuracy)


def sin(x, accuracy=None):
    """Elementwise sine (`stablehlo.sine`)."""
    return unary("sin", x, accuracy)


def cos(x, accuracy=None):
    """Elementwise cosine (`stablehlo.cosine`)."""
    return unary("cos", x, accuracy)


def tan(x, accuracy=None):
    """Elementwise tangent (`stablehlo.tan`)."""
    return unary("tan", x, accuracy)


def sqrt(x, accuracy=None):
    """Elementwise square root (`stablehlo.sqrt`)."""
    return unary("sqrt", x, accuracy)


def rsqrt(x, accuracy=None):
    """Elementwise 1 / sqrt(x) (`stablehlo.rsqrt`)."""
    return unary("rsqrt", x, accuracy)


def cbrt(x, accuracy=None):
    """Elementwise cube root (`stablehlo.cbrt`)."""
    return unary("cbrt", x, accuracy)


def abs(x):  # noqa: A001 (lax.abs is JAX's public name)
    """Elementwise absolute value; complex inputs give their real magnitude (`stablehlo.abs`)."""
    return unary("abs", x)


def bitwise_not(x):
    """Elementwise bitwise/logical NOT (`stablehlo.not`)."""
    return unary("bitwise_not", x)


not_ = bitwise_not


def population_count(x):
    """Number of set bits per element (`stablehlo.popcnt`)."""
    return unary("population_count", x)


def clz(x):
    """Number of leading zero bits per element (`stablehlo.count_leading_zeros`)."""
    return unary("clz", x)


def real(x):
    """Real part of a complex array (`stablehlo.real`)."""
    return unary("real", x)


def imag(x):
    """Imaginary part of a complex array (`stablehlo.imag`)."""
    return unary("imag", x)


def asin(x):
    """Elementwise arcsine (`chlo.asin`)."""
    return unary("asin", x)


def acos(x):
    """Elementwise arccosine (`chlo.acos`)."""
    return unary("acos", x)


def atan(x):
    """Elementwise arctangent (`chlo.atan`)."""
    return unary("atan", x)


def sinh(x):
    """Elementwise hyperbolic sine (`chlo.sinh`)."""
    return unary("sinh", x)


def cosh(x):
    """Elementwise hyperbolic cosine (`chlo.cosh`)."""
    return unary("cosh", x)


def asinh(x):
    """Elementwise inverse hyperbolic sine (`chlo.asinh`)."""
    return unary("asinh", x)


def acosh(x):
    """Elementwise inverse hyperbolic cosine (`chlo.acosh`)."""
    return unary("acosh", x)


def atanh(x):
    """Elementwise inverse hyperbolic tangent (`chlo.atanh`)."""
    return unary("atanh", x)


def erf(x):
    """Elementwise error function (`chlo.erf`)."""
    return unary("erf", x)


def erfc(x):
    """Elementwise complementary error function (`chlo.erfc`)."""
    return unary("erfc", x)


def erf_inv(x):
    """Elementwise inverse error function (`chlo.erf_inv`)."""
    return unary("erf_inv", x)


def lgamma(x):
    """Elementwise log of the absolute gamma function (`chlo.lgamma`)."""
    return unary("lgamma", x)


def digamma(x):
    """Elementwise digamma function (`chlo.digamma`)."""
    return unary("digamma", x)


def bessel_i1e(x):
    """Exponentially scaled modified Bessel function of order 1 (`chlo.bessel_i1e`)."""
    return unary("bessel_i1e", x)


def round(x, rounding_method: int = 0):  # noqa: A001 (lax.round is JAX's public name)
    """Rounds to the nearest integer: ties away from zero (0, default) or to even (1)."""
    if rounding_method not in (0, 1) or isinstance(rounding_method, (float, complex)):
        raise ValueError(
            f"lax.round: {rounding_method!r} is not a valid RoundingMethod (0: away from zero, "
            f"1: to nearest even){mlir.where_suffix()}"
        )
    op = "stablehlo.round_nearest_even" if rounding_method == 1 else "stablehlo.round_nearest_afz"
    return bind(op, *_prepare("round", x))


class RoundingMethod:
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


# sign's wrapper is in _elementwise.py.
__all__ = [*(name for name in UNARY_OPS if name != "sign"), "not_", "round", "RoundingMethod"]
