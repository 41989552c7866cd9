"""The rest of NumPy's elementwise math (hypot, logaddexp, sinc, i0, gcd, ...), from lax (floats
taken apart, frexp and the like: _math_floats.py).

Each function is a `jit` of lax ops, so an eager call is one cached executable and
derivatives and batching come from the rules of the ops it is made of.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.dispatch import weak_scalar
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit as _eager
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import (
    check_out_none,
    promote_args,
    promote_args_inexact,
    promote_dtypes,
    promote_dtypes_inexact,
)
from stablax._src.numpy._ufuncs import where


def _reject_complex(name: str, *xs: Any, error: type = TypeError) -> None:
    if any(x.aval.dtype.kind == "c" for x in xs):
        raise error(f"jnp.{name} does not support complex-valued inputs{mlir.where_suffix()}")


def _is_floating(x: Any) -> bool:
    return dtypes.issubdtype(x.aval.dtype, np.floating)


def _to_default_float(x: Any) -> Any:
    """Integers and bools to the default float type, strongly typed (JAX drops weakness here)."""
    (x,) = promote_dtypes(x)
    if dtypes.issubdtype(x.aval.dtype, np.inexact):
        return lax.convert_element_type(x, x.aval.dtype)
    return lax.convert_element_type(x, dtypes.default_float_dtype())


def _const(x: Any, value: Any) -> Any:
    """`value` as a weak 0-d constant of x's dtype (Python floats do not combine with complex)."""
    return weak_scalar(value, x.aval.dtype)


def _with_weakness_of(out: Any, x: Any) -> Any:
    return lax.convert_element_type(out, out.aval.dtype, weak_type=x.aval.weak_type)


# --- sign, magnitude and classification ---------------------------------------------------------


@_eager
def fabs(x):
    """Elementwise |x| as a float (NumPy's `fabs`; complex is rejected)."""
    (x,) = promote_args_inexact("fabs", x)
    _reject_complex("fabs", x)
    return lax.abs(x)


@_eager
def signbit(x):
    """Whether the sign bit is set (true for -0.0 and negative NaNs too)."""
    (x,) = promote_dtypes(x)
    dtype = x.aval.dtype
    if dtype.kind == "c":
        raise ValueError(f"jnp.signbit is not well defined for complex inputs{mlir.where_suffix()}")
    if dtype == np.bool_ or dtypes.issubdtype(dtype, np.unsignedinteger):  # uint4's kind is V
        return lax.full_like(x, False, dtype=np.bool_)
    if dtypes.issubdtype(dtype, np.signedinteger):
        return lax.lt(x, lax.full_like(x, 0, dtype=x.aval.dtype))  # strongly typed, as JAX
    return division.sign_bit(x)


@_eager
def copysign(x1, x2):
    """|x1| with the sign of x2 (its sign bit, so -0.0 counts as negative)."""
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    _reject_complex("copysign", x1)
    magnitude = lax.abs(x1)
    return lax.select(division.sign_bit(x2), lax.neg(magnitude), magnitude)


@_eager
def heaviside(x1, x2):
    """Step function: 0 for x1 < 0, x2 where x1 == 0, 1 for x1 > 0 (NaN stays NaN)."""
    scalar_x1 = np.ndim(x1) == 0  # its rank before broadcasting
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    _reject_complex("heaviside", x1)
    step = lax.select(lax.gt(x1, 0.0), lax.full_like(x1, 1), lax.select(lax.eq(x1, 0.0), x2, x1))
    out = lax.select(lax.lt(x1, 0.0), lax.full_like(x1, 0), step)
    # JAX's 0 and 1 are weak only beside a weak 0-d x1: a weak x1 of any other rank (integers
    # promoted by a Python float) gives a strong result.
    if out.aval.weak_type and not scalar_x1:
        out = lax.convert_element_type(out, out.aval.dtype, weak_type=False)
    return out


