"""Op records for the elementwise family: unary math, binary ops, comparisons, select, clamp."""

from __future__ import annotations

import numpy as np
import scipy.special

from stablax import lax
from tests.op_record import (
    ALL,
    BF16,
    BOOL,
    C64,
    C128,
    F16,
    F32,
    F64,
    FLOATS,
    I8,
    I32,
    I64,
    INEXACT,
    INTS,
    NUMBERS,
    U8,
    U32,
    OpRecord,
    binary_shapes,
    greater_than_one,
    nonzero,
    positive,
    small_shift,
    standard,
    unary_shapes,
    unit_interval,
)


def _popcount(x):
    # NumPy counts the bits of |x| for signed integers; XLA counts the two's-complement bits.
    return np.bitwise_count(x.view(f"uint{x.dtype.itemsize * 8}")).astype(x.dtype)


def _clz(x):
    bits = x.dtype.itemsize * 8
    u = x.astype(f"uint{bits}").astype(np.uint64)
    out = np.full(x.shape, bits, np.int64)
    for b in range(bits):
        out = np.where(u >= np.uint64(1) << np.uint64(b), bits - b - 1, out)
    return out.astype(x.dtype)


def _bessel_argument(rng, shape, dtype):
    """Both signs, on both sides of |x| = 8, where i0e switches Chebyshev series."""
    return (rng.choice([-1.0, 1.0], shape) * rng.uniform(0.05, 20.0, shape)).astype(dtype)


def _c_div(x, y):
    if x.dtype.kind in "iu":
        q = np.abs(x.astype(np.int64)) // np.abs(y.astype(np.int64))
        return (q * np.sign(x.astype(np.int64)) * np.sign(y.astype(np.int64))).astype(x.dtype)
    return x / y


def _shift_right_logical(x, y):
    bits = x.dtype.itemsize * 8
    return np.right_shift(x.view(f"uint{bits}"), y.view(f"uint{bits}")).view(x.dtype)


def _round_afz(x):
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(x.dtype)


U = unary_shapes()
B = binary_shapes()
X64_FLOAT = (F64,)
X64_INEXACT = (F64, C128)

