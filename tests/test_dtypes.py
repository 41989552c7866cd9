"""Tests for the dtype layer: JAX's promotion tables, weak types, canonicalization, helpers.

The tables below were generated once with JAX 0.10.2 (`jax.dtypes.result_type(a, b,
return_weak_type_flag=True)` and `jax.numpy.promote_types(a, b)`, under JAX_ENABLE_X64=0 and 1)
and pasted here as data; JAX itself is never imported.

Cell codes: dtype names shortened (int8 -> i8, uint16 -> u16, float32 -> f32, bfloat16 -> bf16,
complex64 -> c64, float8_e5m2 -> e5m2, float4_e2m1fn -> f4_e2m1fn); `*` marks a weakly typed
result; `!` a TypePromotionError, `V` another ValueError, `T` a TypeError. Labels I, F, C are
the weak Python types int, float, complex; W(x) is an array of dtype x with weak_type=True.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import itertools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax.dtypes as public_dtypes
import stablax.numpy as jnp
from stablax._src import dtypes
from stablax._src.config import config

# -- Data generated from JAX 0.10.2 ---------------------------------------------------------------

RESULT_TYPE_X32 = """
bool: bool i2 i4 i8 i16 i32 i32 u2 u4 u8 u16 u32 u32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn
    f6_e3m2fn e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 i32* f32* c64*
i2: i2 i2 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! i2 ! !
i4: i4 ! i4 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! i4 ! !
i8: i8 ! ! i8 i16 i32 i32 ! ! i16 i32 i32 i32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 i8 f32* c64*
i16: i16 ! ! i16 i16 i32 i32 ! ! i16 i32 i32 i32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 i16 f32* c64*
i32: i32 ! ! i32 i32 i32 i32 ! ! i32 i32 i32 i32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 i32 f32* c64*
i64: i32 ! ! i32 i32 i32 i32 ! ! i32 i32 i32 i32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 i32 f32* c64*
u2: u2 ! ! ! ! ! ! u2 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! u2 ! !
u4: u4 ! ! ! ! ! ! ! u4 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! u4 ! !
u8: u8 ! ! i16 i16 i32 i32 ! ! u8 u16 u32 u32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 u8 f32* c64*
u16: u16 ! ! i32 i32 i32 i32 ! ! u16 u16 u32 u32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 u16 f32* c64*
u32: u32 ! ! i32 i32 i32 i32 ! ! u32 u32 u32 u32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 u32 f32* c64*
u64: u32 ! ! i32 i32 i32 i32 ! ! u32 u32 u32 u32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 u32 f32* c64*
bf16: bf16 ! ! bf16 bf16 bf16 bf16 ! ! bf16 bf16 bf16 bf16 bf16 f32 f32 f32 ! ! ! ! ! ! ! ! ! !
    ! c64 c64 bf16 bf16 c64
f16: f16 ! ! f16 f16 f16 f16 ! ! f16 f16 f16 f16 f32 f16 f32 f32 ! ! ! ! ! ! ! ! ! ! ! c64 c64
    f16 f16 c64
f32: f32 ! ! f32 f32 f32 f32 ! ! f32 f32 f32 f32 f32 f32 f32 f32 ! ! ! ! ! ! ! ! ! ! ! c64 c64
    f32 f32 c64
f64: f32 ! ! f32 f32 f32 f32 ! ! f32 f32 f32 f32 f32 f32 f32 f32 ! ! ! ! ! ! ! ! ! ! ! c64 c64
    f32 f32 c64
f4_e2m1fn: f4_e2m1fn ! ! f4_e2m1fn f4_e2m1fn f4_e2m1fn f4_e2m1fn ! ! f4_e2m1fn f4_e2m1fn
    f4_e2m1fn f4_e2m1fn ! ! ! ! f4_e2m1fn ! ! ! ! ! ! ! ! ! ! ! ! f4_e2m1fn f4_e2m1fn !
f6_e2m3fn: f6_e2m3fn ! ! f6_e2m3fn f6_e2m3fn f6_e2m3fn f6_e2m3fn ! ! f6_e2m3fn f6_e2m3fn
    f6_e2m3fn f6_e2m3fn ! ! ! ! ! f6_e2m3fn ! ! ! ! ! ! ! ! ! ! ! f6_e2m3fn f6_e2m3fn !
f6_e3m2fn: f6_e3m2fn ! ! f6_e3m2fn f6_e3m2fn f6_e3m2fn f6_e3m2fn ! ! f6_e3m2fn f6_e3m2fn
    f6_e3m2fn f6_e3m2fn ! ! ! ! ! ! f6_e3m2fn ! ! ! ! ! ! ! ! ! ! f6_e3m2fn f6_e3m2fn !
e3m4: e3m4 ! ! e3m4 e3m4 e3m4 e3m4 ! ! e3m4 e3m4 e3m4 e3m4 ! ! ! ! ! ! ! e3m4 ! ! ! ! ! ! ! ! !
    e3m4 e3m4 !
e4m3: e4m3 ! ! e4m3 e4m3 e4m3 e4m3 ! ! e4m3 e4m3 e4m3 e4m3 ! ! ! ! ! ! ! ! e4m3 ! ! ! ! ! ! ! !
    e4m3 e4m3 !
e4m3b11fnuz: e4m3b11fnuz ! ! e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz ! ! e4m3b11fnuz
    e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz ! ! ! ! ! ! ! ! ! e4m3b11fnuz ! ! ! ! ! ! ! e4m3b11fnuz
    e4m3b11fnuz !
e4m3fn: e4m3fn ! ! e4m3fn e4m3fn e4m3fn e4m3fn ! ! e4m3fn e4m3fn e4m3fn e4m3fn ! ! ! ! ! ! ! ! !
    ! e4m3fn ! ! ! ! ! ! e4m3fn e4m3fn !
e4m3fnuz: e4m3fnuz ! ! e4m3fnuz e4m3fnuz e4m3fnuz e4m3fnuz ! ! e4m3fnuz e4m3fnuz e4m3fnuz
    e4m3fnuz ! ! ! ! ! ! ! ! ! ! ! e4m3fnuz ! ! ! ! ! e4m3fnuz e4m3fnuz !
e5m2: e5m2 ! ! e5m2 e5m2 e5m2 e5m2 ! ! e5m2 e5m2 e5m2 e5m2 ! ! ! ! ! ! ! ! ! ! ! ! e5m2 ! ! ! !
    e5m2 e5m2 !
e5m2fnuz: e5m2fnuz ! ! e5m2fnuz e5m2fnuz e5m2fnuz e5m2fnuz ! ! e5m2fnuz e5m2fnuz e5m2fnuz
    e5m2fnuz ! ! ! ! ! ! ! ! ! ! ! ! ! e5m2fnuz ! ! ! e5m2fnuz e5m2fnuz !
e8m0fnu: e8m0fnu ! ! e8m0fnu e8m0fnu e8m0fnu e8m0fnu ! ! e8m0fnu e8m0fnu e8m0fnu e8m0fnu ! ! ! !
    ! ! ! ! ! ! ! ! ! ! e8m0fnu ! ! e8m0fnu e8m0fnu !
c64: c64 ! ! c64 c64 c64 c64 ! ! c64 c64 c64 c64 c64 c64 c64 c64 ! ! ! ! ! ! ! ! ! ! ! c64 c64
    c64 c64 c64
c128: c64 ! ! c64 c64 c64 c64 ! ! c64 c64 c64 c64 c64 c64 c64 c64 ! ! ! ! ! ! ! ! ! ! ! c64 c64
    c64 c64 c64
I: i32* i2 i4 i8 i16 i32 i32 u2 u4 u8 u16 u32 u32 bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 i32* f32* c64*
F: f32* ! ! f32* f32* f32* f32* ! ! f32* f32* f32* f32* bf16 f16 f32 f32 f4_e2m1fn f6_e2m3fn
    f6_e3m2fn e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c64 f32* f32* c64*
