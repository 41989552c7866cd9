"""Scalar-type constructors: `jnp.float32(3)` makes an Array, `jnp.float32` still names a dtype.

As in JAX, each name is a class whose metaclass converts on call and compares, hashes and checks
instances like the NumPy scalar type, so it works wherever NumPy expects a dtype.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from stablax._src.numpy._asarray import asarray


class _ScalarMeta(type):
    dtype: np.dtype

    @property
    def __numpy_dtype__(cls) -> np.dtype:
        return cls.dtype

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other: Any) -> bool:
        return cls is other or other == cls.dtype.type

    def __ne__(cls, other: Any) -> bool:
        return not cls == other

    def __call__(cls, x: Any) -> Any:
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type)


def _make_scalar_type(name: str, np_type: Any) -> _ScalarMeta:
    dtype = np.dtype(np_type)
    doc = (
        f"A stablax scalar constructor of type {dtype.name}: calling it returns a {dtype.name} "
        "Array (as `jnp.asarray(x, dtype)`), while the class itself works as a dtype argument."
    )
    return _ScalarMeta(name, (), {"dtype": dtype, "__module__": "stablax.numpy", "__doc__": doc})


bool_ = _make_scalar_type("bool", np.bool_)
int8 = _make_scalar_type("int8", np.int8)
int16 = _make_scalar_type("int16", np.int16)
int32 = _make_scalar_type("int32", np.int32)
int64 = _make_scalar_type("int64", np.int64)
uint8 = _make_scalar_type("uint8", np.uint8)
uint16 = _make_scalar_type("uint16", np.uint16)
uint32 = _make_scalar_type("uint32", np.uint32)
uint64 = _make_scalar_type("uint64", np.uint64)
float16 = _make_scalar_type("float16", np.float16)
float32 = _make_scalar_type("float32", np.float32)
float64 = _make_scalar_type("float64", np.float64)
complex64 = _make_scalar_type("complex64", np.complex64)
complex128 = _make_scalar_type("complex128", np.complex128)
bfloat16 = _make_scalar_type("bfloat16", ml_dtypes.bfloat16)
int2 = _make_scalar_type("int2", ml_dtypes.int2)
int4 = _make_scalar_type("int4", ml_dtypes.int4)
uint2 = _make_scalar_type("uint2", ml_dtypes.uint2)
uint4 = _make_scalar_type("uint4", ml_dtypes.uint4)
float4_e2m1fn = _make_scalar_type("float4_e2m1fn", ml_dtypes.float4_e2m1fn)
float6_e2m3fn = _make_scalar_type("float6_e2m3fn", ml_dtypes.float6_e2m3fn)
float6_e3m2fn = _make_scalar_type("float6_e3m2fn", ml_dtypes.float6_e3m2fn)
float8_e3m4 = _make_scalar_type("float8_e3m4", ml_dtypes.float8_e3m4)
float8_e4m3 = _make_scalar_type("float8_e4m3", ml_dtypes.float8_e4m3)
float8_e4m3b11fnuz = _make_scalar_type("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _make_scalar_type("float8_e4m3fn", ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make_scalar_type("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = _make_scalar_type("float8_e5m2", ml_dtypes.float8_e5m2)
float8_e5m2fnuz = _make_scalar_type("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _make_scalar_type("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu)

# NumPy's aliases, bound to the same constructors (JAX: int_ is int64, float_ float64, ...).
bool = bool_  # noqa: A001
int_ = int64
uint = uint64
float_ = double = float64
single = float32
complex_ = cdouble = complex128
csingle = complex64

SCALAR_TYPE_NAMES = (
    "bool_ bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 "
    "complex64 complex128 bfloat16 int2 int4 uint2 uint4 float4_e2m1fn float6_e2m3fn "
    "float6_e3m2fn float8_e3m4 float8_e4m3 float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz "
    "float8_e5m2 float8_e5m2fnuz float8_e8m0fnu int_ uint float_ double single complex_ "
    "cdouble csingle"
).split()
