"""The supported dtypes and the tables the dtype layer looks them up in: dtype groups, each
dtype's kind, and per x64 mode its canonical form, the default of each kind and of Python scalars.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

DTypeLike = Any  # np.dtype, a scalar type (np.float32, float, ...), a name ('float32') or None

# -- Supported dtypes ------------------------------------------------------------------------------

bfloat16 = ml_dtypes.bfloat16
float4_e2m1fn = ml_dtypes.float4_e2m1fn
float6_e2m3fn = ml_dtypes.float6_e2m3fn
float6_e3m2fn = ml_dtypes.float6_e3m2fn
float8_e3m4 = ml_dtypes.float8_e3m4
float8_e4m3 = ml_dtypes.float8_e4m3
float8_e4m3b11fnuz = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz = ml_dtypes.float8_e4m3fnuz
float8_e5m2 = ml_dtypes.float8_e5m2
float8_e5m2fnuz = ml_dtypes.float8_e5m2fnuz
float8_e8m0fnu = ml_dtypes.float8_e8m0fnu
int2, int4, uint2, uint4 = ml_dtypes.int2, ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.uint4

# JAX's tangent dtype for integer and boolean primals: a zero-size structured dtype.
float0 = np.dtype([("float0", np.void, 0)])

_d = np.dtype
BOOL = _d(bool)
I8, I16, I32, I64 = _d(np.int8), _d(np.int16), _d(np.int32), _d(np.int64)
U8, U16, U32, U64 = _d(np.uint8), _d(np.uint16), _d(np.uint32), _d(np.uint64)
BF16, F16, F32, F64 = _d(bfloat16), _d(np.float16), _d(np.float32), _d(np.float64)
C64, C128 = _d(np.complex64), _d(np.complex128)

# Narrow types never promote with each other: 2/4-bit integers only meet bool and weak ints,
# 4/6/8-bit floats also 8- to 64-bit integers and weak floats. int1/uint1 (JAX has them) are
# left out: StableHLO has no 1-bit integer tensors to lower them to.
NARROW_INTEGER_DTYPES = (_d(int2), _d(int4), _d(uint2), _d(uint4))
NARROW_FLOATING_DTYPES = tuple(
    _d(t)
    for t in (
        float4_e2m1fn,
        float6_e2m3fn,
        float6_e3m2fn,
        float8_e3m4,
        float8_e4m3,
        float8_e4m3b11fnuz,
        float8_e4m3fn,
        float8_e4m3fnuz,
        float8_e5m2,
        float8_e5m2fnuz,
        float8_e8m0fnu,
    )
)
SIGNED_INTEGER_DTYPES = (_d(int2), _d(int4), I8, I16, I32, I64)
UNSIGNED_INTEGER_DTYPES = (_d(uint2), _d(uint4), U8, U16, U32, U64)
INTEGER_DTYPES = SIGNED_INTEGER_DTYPES + UNSIGNED_INTEGER_DTYPES
FLOATING_DTYPES = (BF16, F16, F32, F64, *NARROW_FLOATING_DTYPES)
COMPLEX_DTYPES = (C64, C128)
INEXACT_DTYPES = FLOATING_DTYPES + COMPLEX_DTYPES
# Every dtype a stablax array may have (float0 aside), in a fixed order.
SUPPORTED_DTYPES = (BOOL, *INTEGER_DTYPES, *INEXACT_DTYPES)
SUPPORTED_DTYPE_SET = frozenset(SUPPORTED_DTYPES)
# The everyday dtypes, the ones op tests sweep over.
STANDARD_DTYPES = (BOOL, I8, I16, I32, I64, U8, U16, U32, U64)
STANDARD_DTYPES += (BF16, F16, F32, F64, C64, C128)

VALID_SET = SUPPORTED_DTYPE_SET | {float0}
KIND = {BOOL: "b"}
KIND.update({dt: "i" for dt in SIGNED_INTEGER_DTYPES})
KIND.update({dt: "u" for dt in UNSIGNED_INTEGER_DTYPES})
KIND.update({dt: "f" for dt in FLOATING_DTYPES})
KIND.update({dt: "c" for dt in COMPLEX_DTYPES})

# Tables below are pairs indexed by `config.x64_enabled` (False -> 0, True -> 1).
TO_32 = {I64: I32, U64: U32, F64: F32, C128: C64}
CANONICAL = ({dt: TO_32.get(dt, dt) for dt in VALID_SET}, {dt: dt for dt in VALID_SET})
DEFAULT = (
    {"b": BOOL, "i": I32, "u": U32, "f": F32, "c": C64},
    {"b": BOOL, "i": I64, "u": U64, "f": F64, "c": C128},
)
PY_SCALAR_TYPES = frozenset((bool, int, float, complex))
PY_KIND = {bool: "b", int: "i", float: "f", complex: "c"}
PY_DTYPE = tuple({t: table[k] for t, k in PY_KIND.items()} for table in DEFAULT)

# The most entries each per-x64-mode answer cache holds.
CACHE_LIMIT = 4096


def remember(cache: dict, key: Any, value: Any) -> None:
    """Stores an answer while `cache` holds fewer than CACHE_LIMIT; an unhashable key is skipped."""
    if len(cache) < CACHE_LIMIT:
        try:
            cache[key] = value
        except TypeError:
            pass


def scalar_base_dtype(t: type) -> np.dtype | None:
    # Subclasses of Python scalars (IntEnum, ...) count as their base type, uncanonicalized.
    for base in (bool, int, float, complex):
        if issubclass(t, base):
            return PY_DTYPE[1][base]
    return None