def _inf_test(sign: float, name: str):
    def fn(x):
        (x,) = promote_dtypes(x)
        _reject_complex(name, x, error=ValueError)
        if not _is_floating(x):
            return lax.full_like(x, False, dtype=np.bool_)
        return lax.eq(x, lax.full_like(x, sign * np.inf, dtype=x.aval.dtype))  # strong

    fn.__name__ = name
    return _eager(fn)


_isposinf = _inf_test(1.0, "isposinf")
_isneginf = _inf_test(-1.0, "isneginf")


def isposinf(x: Any, /, out: None = None) -> Any:
    """Elementwise x == +inf (False for integers); `out` (NumPy's) must be None."""
    check_out_none("isneginf/isposinf", out)
    return _isposinf(x)


def isneginf(x: Any, /, out: None = None) -> Any:
    """Elementwise x == -inf (False for integers); `out` (NumPy's) must be None."""
    check_out_none("isneginf/isposinf", out)
    return _isneginf(x)


def _imag_test(x: Any, compare: Any, real_answer: bool) -> Any:
    """compare(imag(x), 0) elementwise; for real dtypes, `real_answer` (as weak as x)."""
    (x,) = promote_dtypes(x)
    if x.aval.dtype.kind != "c":
        return _with_weakness_of(lax.full_like(x, real_answer, dtype=np.bool_), x)
    return compare(lax.imag(x), 0.0)


@_eager
def isreal(x):
    """Elementwise imag(x) == 0 (always true for real dtypes)."""
    return _imag_test(x, lax.eq, True)


@_eager
def iscomplex(x):
    """Elementwise imag(x) != 0 (always false for real dtypes)."""
    return _imag_test(x, lax.ne, False)


def angle(z: Any, deg: bool = False) -> Any:
    """Argument of complex numbers, atan2(imag, real); in degrees if `deg`."""
    return _angle(z, deg=deg)


def _angle_impl(z, deg):
    # JAX keeps a weak type only for a weak complex input (a Python complex).
    weak = dtypes.is_weakly_typed(z) and dtypes.dtype_of(z).kind == "c"
    z = _to_default_float(z)
    if z.aval.ndim == 0 and _is_floating(z):  # JAX: a real 0-d input gives the default float
        z = lax.convert_element_type(z, dtypes.default_float_dtype())
    re, im = (lax.real(z), lax.imag(z)) if z.aval.dtype.kind == "c" else (z, lax.full_like(z, 0))
    out = lax.atan2(im, re)
    out = lax.mul(out, _const(out, 180 / math.pi)) if deg else out
    return lax.convert_element_type(out, out.aval.dtype, weak_type=weak)


_angle = _eager(_angle_impl, static_argnames="deg")