C: c64* ! ! c64* c64* c64* c64* ! ! c64* c64* c64* c64* c64 c64 c64 c64 ! ! ! ! ! ! ! ! ! ! !
    c64 c64 c64* c64* c64*
"""

RESULT_TYPE_X64 = """
bool: bool i2 i4 i8 i16 i32 i64 u2 u4 u8 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn
    f6_e3m2fn e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i64* f64*
    c128*
i2: i2 i2 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! i2 ! !
i4: i4 ! i4 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! i4 ! !
i8: i8 ! ! i8 i16 i32 i64 ! ! i16 i32 i64 f64* bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i8 f64* c128*
i16: i16 ! ! i16 i16 i32 i64 ! ! i16 i32 i64 f64* bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i16 f64* c128*
i32: i32 ! ! i32 i32 i32 i64 ! ! i32 i32 i64 f64* bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i32 f64* c128*
i64: i64 ! ! i64 i64 i64 i64 ! ! i64 i64 i64 f64* bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i64 f64* c128*
u2: u2 ! ! ! ! ! ! u2 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! u2 ! !
u4: u4 ! ! ! ! ! ! ! u4 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! u4 ! !
u8: u8 ! ! i16 i16 i32 i64 ! ! u8 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u8 f64* c128*
u16: u16 ! ! i32 i32 i32 i64 ! ! u16 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u16 f64* c128*
u32: u32 ! ! i64 i64 i64 i64 ! ! u32 u32 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u32 f64* c128*
u64: u64 ! ! f64* f64* f64* f64* ! ! u64 u64 u64 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn
    f6_e3m2fn e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u64 f64*
    c128*
bf16: bf16 ! ! bf16 bf16 bf16 bf16 ! ! bf16 bf16 bf16 bf16 bf16 f32 f32 f64 ! ! ! ! ! ! ! ! ! !
    ! c64 c128 bf16 bf16 c64
f16: f16 ! ! f16 f16 f16 f16 ! ! f16 f16 f16 f16 f32 f16 f32 f64 ! ! ! ! ! ! ! ! ! ! ! c64 c128
    f16 f16 c64
f32: f32 ! ! f32 f32 f32 f32 ! ! f32 f32 f32 f32 f32 f32 f32 f64 ! ! ! ! ! ! ! ! ! ! ! c64 c128
    f32 f32 c64
f64: f64 ! ! f64 f64 f64 f64 ! ! f64 f64 f64 f64 f64 f64 f64 f64 ! ! ! ! ! ! ! ! ! ! ! c128 c128
    f64 f64 c128
f4_e2m1fn: f4_e2m1fn ! ! f4_e2m1fn f4_e2m1fn f4_e2m1fn f4_e2m1fn ! ! f4_e2m1fn f4_e2m1fn
    f4_e2m1fn f4_e2m1fn ! ! ! ! f4_e2m1fn ! ! ! ! ! ! ! ! ! ! ! ! f4_e2m1fn f4_e2m1fn !
f6_e2m3fn: f6_e2m3fn ! ! f6_e2m3fn f6_e2m3fn f6_e2m3fn f6_e2m3fn ! ! f6_e2m3fn f6_e2m3fn
    f6_e2m3fn f6_e2m3fn ! ! ! ! ! f6_e2m3fn ! ! ! ! ! ! ! ! ! ! ! f6_e2m3fn f6_e2m3fn !
f6_e3m2fn: f6_e3m2fn ! ! f6_e3m2fn f6_e3m2fn f6_e3m2fn f6_e3m2fn ! ! f6_e3m2fn f6_e3m2fn
    f6_e3m2fn f6_e3m2fn ! ! ! ! ! ! f6_e3m2fn ! ! ! ! ! ! ! ! ! ! f6_e3m2fn f6_e3m2fn !
e3m4: e3m4 ! ! e3m4 e3m4 e3m4 e3m4 ! ! e3m4 e3m4 e3m4 e3m4 ! ! ! ! ! ! ! e3m4 ! ! ! ! ! ! ! ! !
    e3m4 e3m4 !
e4m3: e4m3 ! ! e4m3 e4m3 e4m3 e4m3 ! ! e4m3 e4m3 e4m3 e4m3 ! ! ! ! ! ! ! ! e4m3 ! ! ! ! ! ! ! !
    e4m3 e4m3 !
e4m3b11fnuz: e4m3b11fnuz ! ! e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz ! ! e4m3b11fnuz
    e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz ! ! ! ! ! ! ! ! ! e4m3b11fnuz ! ! ! ! ! ! ! e4m3b11fnuz
    e4m3b11fnuz !
e4m3fn: e4m3fn ! ! e4m3fn e4m3fn e4m3fn e4m3fn ! ! e4m3fn e4m3fn e4m3fn e4m3fn ! ! ! ! ! ! ! ! !
    ! e4m3fn ! ! ! ! ! ! e4m3fn e4m3fn !
e4m3fnuz: e4m3fnuz ! ! e4m3fnuz e4m3fnuz e4m3fnuz e4m3fnuz ! ! e4m3fnuz e4m3fnuz e4m3fnuz
    e4m3fnuz ! ! ! ! ! ! ! ! ! ! ! e4m3fnuz ! ! ! ! ! e4m3fnuz e4m3fnuz !
e5m2: e5m2 ! ! e5m2 e5m2 e5m2 e5m2 ! ! e5m2 e5m2 e5m2 e5m2 ! ! ! ! ! ! ! ! ! ! ! ! e5m2 ! ! ! !
    e5m2 e5m2 !
e5m2fnuz: e5m2fnuz ! ! e5m2fnuz e5m2fnuz e5m2fnuz e5m2fnuz ! ! e5m2fnuz e5m2fnuz e5m2fnuz
    e5m2fnuz ! ! ! ! ! ! ! ! ! ! ! ! ! e5m2fnuz ! ! ! e5m2fnuz e5m2fnuz !
e8m0fnu: e8m0fnu ! ! e8m0fnu e8m0fnu e8m0fnu e8m0fnu ! ! e8m0fnu e8m0fnu e8m0fnu e8m0fnu ! ! ! !
    ! ! ! ! ! ! ! ! ! ! e8m0fnu ! ! e8m0fnu e8m0fnu !
c64: c64 ! ! c64 c64 c64 c64 ! ! c64 c64 c64 c64 c64 c64 c64 c128 ! ! ! ! ! ! ! ! ! ! ! c64 c128
    c64 c64 c64
c128: c128 ! ! c128 c128 c128 c128 ! ! c128 c128 c128 c128 c128 c128 c128 c128 ! ! ! ! ! ! ! ! !
    ! ! c128 c128 c128 c128 c128
I: i64* i2 i4 i8 i16 i32 i64 u2 u4 u8 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i64* f64* c128*
F: f64* ! ! f64* f64* f64* f64* ! ! f64* f64* f64* f64* bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn
    f6_e3m2fn e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 f64* f64*
    c128*
C: c128* ! ! c128* c128* c128* c128* ! ! c128* c128* c128* c128* c64 c64 c64 c128 ! ! ! ! ! ! !
    ! ! ! ! c64 c128 c128* c128* c128*
"""

PROMOTE_TYPES_X32 = """
bool: bool i2 i4 i8 i16 i32 i64 u2 u4 u8 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn
    f6_e3m2fn e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i64 f64 c128