RECORDS = [
    OpRecord("neg", lax.neg, np.negative, U, NUMBERS, x64_dtypes=(F64, I64)),
    OpRecord("sign", lax.sign, np.sign, U, (F32, F16, I32, I8)),
    OpRecord("floor", lax.floor, np.floor, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("ceil", lax.ceil, np.ceil, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("round", lax.round, _round_afz, U, FLOATS, differentiable=False),
    OpRecord(
        "round_even",
        lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
        np.round,
        U,
        FLOATS,
        differentiable=False,
    ),
    OpRecord("is_finite", lax.is_finite, np.isfinite, U, FLOATS, exact=True, differentiable=False),
    OpRecord("exp", lax.exp, np.exp, U, INEXACT, x64_dtypes=X64_INEXACT),
    OpRecord("exp2", lax.exp2, np.exp2, U, FLOATS, tol=1e-4),
    OpRecord("log", lax.log, np.log, U, INEXACT, positive, x64_dtypes=X64_INEXACT),
    OpRecord("log1p", lax.log1p, np.log1p, U, FLOATS, positive, x64_dtypes=X64_FLOAT),
    OpRecord("expm1", lax.expm1, np.expm1, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("tanh", lax.tanh, np.tanh, U, INEXACT, x64_dtypes=X64_INEXACT),
    OpRecord(
        "logistic", lax.logistic, lambda x: 1 / (1 + np.exp(-x)), U, FLOATS, x64_dtypes=X64_FLOAT
    ),
    OpRecord("sin", lax.sin, np.sin, U, INEXACT, x64_dtypes=X64_INEXACT),
    OpRecord("cos", lax.cos, np.cos, U, INEXACT, x64_dtypes=X64_INEXACT),
    OpRecord("tan", lax.tan, np.tan, U, FLOATS, unit_interval, tol=1e-4, x64_dtypes=X64_FLOAT),
    OpRecord("sqrt", lax.sqrt, np.sqrt, U, INEXACT, positive, x64_dtypes=X64_INEXACT),
    OpRecord(
        "rsqrt",
        lax.rsqrt,
        lambda x: 1 / np.sqrt(x),
        U,
        FLOATS,
        positive,
        tol=1e-4,
        x64_dtypes=X64_FLOAT,
    ),
    OpRecord("cbrt", lax.cbrt, np.cbrt, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("abs", lax.abs, np.abs, U, (F32, F16, BF16, I32, I8, C64), x64_dtypes=(F64, I64)),
    OpRecord(
        "bitwise_not",
        lax.bitwise_not,
        np.invert,
        U,
        (*INTS, BOOL),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "population_count",
        lax.population_count,
        _popcount,
        U,
        INTS,
        exact=True,
        differentiable=False,
    ),
    OpRecord("clz", lax.clz, _clz, U, INTS, exact=True, differentiable=False),
    OpRecord("real", lax.real, np.real, U, (C64,), x64_dtypes=(C128,), linear=True),
    OpRecord("imag", lax.imag, np.imag, U, (C64,), x64_dtypes=(C128,), linear=True),
    # A real operand comes back complex, as in JAX.
    OpRecord(
        "conj", lax.conj, lambda x: np.conj(x.astype(np.complex64)), U, (C64, F32), linear=True
    ),
    OpRecord("asin", lax.asin, np.arcsin, U, FLOATS, unit_interval, x64_dtypes=X64_FLOAT),
    OpRecord("acos", lax.acos, np.arccos, U, FLOATS, unit_interval, x64_dtypes=X64_FLOAT),
    OpRecord("atan", lax.atan, np.arctan, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("sinh", lax.sinh, np.sinh, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("cosh", lax.cosh, np.cosh, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("asinh", lax.asinh, np.arcsinh, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("acosh", lax.acosh, np.arccosh, U, FLOATS, greater_than_one, x64_dtypes=X64_FLOAT),
    OpRecord("atanh", lax.atanh, np.arctanh, U, FLOATS, unit_interval, x64_dtypes=X64_FLOAT),
    OpRecord("erf", lax.erf, scipy.special.erf, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord("erfc", lax.erfc, scipy.special.erfc, U, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord(
        "erf_inv",
        lax.erf_inv,
        scipy.special.erfinv,
        U,
        (F32,),
        unit_interval,
        tol=1e-4,
        x64_dtypes=X64_FLOAT,
    ),
    OpRecord(
        "lgamma",
        lax.lgamma,
        scipy.special.gammaln,
        U,
        (F32,),
        positive,
        tol=1e-4,
        x64_dtypes=X64_FLOAT,
    ),
    OpRecord(
        "digamma",
        lax.digamma,
        scipy.special.digamma,
        U,
        (F32,),
        positive,
        tol=1e-4,
        x64_dtypes=X64_FLOAT,
    ),
    OpRecord(
        "bessel_i0e",
        lax.bessel_i0e,
        scipy.special.i0e,
        U,
        FLOATS,
        _bessel_argument,
        x64_dtypes=X64_FLOAT,
    ),
    OpRecord(
        "bessel_i1e",
        lax.bessel_i1e,
        scipy.special.i1e,
        U,
        (F32,),
        _bessel_argument,
        x64_dtypes=X64_FLOAT,
    ),
    OpRecord("square", lax.square, np.square, U, NUMBERS),
    OpRecord(
        "integer_pow_3",
        lambda x: lax.integer_pow(x, 3),
        lambda x: x**3,
        U,
        (F32, F16, I32, C64),
        tol=1e-4,
    ),
    OpRecord(
        "integer_pow_neg2",
        lambda x: lax.integer_pow(x, -2),
        lambda x: x**-2.0,
        U,
        (F32,),
        nonzero,
        tol=1e-4,
    ),
    # binary
    OpRecord("add", lax.add, np.add, B, ALL, x64_dtypes=(F64, I64, C128)),
    OpRecord("sub", lax.sub, np.subtract, B, NUMBERS, x64_dtypes=(F64, I64)),
    OpRecord("mul", lax.mul, np.multiply, B, ALL, x64_dtypes=(F64, I64)),
    OpRecord(
        "div",
        lax.div,
        _c_div,
        B,
        (F32, F16, I32, I8, U8, C64),
        (standard, nonzero),
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "rem", lax.rem, np.fmod, B, (F32, I32, I8, U8), (standard, nonzero), x64_dtypes=(F64, I64)
    ),
    OpRecord(
        "pow", lax.pow, np.power, B, (F32, C64), (positive, standard), tol=1e-4, x64_dtypes=(F64,)
    ),
    OpRecord("max", lax.max, np.maximum, B, (F32, F16, BF16, I32, U8, BOOL)),
    OpRecord("min", lax.min, np.minimum, B, (F32, F16, BF16, I32, U8, BOOL)),
    OpRecord("atan2", lax.atan2, np.arctan2, B, FLOATS, x64_dtypes=X64_FLOAT),
    OpRecord(
        "nextafter",
        lax.nextafter,
        np.nextafter,
        B,
        (F32,),
        exact=True,
        differentiable=False,
        x64_dtypes=X64_FLOAT,
    ),
    OpRecord(
        "bitwise_and",
        lax.bitwise_and,
        np.bitwise_and,
        B,
        (*INTS, BOOL),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "bitwise_or",
        lax.bitwise_or,
        np.bitwise_or,
        B,
        (*INTS, BOOL),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "bitwise_xor",
        lax.bitwise_xor,
        np.bitwise_xor,
        B,
        (*INTS, BOOL),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "shift_left",
        lax.shift_left,
        np.left_shift,
        B,
        (I32, U8, U32),
        (standard, small_shift),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "shift_right_arithmetic",
        lax.shift_right_arithmetic,
        np.right_shift,
        B,
        (I32, I8),
        (standard, small_shift),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "shift_right_logical",
        lax.shift_right_logical,
        _shift_right_logical,
        B,
        (I32, U8, U32),
        (standard, small_shift),
        exact=True,
        differentiable=False,
    ),
    OpRecord("complex", lax.complex, lambda x, y: x + 1j * y, B, (F32,), x64_dtypes=X64_FLOAT),
    *[
        OpRecord(
            name,
            getattr(lax, name),
            ref,
            B,
            (F32, F16, BF16, I32, U8, BOOL),
            exact=True,
            differentiable=False,
            x64_dtypes=(F64, I64),
        )
        for name, ref in [
            ("eq", np.equal),
            ("ne", np.not_equal),
            ("lt", np.less),
            ("le", np.less_equal),
            ("gt", np.greater),
            ("ge", np.greater_equal),
        ]
    ],
    OpRecord(
        "select",
        lambda p, x, y: lax.select(p, x, y),
        np.where,
        [((), (), ()), ((4,), (4,), (4,)), ((2, 3), (2, 3), (2, 3)), ((), (2, 3), (2, 3))],
        (F32, I32, BOOL, C64),
        arg_dtypes=lambda dt: (BOOL, dt, dt),
    ),
    OpRecord(
        "select_n_int",
        lambda i, a, b, c: lax.select_n(i, a, b, c),
        lambda i, a, b, c: np.choose(i, [a, b, c]),
        [((4,), (4,), (4,), (4,)), ((2, 3), (2, 3), (2, 3), (2, 3))],
        (F32, I32),
        (lambda rng, s, d: rng.integers(0, 3, s).astype(np.int32), standard, standard, standard),
        arg_dtypes=lambda dt: (I32, dt, dt, dt),
    ),
    OpRecord(
        "clamp",
        lax.clamp,
        lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
        [((), (5,), ()), ((2, 3), (2, 3), (2, 3))],
        (F32, I32, U8),
        (lambda rng, s, d: np.full(s, 1, d), standard, lambda rng, s, d: np.full(s, 5, d)),
    ),
    OpRecord(
        "convert_f32_to_i32",
        lambda x: lax.convert_element_type(x, np.int32),
        lambda x: x.astype(np.int32),
        U,
        (F32,),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "convert_i32_to_f32",
        lambda x: lax.convert_element_type(x, np.float32),
        lambda x: x.astype(np.float32),
        U,
        (I32,),
        exact=True,
    ),
    OpRecord(
        "convert_to_bool",
        lambda x: lax.convert_element_type(x, np.bool_),
        lambda x: x.astype(np.bool_),
        U,
        (F32, I32, U8),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "convert_f32_to_bf16",
        lambda x: lax.convert_element_type(x, FLOATS[2]),
        lambda x: x.astype(FLOATS[2]),
        U,
        (F32,),
        exact=True,
    ),
    OpRecord(
        "convert_c64_to_f32",
        lambda x: lax.convert_element_type(x, np.float32),
        lambda x: np.real(x).astype(np.float32),
        U,
        (C64,),
        exact=True,
    ),
    OpRecord(
        "bitcast_f32_i32",
        lambda x: lax.bitcast_convert_type(x, np.int32),
        lambda x: x.view(np.int32),
        U,
        (F32,),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "bitcast_u32_u8",
        lambda x: lax.bitcast_convert_type(x, np.uint8),
        lambda x: x.reshape(-1).view(np.uint8).reshape(*x.shape, 4),
        U,
        (U32,),
        exact=True,
        differentiable=False,
    ),
]
