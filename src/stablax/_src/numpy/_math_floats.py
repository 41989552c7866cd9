"""Floats taken apart and put together: rint, modf (fractional and integral parts), frexp and
ldexp (mantissa and exponent, through the bits), spacing (the gap to the neighbouring float)."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy import _ufuncs
from stablax._src.numpy._math_ufuncs import _reject_complex, copysign
from stablax._src.numpy._promotion import (
    check_arraylike,
    check_out_none,
    promote_args_inexact,
    promote_args_shapes_only,
    promote_dtypes,
)


@_eager
def rint(x):
    """Rounds to the nearest integer, ties to even; integers become floats."""
    (x,) = promote_dtypes(x)
    if not dtypes.issubdtype(x.aval.dtype, np.inexact):
        x = lax.convert_element_type(x, dtypes.default_float_dtype())
    if x.aval.dtype.kind == "c":
        rounded = [lax.round(p, lax.RoundingMethod.TO_NEAREST_EVEN) for p in (x.real, x.imag)]
        return lax.complex(*rounded)
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
    """(fractional part, integral part), both with the sign of x; modf(+-inf) = (+-0, +-inf).

    `out` is NumPy's output argument: only None is accepted, as JAX.
    """
    check_out_none("jnp.modf", out)
    return _modf(x)


@_eager
def _modf(x):
    (x,) = promote_args_inexact("modf", x)
    _reject_complex("modf", x)
    whole = _ufuncs.trunc(x)
    frac = lax.select(lax.eq(lax.abs(x), np.inf), lax.full_like(x, 0), lax.sub(x, whole))
    return copysign(frac, x), whole


def _float_layout(dtype: np.dtype) -> tuple[int, int, np.dtype]:
    """(mantissa bits, exponent bias, same-width integer dtype) of a floating dtype."""
    info = dtypes.finfo(dtype)
    bits = dtypes.itemsize_bits(dtype)
    return int(info.nmant), int(info.maxexp) - 1, np.dtype(f"int{bits}")


@_eager
def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1."""
    (x,) = promote_args_inexact("frexp", x)
    _reject_complex("frexp", x)
    dt = x.aval.dtype
    nmant, bias, int_dt = _float_layout(dt)
    exp_mask = (1 << (dtypes.itemsize_bits(dt) - 1 - nmant)) - 1

    def exponent_field(bits):
        field = lax.shift_right_logical(bits, np.asarray(nmant, int_dt))
        return lax.bitwise_and(field, np.asarray(exp_mask, int_dt))

    # A subnormal is its mantissa bits times 2**(1 - bias - nmant): read those bits as an integer
    # (exact in dt), so backends that flush subnormals to zero in arithmetic still see them.
    bits = lax.bitcast_convert_type(x, int_dt)
    fraction = lax.bitwise_and(bits, np.asarray((1 << nmant) - 1, int_dt))
    subnormal = lax.eq(exponent_field(bits), np.asarray(0, int_dt))
    as_normal = copysign(lax.convert_element_type(fraction, dt), x)
    bits = lax.select(subnormal, lax.bitcast_convert_type(as_normal, int_dt), bits)
    exponent = lax.sub(exponent_field(bits), np.asarray(bias - 1, int_dt))
    shift = np.asarray(1 - bias - nmant, int_dt)
    exponent = lax.select(subnormal, lax.add(exponent, shift), exponent)
    cleared = lax.bitwise_and(bits, np.asarray(~(exp_mask << nmant), int_dt))
    mantissa_bits = lax.bitwise_or(cleared, np.asarray((bias - 1) << nmant, int_dt))
    mantissa = lax.bitcast_convert_type(mantissa_bits, dt)
    is_zero = lax.eq(
        lax.bitwise_and(
            lax.bitcast_convert_type(x, int_dt),
            np.asarray((1 << (dtypes.itemsize_bits(dt) - 1)) - 1, int_dt),
        ),
        np.asarray(0, int_dt),
    )
    special = lax.bitwise_or(is_zero, lax.bitwise_not(lax.is_finite(x)))
    # The bits carry no derivative: add d(mantissa)/dx = 2**-exponent as a term that is exactly
    # zero in value, as JAX's mantissa x / 2**exponent has it (none for subnormals, whose scale
    # would overflow).
    scale = lax.exp2(lax.neg(lax.convert_element_type(exponent, dt)))
    scale = lax.select(lax.bitwise_or(subnormal, special), lax.full_like(scale, 0), scale)
    mantissa = lax.add(mantissa, lax.mul(lax.sub(x, lax.stop_gradient(x)), scale))
    mantissa = lax.select(special, x, mantissa)
    exponent = lax.select(special, lax.full_like(exponent, 0), exponent)
    return mantissa, lax.convert_element_type(exponent, np.int32)