i2: i2 i2 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! i2 ! !
i4: i4 ! i4 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! i4 ! !
i8: i8 ! ! i8 i16 i32 i64 ! ! i16 i32 i32 f64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i8 f64 c128
i16: i16 ! ! i16 i16 i32 i64 ! ! i16 i32 i32 f64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i16 f64 c128
i32: i32 ! ! i32 i32 i32 i64 ! ! i32 i32 i32 f64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i32 f64 c128
i64: i64 ! ! i64 i64 i64 i64 ! ! i64 i64 i64 f64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i64 f64 c128
u2: u2 ! ! ! ! ! ! u2 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! u2 ! !
u4: u4 ! ! ! ! ! ! ! u4 ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! ! u4 ! !
u8: u8 ! ! i16 i16 i32 i64 ! ! u8 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u8 f64 c128
u16: u16 ! ! i32 i32 i32 i64 ! ! u16 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u16 f64 c128
u32: u32 ! ! i32 i32 i32 i64 ! ! u32 u32 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u32 f64 c128
u64: u64 ! ! f64 f64 f64 f64 ! ! u64 u64 u64 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 u64 f64 c128
bf16: bf16 ! ! bf16 bf16 bf16 bf16 ! ! bf16 bf16 bf16 bf16 bf16 f32 f32 f64 ! ! ! ! ! ! ! ! ! !
    ! c64 c128 bf16 bf16 c64
f16: f16 ! ! f16 f16 f16 f16 ! ! f16 f16 f16 f16 f32 f16 f32 f64 ! ! ! ! ! ! ! ! ! ! ! c64 c128
    f16 f16 c64
f32: f32 ! ! f32 f32 f32 f32 ! ! f32 f32 f32 f32 f32 f32 f32 f64 ! ! ! ! ! ! ! ! ! ! ! c64 c128
    f32 f32 c64
f64: f64 ! ! f64 f64 f64 f64 ! ! f64 f64 f64 f64 f64 f64 f64 f64 ! ! ! ! ! ! ! ! ! ! ! c128 c128
    f64 f64 c128
f4_e2m1fn: f4_e2m1fn ! ! f4_e2m1fn f4_e2m1fn f4_e2m1fn f4_e2m1fn ! ! f4_e2m1fn f4_e2m1fn
    f4_e2m1fn f4_e2m1fn ! ! ! ! f4_e2m1fn ! ! ! ! ! ! ! ! ! ! ! ! f4_e2m1fn f4_e2m1fn !
f6_e2m3fn: f6_e2m3fn ! ! f6_e2m3fn f6_e2m3fn f6_e2m3fn f6_e2m3fn ! ! f6_e2m3fn f6_e2m3fn
    f6_e2m3fn f6_e2m3fn ! ! ! ! ! f6_e2m3fn ! ! ! ! ! ! ! ! ! ! ! f6_e2m3fn f6_e2m3fn !
f6_e3m2fn: f6_e3m2fn ! ! f6_e3m2fn f6_e3m2fn f6_e3m2fn f6_e3m2fn ! ! f6_e3m2fn f6_e3m2fn
    f6_e3m2fn f6_e3m2fn ! ! ! ! ! ! f6_e3m2fn ! ! ! ! ! ! ! ! ! ! f6_e3m2fn f6_e3m2fn !
e3m4: e3m4 ! ! e3m4 e3m4 e3m4 e3m4 ! ! e3m4 e3m4 e3m4 e3m4 ! ! ! ! ! ! ! e3m4 ! ! ! ! ! ! ! ! !
    e3m4 e3m4 !
e4m3: e4m3 ! ! e4m3 e4m3 e4m3 e4m3 ! ! e4m3 e4m3 e4m3 e4m3 ! ! ! ! ! ! ! ! e4m3 ! ! ! ! ! ! ! !
    e4m3 e4m3 !
e4m3b11fnuz: e4m3b11fnuz ! ! e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz ! ! e4m3b11fnuz
    e4m3b11fnuz e4m3b11fnuz e4m3b11fnuz ! ! ! ! ! ! ! ! ! e4m3b11fnuz ! ! ! ! ! ! ! e4m3b11fnuz
    e4m3b11fnuz !
e4m3fn: e4m3fn ! ! e4m3fn e4m3fn e4m3fn e4m3fn ! ! e4m3fn e4m3fn e4m3fn e4m3fn ! ! ! ! ! ! ! ! !
    ! e4m3fn ! ! ! ! ! ! e4m3fn e4m3fn !
e4m3fnuz: e4m3fnuz ! ! e4m3fnuz e4m3fnuz e4m3fnuz e4m3fnuz ! ! e4m3fnuz e4m3fnuz e4m3fnuz
    e4m3fnuz ! ! ! ! ! ! ! ! ! ! ! e4m3fnuz ! ! ! ! ! e4m3fnuz e4m3fnuz !
e5m2: e5m2 ! ! e5m2 e5m2 e5m2 e5m2 ! ! e5m2 e5m2 e5m2 e5m2 ! ! ! ! ! ! ! ! ! ! ! ! e5m2 ! ! ! !
    e5m2 e5m2 !
e5m2fnuz: e5m2fnuz ! ! e5m2fnuz e5m2fnuz e5m2fnuz e5m2fnuz ! ! e5m2fnuz e5m2fnuz e5m2fnuz
    e5m2fnuz ! ! ! ! ! ! ! ! ! ! ! ! ! e5m2fnuz ! ! ! e5m2fnuz e5m2fnuz !
e8m0fnu: e8m0fnu ! ! e8m0fnu e8m0fnu e8m0fnu e8m0fnu ! ! e8m0fnu e8m0fnu e8m0fnu e8m0fnu ! ! ! !
    ! ! ! ! ! ! ! ! ! ! e8m0fnu ! ! e8m0fnu e8m0fnu !
c64: c64 ! ! c64 c64 c64 c64 ! ! c64 c64 c64 c64 c64 c64 c64 c128 ! ! ! ! ! ! ! ! ! ! ! c64 c128
    c64 c64 c64
c128: c128 ! ! c128 c128 c128 c128 ! ! c128 c128 c128 c128 c128 c128 c128 c128 ! ! ! ! ! ! ! ! !
    ! ! c128 c128 c128 c128 c128
I: i64 i2 i4 i8 i16 i32 i64 u2 u4 u8 u16 u32 u64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 i64 f64 c128
F: f64 ! ! f64 f64 f64 f64 ! ! f64 f64 f64 f64 bf16 f16 f32 f64 f4_e2m1fn f6_e2m3fn f6_e3m2fn
    e3m4 e4m3 e4m3b11fnuz e4m3fn e4m3fnuz e5m2 e5m2fnuz e8m0fnu c64 c128 f64 f64 c128
C: c128 ! ! c128 c128 c128 c128 ! ! c128 c128 c128 c128 c64 c64 c64 c128 ! ! ! ! ! ! ! ! ! ! !
    c64 c128 c128 c128 c128
