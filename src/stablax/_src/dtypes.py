"""The dtype layer as the library imports it (`dtypes.<name>`): x64 canonicalization, the dtypes
of values and Python scalars, `dtype=` checks and queries (issubdtype, finfo, iinfo). Promotion
(and the dtype parser) lives in dtype_promotion.py, the dtype tables in dtype_tables.py; both are
re-exported here.

Every function reads `config.x64_enabled` at call time; answers are cached per x64 mode.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np

from stablax._src.config import config

# `name as name` marks a re-export: the library uses those names as `dtypes.<name>`.
from stablax._src.dtype_promotion import TypePromotionError as TypePromotionError
from stablax._src.dtype_promotion import parse_dtype
from stablax._src.dtype_promotion import promote_types as promote_types
from stablax._src.dtype_promotion import result_type as result_type
from stablax._src.dtype_tables import (
    C64,
    C128,
    CANONICAL,
    DEFAULT,
    F32,
    F64,
    I32,
    I64,
    KIND,
    PY_DTYPE,
    PY_SCALAR_TYPES,
    TO_32,
    U32,
    U64,
    VALID_SET,
    DTypeLike,
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    int2,
    int4,
    remember,
    scalar_base_dtype,
    uint2,
    uint4,
)
from stablax._src.dtype_tables import COMPLEX_DTYPES as COMPLEX_DTYPES
from stablax._src.dtype_tables import FLOATING_DTYPES as FLOATING_DTYPES
from stablax._src.dtype_tables import INEXACT_DTYPES as INEXACT_DTYPES
from stablax._src.dtype_tables import INTEGER_DTYPES as INTEGER_DTYPES
from stablax._src.dtype_tables import SIGNED_INTEGER_DTYPES as SIGNED_INTEGER_DTYPES
from stablax._src.dtype_tables import SUPPORTED_DTYPE_SET as SUPPORTED_DTYPE_SET
from stablax._src.dtype_tables import SUPPORTED_DTYPES as SUPPORTED_DTYPES
from stablax._src.dtype_tables import UNSIGNED_INTEGER_DTYPES as UNSIGNED_INTEGER_DTYPES
from stablax._src.dtype_tables import bfloat16 as bfloat16
from stablax._src.dtype_tables import float0 as float0

# -- Canonicalization and defaults -----------------------------------------------------------------

_CANON_CACHE: tuple[dict, dict] = ({}, {})


def canonicalize_dtype(dtype: DTypeLike, allow_extended_dtype: bool = False) -> np.dtype:
    """Returns the dtype stablax uses for `dtype` in the current x64 mode.

    With x64 off, 64-bit types map to their 32-bit forms; `None` means the default float. Like
    `jax.dtypes.canonicalize_dtype`, unsupported dtypes pass through (see `check_user_dtype`).

    Args:
      dtype: anything `np.dtype` accepts, or None.
      allow_extended_dtype: an extended dtype (a typed key's) is returned as it is; without
        this it raises ValueError, as in JAX.

    Returns:
      A `np.dtype`, e.g. float32 for `float64`, `float` or `None` when x64 is off.
    """
    x64 = config.x64_enabled
    try:
        return _CANON_CACHE[x64][dtype]
    except (KeyError, TypeError):
        if isinstance(dtype, ExtendedDType):
            if not allow_extended_dtype:
                raise ValueError(
                    f"Internal: canonicalize_dtype called on extended dtype {dtype} with "
                    "allow_extended_dtype=False"
                ) from None
            return dtype
        return _canonicalize_slow(dtype, x64, "canonicalize_dtype")


def _canonicalize_slow(dtype: DTypeLike, x64: bool, fn: str) -> np.dtype:
    if dtype is None:
        out = DEFAULT[x64]["f"]
    else:
        out = parse_dtype(dtype, fn, unsupported=None)  # passed through, as JAX
        if not x64:
            out = TO_32.get(out, out)
    remember(_CANON_CACHE[x64], dtype, out)
    return out


def default_float_dtype() -> np.dtype:
    """float32, or float64 with x64 on: the dtype of Python floats and of `jnp.zeros(3)`."""
    return F64 if config.x64_enabled else F32


def default_int_dtype() -> np.dtype:
    """int32, or int64 with x64 on: the dtype of Python ints."""
    return I64 if config.x64_enabled else I32


def default_uint_dtype() -> np.dtype:
    """uint32, or uint64 with x64 on: the dtype a weakly typed unsigned value widens to."""
    return U64 if config.x64_enabled else U32


def default_complex_dtype() -> np.dtype:
    """complex64, or complex128 with x64 on: the dtype of Python complex numbers."""
    return C128 if config.x64_enabled else C64


def to_inexact_dtype(dtype: DTypeLike) -> np.dtype:
    """The floating dtype an integer or bool `dtype` computes in (JAX's mapping): float32 for
    bool and integers of up to 32 bits, float64 for 64-bit integers; inexact dtypes map to
    themselves."""
    dtype = np.dtype(dtype)
    if issubdtype(dtype, np.inexact):
        return dtype
    if dtype.itemsize == 8 and issubdtype(dtype, np.integer):
        return canonicalize_dtype(F64)
    return F32


def is_python_scalar(x: Any) -> bool:
    """True for a Python bool, int, float or complex (exact types; numpy scalars are not)."""
    return type(x) in PY_SCALAR_TYPES


def python_scalar_dtype(x: Any) -> np.dtype:
    """Returns the canonical dtype of a Python scalar or scalar type (int -> int32 or int64).

    Args:
      x: a Python bool, int, float or complex, or one of those types (subclasses too).

    Returns:
      bool, or the default int, float or complex dtype of the current x64 mode.
    """
    x64 = config.x64_enabled
    t = x if isinstance(x, type) else type(x)
    out = PY_DTYPE[x64].get(t)
    if out is None:
        out = CANONICAL[x64].get(scalar_base_dtype(t))
        if out is None:
            raise TypeError(
                f"python_scalar_dtype: expected a Python bool, int, float or complex, got {x!r}"
            )
    return out


def is_weakly_typed(x: Any) -> bool:
    """True for Python int, float and complex values and for arrays with `weak_type=True`.

    Python bools and numpy values are not weak, as in JAX.
    """
    t = type(x)
    if t is int or t is float or t is complex:
        return True
    if t is bool or isinstance(x, type):
        return False
    return bool(getattr(x, "weak_type", False))


def dtype_of(x: Any) -> np.dtype:
    """Returns the canonical dtype of a value: array, tracer, numpy or Python scalar, or list.

    Python scalars take the default dtype of their kind; lists and tuples promote their leaves
    as `jnp.asarray` does. A dtype specifier (np.float32, 'int8') is also accepted.

    Args:
      x: the value.

    Returns:
      A supported `np.dtype`, canonical for the current x64 mode.
    """
    x64 = config.x64_enabled
    out = PY_DTYPE[x64].get(type(x))
    if out is not None:
        return out
    if not isinstance(x, type):
        dt = getattr(x, "dtype", None)
        if dt is not None:
            out = CANONICAL[x64].get(dt)
            if out is not None:
                return out
    return _dtype_of_slow(x, x64)


def _leaves(x: list | tuple) -> Iterator[Any]:
    for item in x:
        if type(item) in (list, tuple):
            yield from _leaves(item)
        else:
            yield item


def _dtype_of_slow(x: Any, x64: bool) -> np.dtype:
    if type(x) in (list, tuple):
        leaves = list(_leaves(x))
        return result_type(*leaves) if leaves else DEFAULT[x64]["f"]
    if x is None:
        raise ValueError("dtype_of: cannot determine the dtype of None")
    if isinstance(x, (int, float, complex)):  # subclasses of Python scalars, e.g. IntEnum
        return python_scalar_dtype(x)
    spec = x if isinstance(x, (type, str, np.dtype)) else getattr(x, "dtype", None)
    if spec is None:
        raise TypeError(f"dtype_of: cannot determine the dtype of {x!r}")
    dt = _canonicalize_slow(spec, x64, "dtype_of")
    if dt not in VALID_SET:
        raise TypeError(f"dtype_of: {dt} is not a supported dtype (from {type(x).__name__})")
    return dt


_USER_CACHE: tuple[dict, dict] = ({}, {})


def check_user_dtype(dtype: DTypeLike, name: str, *, warn: bool = False) -> np.dtype | None:
    """Validates a dtype (a `dtype=` argument, or an incoming array's) and canonicalizes it.

    Args:
      dtype: the dtype to check; None stays None, so callers pick their own default.
      name: the public function's name, for the error message (e.g. "jnp.zeros").
      warn: warn, as JAX does for explicit `dtype=` arguments, when a 64-bit dtype is truncated
        because x64 is off. Python types (float, int) never warn.

    Returns:
      The canonical `np.dtype`, or None when `dtype` is None.

    Raises:
      TypeError: for dtypes stablax cannot hold (object, strings, datetimes, float128, ...).
    """
    if dtype is None:
        return None
    x64 = config.x64_enabled
    try:
        out, truncated = _USER_CACHE[x64][dtype]
    except (KeyError, TypeError):
        out, truncated = _check_user_slow(dtype, name, x64)
    if truncated and warn:
        warnings.warn(
            f"{name}: explicitly requested dtype {np.dtype(dtype)} is not available and is"
            f" truncated to {out}. Enable 64-bit types with"
            " stablax.config.update('jax_enable_x64', True) or JAX_ENABLE_X64=1.",
            UserWarning,
            stacklevel=3,
        )
    return out


def _check_user_slow(dtype: DTypeLike, name: str, x64: bool) -> tuple[np.dtype, bool]:
    if isinstance(dtype, type) and dtype in PY_SCALAR_TYPES:
        entry = (PY_DTYPE[x64][dtype], False)
    else:
        dt = parse_dtype(dtype, name)
        out = CANONICAL[x64][dt]
        entry = (out, out != dt)
    remember(_USER_CACHE[x64], dtype, entry)
    return entry


# -- Queries ---------------------------------------------------------------------------------------

# numpy's class tree does not know the ml_dtypes types; give each its abstract parent.
_ABSTRACT_PARENT: dict[type, type] = {dt.type: np.floating for dt in FLOATING_DTYPES}
_ABSTRACT_PARENT.update({dt.type: np.signedinteger for dt in SIGNED_INTEGER_DTYPES})
_ABSTRACT_PARENT.update({dt.type: np.unsignedinteger for dt in UNSIGNED_INTEGER_DTYPES})


class extended(np.generic):  # noqa: N801 (JAX's name)
    """Abstract scalar type of the dtypes NumPy does not have (typed PRNG keys).

    `issubdtype(key.dtype, dtypes.extended)` is True for a typed key array, as in JAX.
    """


class prng_key(extended):  # noqa: N801
    """Abstract scalar type of typed PRNG key dtypes (`key<fry>`)."""


class ExtendedDType:
    """Base of dtype objects beyond NumPy's: `type` is their scalar class (below `extended`)."""

    type: type = extended
    name: str = "extended"


def _scalar_class(x: DTypeLike) -> type:
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    if isinstance(x, ExtendedDType):
        return x.type
    return np.dtype(x).type


@functools.lru_cache(maxsize=1024)
def _issubdtype_cached(a: DTypeLike, b: DTypeLike) -> bool:
    return _issubdtype(a, b)


def _issubdtype(a: DTypeLike, b: DTypeLike) -> bool:
    a_class, b_class = _scalar_class(a), _scalar_class(b)
    if issubclass(a_class, b_class):
        return True
    parent = _ABSTRACT_PARENT.get(a_class)
    return parent is not None and issubclass(parent, b_class)


def issubdtype(a: DTypeLike, b: DTypeLike) -> bool:
    """`np.issubdtype` that also files bfloat16 and float8 under np.floating, int4 under np.integer.

    Args:
      a: a dtype specifier.
      b: a dtype specifier or an abstract numpy class (np.floating, np.integer, np.number, ...).

    Returns:
      Whether `a` is `b` or below it in numpy's type hierarchy.
    """
    try:
        return _issubdtype_cached(a, b)
    except TypeError:  # unhashable arguments
        return _issubdtype(a, b)


# jnp.finfo and jnp.iinfo are ml_dtypes' classes, as in JAX: NumPy's limits extended to
# bfloat16, float8 and int4, read from a dtype, a type, a name or anything with a `.dtype`;
# not canonicalized (`finfo(float)` describes float64 whatever the x64 mode).
finfo = ml_dtypes.finfo
iinfo = ml_dtypes.iinfo


_SCALAR_TYPE_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def scalar_type_of(x: Any) -> type:
    """The Python scalar type (bool, int, float or complex) matching the dtype of `x`.

    Implements `jax.dtypes.scalar_type_of`: uint8 -> int, bfloat16 -> float.
    """
    kind = KIND.get(dtype_of(x))
    if kind is None:
        raise TypeError(f"scalar_type_of: invalid scalar value {x!r}")
    return _SCALAR_TYPE_OF_KIND[kind]


_NARROW_BITS = {np.dtype(t): 2 for t in (int2, uint2)}
_NARROW_BITS.update({np.dtype(t): 4 for t in (int4, uint4, float4_e2m1fn)})
_NARROW_BITS.update({np.dtype(t): 6 for t in (float6_e2m3fn, float6_e3m2fn)})


def itemsize_bits(dtype: DTypeLike) -> int:
    """Bits per element: 4 for int4, 6 for float6 (numpy's itemsize rounds them up to a byte)."""
    dt = np.dtype(dtype)
    if dt == float0:
        raise ValueError("itemsize_bits: float0 has no storage")
    return _NARROW_BITS.get(dt, dt.itemsize * 8)