def _exact_pow2(k: Any, dt: np.dtype) -> Any:
    """2**k as dtype `dt`, built from its bits; k must lie in the normal exponent range."""
    nmant, bias, int_dt = _float_layout(dt)
    field = lax.add(lax.convert_element_type(k, int_dt), np.asarray(bias, int_dt))
    return lax.bitcast_convert_type(lax.shift_left(field, np.asarray(nmant, int_dt)), dt)


@_eager
def ldexp(x1, x2):
    """x1 * 2**x2 for an integer x2, without overflowing an intermediate power of two."""
    check_arraylike("ldexp", x1, x2)  # JAX's first check
    x2_dtype = dtypes.dtype_of(x2)
    if not (dtypes.issubdtype(x2_dtype, np.integer) or x2_dtype == np.bool_):
        raise ValueError(
            f"jnp.ldexp: the exponent x2 must be an integer, got {np.dtype(x2_dtype).name}"
            f"{mlir.where_suffix()}"
        )
    (x1,) = promote_args_inexact("ldexp", x1)
    _reject_complex("ldexp", x1, error=ValueError)
    _, bias, _ = _float_layout(x1.aval.dtype)
    limit = 3 * (bias - 1)  # three factors, each a normal power of two, cover every exponent
    x2 = lax.convert_element_type(x2, x2_dtype)
    if x2_dtype != np.bool_:  # clamped in its own type: a wide count must not wrap in int32
        info = dtypes.iinfo(x2_dtype)
        low, high = max(-limit, int(info.min)), min(limit, int(info.max))
        x2 = lax.clamp(np.asarray(low, x2_dtype), x2, np.asarray(high, x2_dtype))
    x1, x2 = promote_args_shapes_only("ldexp", x1, lax.convert_element_type(x2, np.int32))
    # Opaque to XLA: with a constant x2 it would fold the three factors into one power of two,
    # which overflows (0 * inf is NaN) or underflows where the stepwise product does not.
    n = lax.optimization_barrier(x2)
    first = lax.div(n, np.int32(3))
    second = lax.div(lax.sub(n, first), np.int32(2))
    third = lax.sub(lax.sub(n, first), second)
    out = x1
    for part in (first, second, third):
        out = lax.mul(out, _exact_pow2(part, x1.aval.dtype))
    return out


@_eager
def spacing(x):
    """Distance from x to its nearest neighbour away from zero (negative for negative x; float16
    steps up, as NumPy)."""
    (x,) = promote_args_inexact("spacing", x)
    x = lax.convert_element_type(x, x.aval.dtype)  # strongly typed, as in JAX
    _reject_complex("spacing", x, error=ValueError)
    dtype = x.aval.dtype
    # Types without infinity (float8_e4m3fn, ...) step towards their largest value instead.
    has_inf = bool(np.isinf(np.array(np.inf).astype(dtype)))
    far = np.inf if has_inf else dtypes.finfo(dtype).max
    if dtype == np.float16:
        # NumPy's (and JAX's) float16 spacing steps towards +inf for every x; -inf stays NaN.
        neighbour = lax.nextafter(x, lax.full_like(x, far))
        out = lax.select(lax.eq(x, 0.0), neighbour, lax.sub(neighbour, x))
        return lax.select(lax.eq(x, -far), lax.full_like(x, np.nan), out)
    away = lax.select(lax.lt(x, 0.0), lax.full_like(x, -far), lax.full_like(x, far))
    neighbour = lax.nextafter(x, away)
    # At zero the neighbour is the spacing itself (subtracting would flush it on some backends).
    out = lax.select(lax.eq(x, 0.0), neighbour, lax.sub(neighbour, x))
    if has_inf:
        return out
    # Past the largest value is NaN there, as in ml_dtypes' np.spacing.
    return lax.select(lax.eq(lax.abs(x), lax.full_like(x, far)), lax.full_like(x, np.nan), out)


__all__ = [
    "rint",
    "modf",
    "frexp",
    "ldexp",
    "spacing",
]