"""

WEAK_ARRAYS_X32 = """
cols: - 1 1.0 1j True W(i32) W(f16) W(u8) W(bool) i8 u32 f16 bf16 f32 e5m2 =
W(bool): bool i32* f32* c64* bool i32* f32* u32* bool i8 u32 f16 bf16 f32 e5m2 bool
W(i2): K ! ! ! i32* ! ! ! K i8 u32 f16 bf16 f32 e5m2 i2
W(i4): K ! ! ! i32* ! ! ! K i8 u32 f16 bf16 f32 e5m2 i4
W(i8): i32* i32* f32* c64* i32* i32* f32* i32* i32* i8 u32 f16 bf16 f32 e5m2 i8
W(i16): i32* i32* f32* c64* i32* i32* f32* i32* i32* i8 u32 f16 bf16 f32 e5m2 i16
W(i32): i32* i32* f32* c64* i32* i32* f32* i32* i32* i8 u32 f16 bf16 f32 e5m2 i32
W(i64): i32* i32* f32* c64* i32* i32* f32* i32* i32* i8 u32 f16 bf16 f32 e5m2 i32
W(u2): K ! ! ! i32* ! ! ! K i8 u32 f16 bf16 f32 e5m2 u2
W(u4): K ! ! ! i32* ! ! ! K i8 u32 f16 bf16 f32 e5m2 u4
W(u8): u32* i32* f32* c64* i32* i32* f32* u32* u32* i8 u32 f16 bf16 f32 e5m2 u8
W(u16): u32* i32* f32* c64* i32* i32* f32* u32* u32* i8 u32 f16 bf16 f32 e5m2 u16
W(u32): u32* i32* f32* c64* i32* i32* f32* u32* u32* i8 u32 f16 bf16 f32 e5m2 u32
W(u64): u32* i32* f32* c64* i32* i32* f32* u32* u32* i8 u32 f16 bf16 f32 e5m2 u32
W(bf16): f32* f32* f32* c64* f32* f32* f32* f32* f32* f32* f32* f16 bf16 f32 e5m2 bf16
W(f16): f32* f32* f32* c64* f32* f32* f32* f32* f32* f32* f32* f16 bf16 f32 e5m2 f16
W(f32): f32* f32* f32* c64* f32* f32* f32* f32* f32* f32* f32* f16 bf16 f32 e5m2 f32
W(f64): f32* f32* f32* c64* f32* f32* f32* f32* f32* f32* f32* f16 bf16 f32 e5m2 f32
W(f4_e2m1fn): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 f4_e2m1fn
W(f6_e2m3fn): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 f6_e2m3fn
W(f6_e3m2fn): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 f6_e3m2fn
W(e3m4): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e3m4
W(e4m3): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e4m3
W(e4m3b11fnuz): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e4m3b11fnuz
W(e4m3fn): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e4m3fn
W(e4m3fnuz): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e4m3fnuz
W(e5m2): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e5m2
W(e5m2fnuz): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e5m2fnuz
W(e8m0fnu): f32* f32* ! ! f32* f32* ! f32* f32* f32* f32* f16 bf16 f32 e5m2 e8m0fnu
W(c64): c64* c64* c64* c64* c64* c64* c64* c64* c64* c64* c64* c64 c64 c64 ! c64
W(c128): c64* c64* c64* c64* c64* c64* c64* c64* c64* c64* c64* c64 c64 c64 ! c64
"""

WEAK_ARRAYS_X64 = """
cols: - 1 1.0 1j True W(i32) W(f16) W(u8) W(bool) i8 u32 f16 bf16 f32 e5m2 =
W(bool): bool i64* f64* c128* bool i64* f64* u64* bool i8 u32 f16 bf16 f32 e5m2 bool
W(i2): K ! ! ! i64* ! ! ! K i8 u32 f16 bf16 f32 e5m2 i2
W(i4): K ! ! ! i64* ! ! ! K i8 u32 f16 bf16 f32 e5m2 i4
W(i8): i64* i64* f64* c128* i64* i64* f64* i64* i64* i8 u32 f16 bf16 f32 e5m2 i8
W(i16): i64* i64* f64* c128* i64* i64* f64* i64* i64* i8 u32 f16 bf16 f32 e5m2 i16
W(i32): i64* i64* f64* c128* i64* i64* f64* i64* i64* i8 u32 f16 bf16 f32 e5m2 i32
W(i64): i64* i64* f64* c128* i64* i64* f64* i64* i64* i8 u32 f16 bf16 f32 e5m2 i64
W(u2): K ! ! ! i64* ! ! ! K i8 u32 f16 bf16 f32 e5m2 u2
W(u4): K ! ! ! i64* ! ! ! K i8 u32 f16 bf16 f32 e5m2 u4
W(u8): u64* i64* f64* c128* i64* i64* f64* u64* u64* i8 u32 f16 bf16 f32 e5m2 u8
W(u16): u64* i64* f64* c128* i64* i64* f64* u64* u64* i8 u32 f16 bf16 f32 e5m2 u16
W(u32): u64* i64* f64* c128* i64* i64* f64* u64* u64* i8 u32 f16 bf16 f32 e5m2 u32
W(u64): u64* f64* f64* c128* i64* f64* f64* u64* u64* i8 u32 f16 bf16 f32 e5m2 u64
W(bf16): f64* f64* f64* c128* f64* f64* f64* f64* f64* f64* f64* f16 bf16 f32 e5m2 bf16
W(f16): f64* f64* f64* c128* f64* f64* f64* f64* f64* f64* f64* f16 bf16 f32 e5m2 f16
W(f32): f64* f64* f64* c128* f64* f64* f64* f64* f64* f64* f64* f16 bf16 f32 e5m2 f32
W(f64): f64* f64* f64* c128* f64* f64* f64* f64* f64* f64* f64* f16 bf16 f32 e5m2 f64
W(f4_e2m1fn): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 f4_e2m1fn
W(f6_e2m3fn): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 f6_e2m3fn
W(f6_e3m2fn): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 f6_e3m2fn
W(e3m4): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e3m4
W(e4m3): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e4m3
W(e4m3b11fnuz): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e4m3b11fnuz
W(e4m3fn): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e4m3fn
W(e4m3fnuz): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e4m3fnuz
W(e5m2): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e5m2
W(e5m2fnuz): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e5m2fnuz
W(e8m0fnu): f64* f64* ! ! f64* f64* ! f64* f64* f64* f64* f16 bf16 f32 e5m2 e8m0fnu
W(c64): c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c64 c64 c64 ! c64
W(c128): c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c128* c64 c64 c64 ! c128
"""

NARY_X32 = """
W(f64) i32 1 W(c64) => c64*
W(f16) W(i2) W(e4m3fnuz) W(u4) => !
e8m0fnu W(e8m0fnu) f4_e2m1fn True f4_e2m1fn => !
C f6_e2m3fn W(i4) => !
u8 W(i32) W(e4m3fn) => f32*
u64 W(u4) W(f6_e2m3fn) W(i8) e5m2fnuz => e5m2fnuz
W(e4m3fnuz) W(f6_e3m2fn) W(c128) 1 u2 => !
i2 u32 W(f16) bool W(e5m2fnuz) => !
F W(i16) u4 e4m3fnuz => !
c64 I f6_e2m3fn W(e3m4) u32 => !
W(i8) W(c64) W(e5m2) => !
W(i2) W(bool) f32 => f32
W(i32) e5m2fnuz True W(f6_e3m2fn) u32 => e5m2fnuz
W(u64) W(i8) I W(bool) e4m3fn => e4m3fn
e4m3fn i16 1 => e4m3fn
u4 u32 f64 f6_e3m2fn => !
u16 W(bf16) 1j => c64*
I e8m0fnu W(f64) 1j W(e3m4) => !
W(u4) u16 W(i16) f16 => f16
W(i32) e4m3fnuz F i4 => !
1.0 f16 c64 W(u16) e4m3 => !
W(f4_e2m1fn) u2 u64 f6_e2m3fn => !
c64 i32 u8 i8 f32 => c64
e4m3fnuz f32 W(bf16) u32 W(u16) => !
i16 i4 e4m3fnuz => !
f32 W(e4m3fnuz) e5m2fnuz => !
u2 i4 W(f4_e2m1fn) u64 1 => !
c64 u8 W(i2) => c64
W(f6_e2m3fn) e4m3fn u2 W(e8m0fnu) => !
i32 u64 W(bf16) e5m2 => e5m2
W(u4) W(e4m3fn) e4m3 e5m2fnuz => !
e3m4 e3m4 W(i64) => e3m4
C f32 W(f6_e3m2fn) e4m3b11fnuz i2 => !
W(f32) W(c64) W(i4) W(u4) => !
C f6_e3m2fn i2 W(e4m3) => !
u16 W(i32) i32 1j f4_e2m1fn => !
W(e4m3fnuz) W(u4) True => f32*
W(u4) f64 W(i4) W(u64) W(f64) => f32
u16 bool e4m3fnuz W(i32) e3m4 => !
c64 W(e3m4) W(u32) => c64
W(f64) i16 W(f16) W(f64) i32 => f32*
W(e3m4) u4 1 => !
e3m4 W(e3m4) W(e5m2) bool i16 => e3m4
W(i16) W(i4) W(e4m3b11fnuz) i64 => f32*
e4m3fnuz u16 f64 i2 => !
W(f64) W(i8) bool e8m0fnu => e8m0fnu
bool u64 e4m3fnuz => e4m3fnuz
e5m2 W(i2) 1j => !
e4m3fn u64 W(e4m3fn) W(bf16) u16 => e4m3fn
1j W(e3m4) f16 => c64
f4_e2m1fn W(c128) W(u2) f16 => !
1j i4 i32 => !
e5m2fnuz 1 W(i8) => e5m2fnuz
i32 W(e5m2fnuz) W(e4m3) W(f6_e2m3fn) => f32*
e4m3b11fnuz e5m2fnuz W(u32) W(bool) => !
f4_e2m1fn f6_e3m2fn 1.0 => !
W(i64) W(u16) u32 W(i64) => u32
i16 i32 1.0 e3m4 f6_e3m2fn => !
W(bool) W(u8) W(bf16) f64 W(bool) => f32
W(e4m3fnuz) I i64 => f32*
"""

NARY_X64 = """
W(f64) i32 1 W(c64) => c128*
W(f16) W(i2) W(e4m3fnuz) W(u4) => !
e8m0fnu W(e8m0fnu) f4_e2m1fn True f4_e2m1fn => !
C f6_e2m3fn W(i4) => !
u8 W(i32) W(e4m3fn) => f64*
u64 W(u4) W(f6_e2m3fn) W(i8) e5m2fnuz => e5m2fnuz
W(e4m3fnuz) W(f6_e3m2fn) W(c128) 1 u2 => !
i2 u32 W(f16) bool W(e5m2fnuz) => !
F W(i16) u4 e4m3fnuz => !
c64 I f6_e2m3fn W(e3m4) u32 => !
W(i8) W(c64) W(e5m2) => !
W(i2) W(bool) f32 => f32
W(i32) e5m2fnuz True W(f6_e3m2fn) u32 => e5m2fnuz
W(u64) W(i8) I W(bool) e4m3fn => e4m3fn
e4m3fn i16 1 => e4m3fn
u4 u32 f64 f6_e3m2fn => !
u16 W(bf16) 1j => c128*
I e8m0fnu W(f64) 1j W(e3m4) => !
W(u4) u16 W(i16) f16 => f16
W(i32) e4m3fnuz F i4 => !
1.0 f16 c64 W(u16) e4m3 => !
W(f4_e2m1fn) u2 u64 f6_e2m3fn => !
c64 i32 u8 i8 f32 => c64
e4m3fnuz f32 W(bf16) u32 W(u16) => !
i16 i4 e4m3fnuz => !
f32 W(e4m3fnuz) e5m2fnuz => !
u2 i4 W(f4_e2m1fn) u64 1 => !
c64 u8 W(i2) => c64
W(f6_e2m3fn) e4m3fn u2 W(e8m0fnu) => !
i32 u64 W(bf16) e5m2 => e5m2
W(u4) W(e4m3fn) e4m3 e5m2fnuz => !
e3m4 e3m4 W(i64) => e3m4
C f32 W(f6_e3m2fn) e4m3b11fnuz i2 => !
W(f32) W(c64) W(i4) W(u4) => !
C f6_e3m2fn i2 W(e4m3) => !
u16 W(i32) i32 1j f4_e2m1fn => !
W(e4m3fnuz) W(u4) True => f64*
W(u4) f64 W(i4) W(u64) W(f64) => f64
u16 bool e4m3fnuz W(i32) e3m4 => !
c64 W(e3m4) W(u32) => c64
W(f64) i16 W(f16) W(f64) i32 => f64*
W(e3m4) u4 1 => !
e3m4 W(e3m4) W(e5m2) bool i16 => e3m4
W(i16) W(i4) W(e4m3b11fnuz) i64 => f64*
e4m3fnuz u16 f64 i2 => !
W(f64) W(i8) bool e8m0fnu => e8m0fnu
bool u64 e4m3fnuz => e4m3fnuz
e5m2 W(i2) 1j => !
e4m3fn u64 W(e4m3fn) W(bf16) u16 => e4m3fn
1j W(e3m4) f16 => c64
f4_e2m1fn W(c128) W(u2) f16 => !
1j i4 i32 => !
e5m2fnuz 1 W(i8) => e5m2fnuz
i32 W(e5m2fnuz) W(e4m3) W(f6_e2m3fn) => f64*
e4m3b11fnuz e5m2fnuz W(u32) W(bool) => !
f4_e2m1fn f6_e3m2fn 1.0 => !
W(i64) W(u16) u32 W(i64) => u32
i16 i32 1.0 e3m4 f6_e3m2fn => !
W(bool) W(u8) W(bf16) f64 W(bool) => f64
W(e4m3fnuz) I i64 => f64*
"""


# -- Decoding the tables ---------------------------------------------------------------------------

_NAMES = [
    "bool", "int2", "int4", "int8", "int16", "int32", "int64",
    "uint2", "uint4", "uint8", "uint16", "uint32", "uint64",
    "bfloat16", "float16", "float32", "float64",
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn",
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "complex64", "complex128",
]  # fmt: skip


def _code(name: str) -> str:
    return (
        name.replace("bfloat16", "bf16")
        .replace("complex", "c")
        .replace("uint", "u")
        .replace("int", "i")
        .replace("float8_", "")
        .replace("float", "f")
    )


_DTYPE_OF_CODE = {_code(n): np.dtype(getattr(ml_dtypes, n, n)) for n in _NAMES}
_PY_TYPE_OF_CODE = {"I": int, "F": float, "C": complex}


class _WeakArray:
    """Stands in for a stablax array or tracer: only `dtype` and `weak_type` are read."""

    def __init__(self, dtype: Any, weak_type: bool = True) -> None:
        self.dtype, self.weak_type = np.dtype(dtype), weak_type


def _arg(token: str) -> Any:
    literals = {"1": 1, "1.0": 1.0, "1j": 1j, "True": True}
    if token in literals:
        return literals[token]
    if token.startswith("W("):
        return _WeakArray(_DTYPE_OF_CODE[token[2:-1]])
    return _PY_TYPE_OF_CODE.get(token) or _DTYPE_OF_CODE[token]


def _cell(f: Callable[[], Any]) -> str:
    try:
        out = f()
    except dtypes.TypePromotionError:
        return "!"
    except ValueError:
        return "V"
    except TypeError:
        return "T"
    dtype, weak = out if isinstance(out, tuple) else (out, False)
    return _code(dtype.name) + ("*" if weak else "")


def _parse_rows(text: str) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for token in text.split():
        if token.endswith(":"):
            label = token[:-1]
            rows[label] = []
        else:
            rows[label].append(token)
    return rows


def _pair_table(text: str) -> dict[tuple[str, str], str]:
    rows = _parse_rows(text)
    labels = list(rows)
    return {(a, b): cell for a in labels for b, cell in zip(labels, rows[a], strict=True)}


def _mismatches(expected: dict[Any, str], actual: Callable[[Any], str]) -> list[str]:
    return [f"{key}: want {want}, got {got}" for key, want in expected.items()
            if (got := actual(key)) != want]  # fmt: skip


@contextlib.contextmanager
def _x64_mode(enabled: bool) -> Iterator[None]:
    old = config.x64_enabled
    config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        config.update("jax_enable_x64", old)


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request: pytest.FixtureRequest) -> Iterator[bool]:
    with _x64_mode(request.param):
        yield request.param


# -- The promotion tables --------------------------------------------------------------------------


def test_tables_cover_exactly_the_supported_dtypes():
    labels = list(_parse_rows(RESULT_TYPE_X32))
    assert labels == [*_DTYPE_OF_CODE, *_PY_TYPE_OF_CODE]
    assert set(_DTYPE_OF_CODE.values()) == dtypes.SUPPORTED_DTYPE_SET
    assert len(dtypes.SUPPORTED_DTYPES) == len(dtypes.SUPPORTED_DTYPE_SET) == len(_NAMES)


def test_result_type_pairs_match_jax(x64):
    table = _pair_table(RESULT_TYPE_X64 if x64 else RESULT_TYPE_X32)

    def ours(key: tuple[str, str]) -> str:
        a, b = map(_arg, key)
        return _cell(lambda: dtypes.result_type(a, b, return_weak_type_flag=True))

    assert _mismatches(table, ours) == []


def test_result_type_of_python_values_matches_their_types(x64):
    # The I/F/C rows use the types int, float, complex; values are weak in the same way.
    table = _pair_table(RESULT_TYPE_X64 if x64 else RESULT_TYPE_X32)
    values = {"I": 3, "F": 2.5, "C": 1j}

    def ours(key: tuple[str, str]) -> str:
        a, b = (values.get(k) or _arg(k) for k in key)
        return _cell(lambda: dtypes.result_type(a, b, return_weak_type_flag=True))

    expected = {k: v for k, v in table.items() if k[0] in values or k[1] in values}
    assert _mismatches(expected, ours) == []


def test_promote_types_pairs_match_jax(x64):
    # With x64 on, jnp.promote_types equals result_type without the weak flag (checked when the
    # tables were made); with it off, promote_types does not canonicalize, so it has its own table.
    text = RESULT_TYPE_X64.replace("*", "") if x64 else PROMOTE_TYPES_X32
    table = _pair_table(text)

    def ours(key: tuple[str, str]) -> str:
        a, b = map(_arg, key)
        return _cell(lambda: dtypes.promote_types(a, b))

    assert _mismatches(table, ours) == []


def test_weak_arrays_match_jax(x64):
    rows = _parse_rows(WEAK_ARRAYS_X64 if x64 else WEAK_ARRAYS_X32)
    columns = rows.pop("cols")
    expected = {}
    for row, cells in rows.items():
        for column, cell in zip(columns, cells, strict=True):
            if cell != "K":  # JAX 0.10.2 crashes (KeyError) on weak 2- and 4-bit integers alone
                expected[row, column] = cell

    def ours(key: tuple[str, str]) -> str:
        row, column = key
        if column == "-":
            args = (_arg(row),)
        else:
            args = (_arg(row), _arg(row[2:-1]) if column == "=" else _arg(column))
        return _cell(lambda: dtypes.result_type(*args, return_weak_type_flag=True))

    assert _mismatches(expected, ours) == []


def test_weak_narrow_integers_alone_widen_to_the_default_int(x64):
    # Where JAX crashes ("K" cells), stablax follows the rule the other cells show.
    for name in ("int2", "int4", "uint2", "uint4"):
        out = dtypes.result_type(_WeakArray(getattr(ml_dtypes, name)), return_weak_type_flag=True)
        kind = dtypes.default_uint_dtype() if name.startswith("u") else dtypes.default_int_dtype()
        assert out == (kind, True)


def test_nary_result_type_matches_jax(x64):
    expected = {}
    for line in (NARY_X64 if x64 else NARY_X32).strip().splitlines():
        args, result = line.split(" => ")
        expected[args] = result

    def ours(args: str) -> str:
        values = [_arg(t) for t in args.split()]
        return _cell(lambda: dtypes.result_type(*values, return_weak_type_flag=True))

    assert _mismatches(expected, ours) == []


_POOL = [*_DTYPE_OF_CODE, *_PY_TYPE_OF_CODE, "1", "1.0", "1j", "True"]
_POOL += [f"W({c})" for c in _DTYPE_OF_CODE]


@settings(max_examples=150, deadline=None)
@given(
    tokens=st.lists(st.sampled_from(_POOL), min_size=1, max_size=5),
    enabled=st.booleans(),
    data=st.data(),
)
def test_result_type_ignores_order_and_repeats(tokens, enabled, data):
    shuffled = data.draw(st.permutations(tokens))
    with _x64_mode(enabled):

        def run(toks: list[str]) -> str:
            values = [_arg(t) for t in toks]
            return _cell(lambda: dtypes.result_type(*values, return_weak_type_flag=True))

        out = run(tokens)
        assert run(shuffled) == out
        assert run(tokens + tokens) == out
        if out[0] not in "!VT":
            dtype = _DTYPE_OF_CODE[out.rstrip("*")]
            assert dtypes.canonicalize_dtype(dtype) == dtype


def _weak_aware_fold(args: list[Any]) -> tuple[np.dtype, bool]:
    # Pairwise result_type, feeding each partial result back with its weak flag.
    out = dtypes.result_type(args[0], return_weak_type_flag=True)
    for arg in args[1:]:
        out = dtypes.result_type(_WeakArray(*out), arg, return_weak_type_flag=True)
    return out


@settings(max_examples=150, deadline=None)
@given(
    strong=st.lists(st.sampled_from(dtypes.SUPPORTED_DTYPES), min_size=1, max_size=4),
    enabled=st.booleans(),
)
def test_strong_dtypes_fold_pairwise_when_weak_results_stay_weak(strong, enabled):
    # For strong inputs the n-ary join equals a pairwise fold, provided a weak partial result
    # (uint64 with int8 -> weak float) stays weak; folding with promote_types would not work.
    with _x64_mode(enabled):
        try:
            folded = _weak_aware_fold(strong)
        except dtypes.TypePromotionError:
            with pytest.raises(dtypes.TypePromotionError):
                dtypes.result_type(*strong)
        else:
            assert dtypes.result_type(*strong, return_weak_type_flag=True) == folded


@pytest.mark.parametrize(
    ("args", "expected"),
    [  # checked against JAX 0.10.2 with x64 on
        ((np.uint64, np.int8, ml_dtypes.bfloat16), ml_dtypes.bfloat16),
        ((np.uint64, np.int8, ml_dtypes.float4_e2m1fn), ml_dtypes.float4_e2m1fn),
        ((np.uint64, np.int16, np.float16, np.int8), np.float16),
    ],
)
def test_result_type_is_not_a_fold_of_promote_types(args, expected):
    with _x64_mode(True):
        assert dtypes.result_type(*args, return_weak_type_flag=True) == (np.dtype(expected), False)
        folded = functools.reduce(dtypes.promote_types, args[:2])
        assert folded == np.float64  # the weak float of uint64 + int8 became a strong float64


def test_config_flip_takes_effect_at_once():
    with _x64_mode(False):
        assert dtypes.result_type(np.float64) == np.float32
        assert dtypes.result_type(1.0) == np.float32
        with _x64_mode(True):
            assert dtypes.result_type(np.float64) == np.float64
            assert dtypes.result_type(1.0) == np.float64
            assert dtypes.canonicalize_dtype("int64") == np.int64
        assert dtypes.canonicalize_dtype("int64") == np.int32
        assert dtypes.dtype_of(1) == np.int32


# -- result_type and promote_types on odd inputs ---------------------------------------------------


@pytest.mark.parametrize(
    ("args", "x32", "x64_result"),
    [
        ((None,), (np.float32, False), (np.float64, False)),
        ((None, np.int8), (np.float32, False), (np.float64, False)),
        ((True,), (np.bool_, False), (np.bool_, False)),
        ((bool,), (np.bool_, False), (np.bool_, False)),
        ((1,), (np.int32, True), (np.int64, True)),
        ((2**40,), (np.int32, True), (np.int64, True)),
        ((1.0, 1j), (np.complex64, True), (np.complex128, True)),
        ((np.float64(1),), (np.float32, False), (np.float64, False)),
        ((np.float64(1), np.float16), (np.float32, False), (np.float64, False)),
        ((np.int64(1), np.int8), (np.int32, False), (np.int64, False)),
        ((np.bool_(1), np.int8), (np.int8, False), (np.int8, False)),
        (("float32",), (np.float32, False), (np.float32, False)),
        (("float",), (np.float32, False), (np.float64, False)),
        (("int",), (np.int32, False), (np.int64, False)),
        (("bfloat16",), (ml_dtypes.bfloat16, False), (ml_dtypes.bfloat16, False)),
        ((np.ones(3, "f8"),), (np.float32, False), (np.float64, False)),
        ((np.ones(3, "i1"), 3.0), (np.float32, True), (np.float64, True)),
        ((_WeakArray(np.int32), np.int16), (np.int16, False), (np.int16, False)),
        ((_WeakArray(np.float32), np.int8), (np.float32, True), (np.float64, True)),
        ((_WeakArray(np.float32, False), np.int8), (np.float32, False), (np.float32, False)),
        ((np.int8, np.int8, np.float16, 1.0), (np.float16, False), (np.float16, False)),
        ((dtypes.float0,), (dtypes.float0, False), (dtypes.float0, False)),
        ((dtypes.float0, dtypes.float0), (dtypes.float0, False), (dtypes.float0, False)),
    ],
)
def test_result_type_examples(x64, args, x32, x64_result):
    dtype, weak = x64_result if x64 else x32
    assert dtypes.result_type(*args, return_weak_type_flag=True) == (np.dtype(dtype), weak)
    assert dtypes.result_type(*args) == np.dtype(dtype)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((), ValueError),
        (([1, 2],), TypeError),
        (((1, 2.0),), TypeError),
        ((object,), TypeError),
        (("S3",), TypeError),
        ((np.str_,), TypeError),  # JAX 0.10.2 returns dtype('<U') here; stablax refuses
        ((np.longdouble,), TypeError),  # JAX 0.10.2 returns float128 here; stablax refuses
        (("foo",), TypeError),
        ((np.zeros(2, object),), TypeError),
        ((dtypes.float0, np.float32), ValueError),
        ((ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fn), dtypes.TypePromotionError),
        ((ml_dtypes.float8_e5m2, ml_dtypes.bfloat16, 1.0), dtypes.TypePromotionError),
    ],
)
def test_result_type_errors(args, error):
    with pytest.raises(error, match="result_type"):
        dtypes.result_type(*args)


def test_promotion_error_names_the_dtypes_and_is_a_value_error():
    assert issubclass(dtypes.TypePromotionError, ValueError)
    with pytest.raises(dtypes.TypePromotionError, match=r"bfloat16.*float8_e5m2.*astype"):
        dtypes.result_type(ml_dtypes.float8_e5m2, ml_dtypes.bfloat16)
    with pytest.raises(dtypes.TypePromotionError, match=r"^promote_types: .*int4.*int8"):
        dtypes.promote_types(ml_dtypes.int4, np.int8)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (None, "int8", np.float64),
        ("float", "int8", np.float64),
        (np.float64, "float16", np.float64),
        (float, np.float16, np.float16),
        (int, float, np.float64),
        (bool, int, np.int64),
        (complex, ml_dtypes.bfloat16, np.complex64),
    ],
)
def test_promote_types_examples(x64, a, b, expected):
    assert dtypes.promote_types(a, b) == np.dtype(expected)


@pytest.mark.parametrize(
    ("a", "b", "error"),
    [
        (np.ones(2), np.float16, TypeError),
        (object, np.int8, ValueError),
        (dtypes.float0, np.int8, ValueError),
        (dtypes.float0, dtypes.float0, ValueError),
        (ml_dtypes.float8_e5m2, complex, dtypes.TypePromotionError),
    ],
)
def test_promote_types_errors(a, b, error):
    with pytest.raises(error):
        dtypes.promote_types(a, b)


# -- Canonicalization, defaults, Python scalars ----------------------------------------------------

_WIDE = {np.int64: np.int32, np.uint64: np.uint32, np.float64: np.float32}
_WIDE[np.complex128] = np.complex64


def test_canonicalize_dtype(x64):
    for dtype in dtypes.SUPPORTED_DTYPES:
        narrow = _WIDE.get(dtype.type, dtype)
        assert dtypes.canonicalize_dtype(dtype) == (dtype if x64 else np.dtype(narrow))
        assert dtypes.canonicalize_dtype(dtype.name) == dtypes.canonicalize_dtype(dtype)
        assert dtypes.canonicalize_dtype(dtype.type) == dtypes.canonicalize_dtype(dtype)
    assert dtypes.canonicalize_dtype(None) == dtypes.default_float_dtype()
    assert dtypes.canonicalize_dtype(float) == dtypes.default_float_dtype()
    assert dtypes.canonicalize_dtype(int) == dtypes.default_int_dtype()
    assert dtypes.canonicalize_dtype(complex) == dtypes.default_complex_dtype()
    assert dtypes.canonicalize_dtype(bool) == np.bool_
    assert dtypes.canonicalize_dtype(dtypes.float0) == dtypes.float0
    assert dtypes.canonicalize_dtype(object) == np.dtype(object)  # passes through, as in JAX
    with pytest.raises(TypeError, match="canonicalize_dtype"):
        dtypes.canonicalize_dtype(3.0)
    with pytest.raises(TypeError):
        dtypes.canonicalize_dtype(np.ones(2))


def test_defaults(x64):
    bits = 64 if x64 else 32
    assert dtypes.default_float_dtype() == np.dtype(f"float{bits}")
    assert dtypes.default_int_dtype() == np.dtype(f"int{bits}")
    assert dtypes.default_uint_dtype() == np.dtype(f"uint{bits}")
    assert dtypes.default_complex_dtype() == np.dtype(f"complex{2 * bits}")


class _Color(enum.IntEnum):
    RED = 1


def test_python_scalars(x64):
    for value, kind in [(True, np.bool_), (1, int), (1.5, float), (1j, complex)]:
        assert dtypes.is_python_scalar(value)
        assert dtypes.python_scalar_dtype(value) == dtypes.python_scalar_dtype(type(value))
        assert dtypes.python_scalar_dtype(value) == dtypes.canonicalize_dtype(kind)
        assert dtypes.dtype_of(value) == dtypes.python_scalar_dtype(value)
    assert dtypes.python_scalar_dtype(_Color.RED) == dtypes.default_int_dtype()
    for value in [np.float32(1), np.array(1.0), _Color.RED, "1", None]:
        assert not dtypes.is_python_scalar(value)
    with pytest.raises(TypeError, match="python_scalar_dtype"):
        dtypes.python_scalar_dtype("1")


def test_is_weakly_typed():
    assert dtypes.is_weakly_typed(1) and dtypes.is_weakly_typed(1.0) and dtypes.is_weakly_typed(1j)
    assert dtypes.is_weakly_typed(_WeakArray(np.float32))
    for value in [True, np.float64(1), int, np.ones(2), _WeakArray(np.float32, False), _Color.RED]:
        assert not dtypes.is_weakly_typed(value)
    # An IntEnum member is a strong int (a weak one would give int8).
    assert dtypes.result_type(_Color.RED, np.int8) == dtypes.default_int_dtype()


def _scalar_type_for(dtype: np.dtype) -> type:
    if dtype == np.bool_:
        return bool
    if dtype in dtypes.INTEGER_DTYPES:
        return int
    return float if dtype in dtypes.FLOATING_DTYPES else complex


@settings(max_examples=100, deadline=None)
@given(
    dtype=st.sampled_from(dtypes.SUPPORTED_DTYPES),
    shape=st.lists(st.integers(0, 3), max_size=3),
    enabled=st.booleans(),
)
def test_dtype_of_arrays(dtype, shape, enabled):
    with _x64_mode(enabled):
        x = np.zeros(shape, dtype)
        assert dtypes.dtype_of(x) == dtypes.canonicalize_dtype(dtype)
        assert dtypes.dtype_of(x.reshape(-1)[:1]) == dtypes.canonicalize_dtype(dtype)
        assert dtypes.dtype_of(_WeakArray(dtype)) == dtypes.canonicalize_dtype(dtype)
        assert dtypes.scalar_type_of(x) is _scalar_type_for(dtype)


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.booleans(), st.integers(-(2**31), 2**31 - 1), st.floats(), st.complex_numbers()
        ),
        max_size=6,
    ),
    enabled=st.booleans(),
)
def test_dtype_of_lists_promotes_the_leaves(values, enabled):
    with _x64_mode(enabled):
        got = dtypes.dtype_of([values, values[:1]])
        want = dtypes.result_type(*values) if values else dtypes.default_float_dtype()
        assert got == want
        if values and any(type(v) is complex for v in values):
            assert got == dtypes.default_complex_dtype()


def test_dtype_of_examples(x64):
    assert dtypes.dtype_of([1, 2.5]) == dtypes.default_float_dtype()
    assert dtypes.dtype_of([]) == dtypes.default_float_dtype()
    assert dtypes.dtype_of([True, 1]) == dtypes.default_int_dtype()
    assert dtypes.dtype_of([np.float16(1), 2.0]) == np.float16
    assert dtypes.dtype_of((np.int8(1), [np.int8(2)])) == np.int8
    assert dtypes.dtype_of(np.float32) == np.float32
    with pytest.raises(ValueError, match="dtype_of"):
        dtypes.dtype_of(None)
    with pytest.raises(TypeError, match="dtype_of"):
        dtypes.dtype_of(np.array(["a"]))
    with pytest.raises(TypeError, match="dtype_of"):
        dtypes.dtype_of(object())


def test_check_user_dtype(x64):
    assert dtypes.check_user_dtype(None, "f") is None
    assert dtypes.check_user_dtype(ml_dtypes.int4, "f") == np.dtype(ml_dtypes.int4)
    assert dtypes.check_user_dtype(dtypes.float0, "f") == dtypes.float0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dtypes.check_user_dtype("float64", "f") == dtypes.default_float_dtype()
        assert dtypes.check_user_dtype(float, "f", warn=True) == dtypes.default_float_dtype()
    if not x64:
        with pytest.warns(UserWarning, match="jnp.zeros: .*float64.*float32"):
            dtypes.check_user_dtype(np.float64, "jnp.zeros", warn=True)
    unsupported = [object, "S3", "U3", np.void, "datetime64[s]", np.longdouble, "complex32"]
    for dtype in unsupported:
        with pytest.raises(TypeError, match="jnp.ones: "):
            dtypes.check_user_dtype(dtype, "jnp.ones")
    with pytest.raises(TypeError, match="jnp.ones: cannot interpret"):
        dtypes.check_user_dtype("nonsense", "jnp.ones")


# -- issubdtype, finfo, iinfo, scalar_type_of ------------------------------------------------------

_F8 = ml_dtypes.float8_e4m3fn


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (ml_dtypes.bfloat16, np.floating, True),
        (ml_dtypes.float8_e5m2, np.inexact, True),
        (ml_dtypes.int4, np.signedinteger, True),
        (ml_dtypes.uint4, np.unsignedinteger, True),
        (ml_dtypes.uint4, np.signedinteger, False),
        (ml_dtypes.bfloat16, ml_dtypes.bfloat16, True),
        (ml_dtypes.bfloat16, np.float16, False),
        (np.float16, ml_dtypes.bfloat16, False),
        (ml_dtypes.bfloat16, np.number, True),
        (ml_dtypes.bfloat16, np.generic, True),
        (ml_dtypes.bfloat16, np.complexfloating, False),
        (float, np.floating, True),
        (np.float32, float, False),
        (np.float64, float, True),
        (np.int32, int, False),
        (np.bool_, int, False),
        (dtypes.float0, np.generic, True),
        (dtypes.float0, np.void, True),
        (dtypes.float0, np.number, False),
        (None, np.floating, True),
        (bool, np.bool_, True),
        (_F8, np.number, True),
        ("float32", "float64", False),
        (np.dtype("int8"), np.integer, True),
    ],
)
def test_issubdtype_examples(a, b, expected):
    assert dtypes.issubdtype(a, b) is expected


def test_issubdtype_groups():
    groups = [
        (np.bool_, {np.dtype(bool)}),
        (np.signedinteger, set(dtypes.SIGNED_INTEGER_DTYPES)),
        (np.unsignedinteger, set(dtypes.UNSIGNED_INTEGER_DTYPES)),
        (np.integer, set(dtypes.INTEGER_DTYPES)),
        (np.floating, set(dtypes.FLOATING_DTYPES)),
        (np.complexfloating, set(dtypes.COMPLEX_DTYPES)),
        (np.inexact, set(dtypes.INEXACT_DTYPES)),
        (np.number, set(dtypes.SUPPORTED_DTYPES) - {np.dtype(bool)}),
    ]
    for abstract, members in groups:
        for dtype in dtypes.SUPPORTED_DTYPES:
            assert dtypes.issubdtype(dtype, abstract) == (dtype in members), (dtype, abstract)
    for a, b in itertools.product(dtypes.SUPPORTED_DTYPES, repeat=2):
        assert dtypes.issubdtype(a, b) == (a == b)
    with pytest.raises(TypeError):
        dtypes.issubdtype("float32", "floating")


def test_finfo_and_iinfo(x64):
    assert dtypes.finfo(ml_dtypes.bfloat16).eps == ml_dtypes.finfo(ml_dtypes.bfloat16).eps
    assert dtypes.finfo(_F8).max == float(ml_dtypes.finfo(_F8).max)
    assert dtypes.finfo(float).dtype == np.float64  # not canonicalized, as in JAX
    assert dtypes.finfo(np.complex64).dtype == np.float32
    assert dtypes.finfo(_WeakArray(np.float16)).dtype == np.float16
    assert dtypes.finfo(np.ones(2, np.float32)).bits == 32
    assert (dtypes.iinfo(ml_dtypes.int4).min, dtypes.iinfo(ml_dtypes.int4).max) == (-8, 7)
    assert dtypes.iinfo(int).dtype == np.int64
    assert dtypes.iinfo(_WeakArray(np.uint8)).max == 255
    with pytest.raises(ValueError):
        dtypes.finfo(np.int32)
    with pytest.raises(ValueError):
        dtypes.iinfo(np.float32)
    # The public names are the classes, as JAX's: isinstance works.
    assert isinstance(jnp.finfo(jnp.ones(2)), jnp.finfo)
    assert isinstance(public_dtypes.iinfo(np.int8), jnp.iinfo)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, int),
        (np.uint8(1), int),
        (np.ones(3, "u1"), int),
        (np.ones(3, ml_dtypes.bfloat16), float),
        (np.ones(3, ml_dtypes.float8_e5m2), float),
        (np.ones(3, ml_dtypes.int4), int),
        (True, bool),
        (1j, complex),
        (np.float32, float),
        (np.dtype("f4"), float),
    ],
)
def test_scalar_type_of(value, expected):
    assert dtypes.scalar_type_of(value) is expected


def test_scalar_type_of_errors():
    with pytest.raises(TypeError, match="scalar_type_of"):
        dtypes.scalar_type_of(np.zeros(2, dtypes.float0))
    with pytest.raises(TypeError):
        dtypes.scalar_type_of("abc")
    with pytest.raises(ValueError):
        dtypes.scalar_type_of(None)


def test_float0_and_itemsize_bits():
    assert dtypes.float0 == np.dtype([("float0", "V")]) and dtypes.float0.itemsize == 0
    bits = {"bool": 8, "int2": 2, "int4": 4, "uint4": 4, "float4_e2m1fn": 4, "float6_e2m3fn": 6}
    bits |= {"float8_e5m2": 8, "bfloat16": 16, "float32": 32, "complex64": 64}
    for name, n in bits.items():
        assert dtypes.itemsize_bits(_DTYPE_OF_CODE[_code(name)]) == n
    with pytest.raises(ValueError):
        dtypes.itemsize_bits(dtypes.float0)


def test_public_module_reexports():
    for name in public_dtypes.__all__:
        assert getattr(public_dtypes, name) is getattr(dtypes, name)
    assert public_dtypes.bfloat16 is ml_dtypes.bfloat16
    expected = {"canonicalize_dtype", "float0", "issubdtype", "result_type", "promote_types"}
    expected |= {"bfloat16", "finfo", "iinfo", "is_weakly_typed", "scalar_type_of"}
    assert expected <= set(public_dtypes.__all__)