@_eager
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN by `nan` and +-inf by `posinf`/`neginf` (default: the dtype's extremes)."""
    del copy
    (x,) = promote_dtypes(x)
    if x.aval.dtype.kind == "c":
        re = nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    if not _is_floating(x):
        return x
    info = dtypes.finfo(x.aval.dtype)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf

    def fill(value):  # a scalar or an array-like (NumPy's nan=[5.0]), broadcast by `where`
        if value is None:  # JAX's class (its asarray of None)
            raise ValueError(
                f"jnp.nan_to_num: fill values must be numbers or arrays, got None"
                f"{mlir.where_suffix()}"
            )
        return lax.convert_element_type(asarray(value), x.aval.dtype)

    x = where(lax.ne(x, x), fill(nan), x)
    x = where(lax.eq(x, lax.full_like(x, np.inf)), fill(posinf), x)
    return where(lax.eq(x, lax.full_like(x, -np.inf)), fill(neginf), x)


# --- exponentials and special functions ----------------------------------------------------------


@_eager
def hypot(x1, x2):
    """sqrt(x1**2 + x2**2) without overflow or underflow; inf if either is infinite."""
    x1, x2 = promote_dtypes_inexact(x1, x2)
    _reject_complex("hypot", x1, error=ValueError)  # before the shapes, as JAX
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    # As JAX: the legs' promoted weak type, kept only for a rank-0 result (JAX's last select
    # takes a strong rank-0 inf, which makes a broadcast result strong): an int32 scalar leg
    # with a Python float (as under vmap) is weak, an int32 vector with one is not.
    weak = dtypes.is_weakly_typed(x1) and x1.aval.ndim == 0
    a, b = lax.abs(x1), lax.abs(x2)
    big, small = lax.max(a, b), lax.min(a, b)
    safe_big = lax.select(lax.eq(big, 0.0), lax.full_like(big, 1), big)
    ratio = lax.div(small, safe_big)
    out = lax.select(
        lax.eq(big, 0.0), big, lax.mul(big, lax.sqrt(lax.add(lax.mul(ratio, ratio), 1.0)))
    )
    # inf where either leg is, even when the other is NaN (C99's hypot, as JAX and NumPy)
    infinite = lax.bitwise_or(lax.eq(a, np.inf), lax.eq(b, np.inf))
    out = lax.select(infinite, lax.full_like(big, np.inf), out)
    return lax.convert_element_type(out, out.aval.dtype, weak_type=weak)


def _logaddexp_impl(x1: Any, x2: Any, log1p_of_exp, period: float = 2 * math.pi) -> Any:
    if x1.aval.dtype.kind == "c":
        big = lax.select(lax.gt(lax.real(x1), lax.real(x2)), x1, x2)
        other = lax.sub(lax.add(x1, x2), big)
        out = lax.add(big, log1p_of_exp(lax.sub(other, big)))
        # The imaginary part on the principal branch, (-period/2, period/2], as JAX.
        half = _const(lax.imag(out), period / 2)
        imag = lax.sub(
            lax.imag(out),
            lax.mul(
                division.floor_divide(lax.add(lax.imag(out), half), _const(half, period)),
                _const(half, period),
            ),
        )
        out = lax.complex(lax.real(out), imag)
        # JAX's constants here are weak only for 0-d operands: a weak array gives a strong result.
        weak = out.aval.weak_type and x1.aval.ndim == 0
        return lax.convert_element_type(out, out.aval.dtype, weak_type=weak)
    big = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    stable = lax.add(big, log1p_of_exp(lax.neg(lax.abs(delta))))
    # Equal infinities give delta = nan; x1 + x2 is then the right answer (inf or -inf).
    return lax.select(lax.ne(delta, delta), lax.add(x1, x2), stable)


def _replace_inf(x: Any) -> Any:
    # +inf (in the real part) -> 0, so that exp(x - out) is exp(0) = 1 when both are +inf.
    real = lax.real(x) if x.aval.dtype.kind == "c" else x
    return lax.select(lax.eq(real, np.inf), lax.full_like(x, 0), x)


def _logaddexp_base_e(x1, x2):
    return _logaddexp_impl(x1, x2, lambda d: lax.log1p(lax.exp(d)))


def _logaddexp_base_2(x1, x2):
    # JAX's constant is weak only for a weak 0-d operand: otherwise the result is strong.
    weak = x1.aval.ndim == 0 and dtypes.is_weakly_typed(x1)
    ln2 = weak_scalar(math.log(2), x1.aval.dtype, weak_type=weak)
    return _logaddexp_impl(
        x1,
        x2,
        lambda d: lax.div(lax.log1p(lax.exp(lax.mul(d, ln2))), ln2),
        2 * math.pi / math.log(2),
    )


def _logaddexp_rule(impl, exp):
    # JAX's custom derivative: t1 exp(x1 - out) + t2 exp(x2 - out), in the function's base.
    def jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = impl(x1, x2)
        safe_out = _replace_inf(out)
        scale1 = exp(lax.sub(_replace_inf(x1), safe_out))
        scale2 = exp(lax.sub(_replace_inf(x2), safe_out))
        return out, lax.add(lax.mul(t1, scale1), lax.mul(t2, scale2))

    return jvp


_logaddexp_e = custom_jvp(_logaddexp_base_e)
_logaddexp_e.defjvp(_logaddexp_rule(_logaddexp_base_e, lax.exp))
_logaddexp_2 = custom_jvp(_logaddexp_base_2)
_logaddexp_2.defjvp(_logaddexp_rule(_logaddexp_base_2, lax.exp2))


@_eager
def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow (with JAX's custom derivative)."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return _logaddexp_e(x1, x2)


@_eager
def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2) without overflow (with JAX's custom derivative)."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return _logaddexp_2(x1, x2)


def _angle_scale(factor: float, name: str):
    def fn(x):
        (x,) = promote_args_inexact(name, x)
        return lax.mul(x, _const(x, factor))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise x * {factor!r} (NumPy's `{name}`)."
    return _eager(fn)


deg2rad = radians = _angle_scale(math.pi / 180, "deg2rad")
rad2deg = degrees = _angle_scale(180 / math.pi, "rad2deg")


@_eager
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0; derivatives at 0 come from the Taylor series there."""
    (x,) = promote_args_inexact("sinc", x)
    zero = lax.eq(x, lax.full_like(x, 0))
    pi = _const(x, math.pi)
    safe = lax.mul(lax.select(zero, lax.full_like(x, 1), x), pi)
    pix = lax.mul(x, pi)
    pix2 = lax.mul(pix, pix)
    taylor = lax.mul(pix2, lax.add(lax.mul(pix2, _const(x, 1 / 120)), _const(x, -1 / 6)))
    taylor = lax.add(taylor, lax.full_like(x, 1))
    return lax.select(zero, taylor, lax.div(lax.sin(safe), safe))


# I0 switches from its power series to its asymptotic expansion at |x| = 15: both are accurate
# to double precision there with the term counts below.
_I0_SERIES = [1 / math.factorial(k) ** 2 for k in range(36)]
_I0_ASYMPTOTIC = [
    math.prod((2 * j - 1) ** 2 for j in range(1, k + 1)) / (math.factorial(k) * 8**k)
    for k in range(16)
]


def _horner(coefficients: list[float], t: Any) -> Any:
    out = lax.full_like(t, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        out = lax.add(lax.mul(out, t), float(c))
    return out


@_eager
def i0(x):
    """Modified Bessel function of the first kind, order 0."""
    (x,) = promote_args_inexact("i0", x)
    if x.aval.dtype.kind == "c":
        raise ValueError(f"jnp.i0: unsupported complex input{mlir.where_suffix()}")
    dt = x.aval.dtype
    # Compute in float32 at least: float16's range overflows inside the series.
    wide = np.dtype(np.float32) if dt.itemsize < 4 else dt
    xw = lax.convert_element_type(x, wide)
    terms = 24 if wide == np.float32 else len(_I0_SERIES)
    series = _horner(_I0_SERIES[:terms], lax.mul(lax.mul(xw, xw), 0.25))
    large = lax.gt(lax.abs(xw), 15.0)
    ax = lax.select(large, lax.abs(xw), lax.full_like(xw, 16.0))
    tail = _horner(_I0_ASYMPTOTIC, lax.div(lax.full_like(ax, 1), ax))
    asymptotic = lax.mul(lax.div(lax.exp(ax), lax.sqrt(lax.mul(ax, 2 * math.pi))), tail)
    out = lax.select(large, asymptotic, series)
    return lax.convert_element_type(out, dt, weak_type=x.aval.weak_type)


@_eager
def float_power(x1, x2):
    """x1 ** x2 computed in floating point (NumPy's `float_power`)."""
    return lax.pow(*promote_args_inexact("float_power", x1, x2))


def _nan_ignoring(lax_fn, wins, name: str):
    def fn(x1, x2):
        x1, x2 = promote_args(name, x1, x2)
        if x1.aval.dtype.kind == "c":  # ordered lexicographically by lax.max/min
            out = lax_fn(x1, x2)
            out = lax.select(lax.ne(x2, x2), x1, out)
            return lax.select(lax.ne(x1, x1), x2, out)
        # As JAX: x1 where it wins or x2 is NaN, else x2, so a tie (and its gradient) goes
        # to x2.
        return lax.select(lax.bitwise_or(wins(x1, x2), lax.ne(x2, x2)), x1, x2)

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name[1:]} that ignores a NaN when the other value is not NaN."
    return _eager(fn)


fmax = _nan_ignoring(lax.max, lax.gt, "fmax")
fmin = _nan_ignoring(lax.min, lax.lt, "fmin")


# --- integers ------------------------------------------------------------------------------------


def _integer_args(name: str, x1: Any, x2: Any) -> list[Any]:
    # The dtypes first, then the shapes: JAX's order (and class) of errors.
    # int4 and uint4 (ml_dtypes, kind "V") are integers too, as in JAX.
    if not dtypes.issubdtype(promote_dtypes(x1, x2)[0].aval.dtype, np.integer):
        raise ValueError(f"jnp.{name}: arguments must be integers{mlir.where_suffix()}")
    return promote_args(name, x1, x2)


def _int_abs(x: Any) -> Any:
    return lax.abs(x) if dtypes.issubdtype(x.aval.dtype, np.signedinteger) else x


def _gcd_abs(a: Any, b: Any) -> Any:
    """Euclid's algorithm in a while loop until every remainder is 0, as JAX's. Unrolled to
    its worst case, the chain of selects sent XLA's algebraic simplifier round in circles
    ("stuck in a circular simplification loop") when one operand was a constant."""

    def any_remainder(state):
        nonzero = lax.ne(state[1], lax.full_like(state[1], 0))
        return lax.reduce_or(nonzero, tuple(range(nonzero.aval.ndim)))

    def step(state):
        a, b = state
        zero = lax.full_like(b, 0)
        nonzero = lax.ne(b, zero)
        remainder = lax.rem(a, lax.select(nonzero, b, lax.full_like(b, 1)))
        return lax.select(nonzero, b, a), lax.select(nonzero, remainder, zero)

    return lax.while_loop(any_remainder, step, (a, b))[0]


@_eager
def gcd(x1, x2):
    """Greatest common divisor of |x1| and |x2| (0 when both are 0)."""
    x1, x2 = _integer_args("gcd", x1, x2)
    return _gcd_abs(_int_abs(x1), _int_abs(x2))


@_eager
def lcm(x1, x2):
    """Least common multiple of |x1| and |x2| (0 when either is 0)."""
    x1, x2 = _integer_args("lcm", x1, x2)
    a, b = _int_abs(x1), _int_abs(x2)
    divisor = _gcd_abs(a, b)
    zero = lax.eq(divisor, lax.full_like(divisor, 0))
    safe = lax.select(zero, lax.full_like(divisor, 1), divisor)
    return lax.select(zero, lax.full_like(a, 0), lax.mul(a, lax.div(b, safe)))


@_eager
def bitwise_count(x):
    """Number of set bits of |x|, as uint8 (NumPy's `bitwise_count`)."""
    (x,) = promote_dtypes(x)
    if x.aval.dtype.kind not in "biu":
        raise TypeError(
            f"jnp.bitwise_count: only integer and bool inputs, got {x.aval.dtype.name}"
            f"{mlir.where_suffix()}"
        )
    magnitude = lax.abs(x) if x.aval.dtype.kind == "i" else x
    if x.aval.dtype == np.bool_:
        magnitude = lax.convert_element_type(x, np.uint8)
    return lax.convert_element_type(lax.population_count(magnitude), np.uint8)


__all__ = [
    "fabs",
    "signbit",
    "copysign",
    "heaviside",
    "isposinf",
    "isneginf",
    "isreal",
    "iscomplex",
    "angle",
    "nan_to_num",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "deg2rad",
    "radians",
    "rad2deg",
    "degrees",
    "sinc",
    "i0",
    "float_power",
    "fmax",
    "fmin",
    "gcd",
    "lcm",
    "bitwise_count",
]
