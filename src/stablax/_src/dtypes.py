"""The dtype layer: supported dtypes, x64 canonicalization, weak types and JAX's promotion lattice.

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

DTypeLike = Any  # np.dtype, a scalar type (np.float32, float, ...), a name ('float32') or None


class TypePromotionError(ValueError):
    """Raised when dtypes have no implicit promotion path, as `jax.dtypes.TypePromotionError`."""


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
_BOOL = _d(bool)
_I8, _I16, _I32, _I64 = _d(np.int8), _d(np.int16), _d(np.int32), _d(np.int64)
_U8, _U16, _U32, _U64 = _d(np.uint8), _d(np.uint16), _d(np.uint32), _d(np.uint64)
_BF16, _F16, _F32, _F64 = _d(bfloat16), _d(np.float16), _d(np.float32), _d(np.float64)
_C64, _C128 = _d(np.complex64), _d(np.complex128)

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
SIGNED_INTEGER_DTYPES = (_d(int2), _d(int4), _I8, _I16, _I32, _I64)
UNSIGNED_INTEGER_DTYPES = (_d(uint2), _d(uint4), _U8, _U16, _U32, _U64)
INTEGER_DTYPES = SIGNED_INTEGER_DTYPES + UNSIGNED_INTEGER_DTYPES
FLOATING_DTYPES = (_BF16, _F16, _F32, _F64, *NARROW_FLOATING_DTYPES)
COMPLEX_DTYPES = (_C64, _C128)
INEXACT_DTYPES = FLOATING_DTYPES + COMPLEX_DTYPES
# Every dtype a stablax array may have (float0 aside), in a fixed order.
SUPPORTED_DTYPES = (_BOOL, *INTEGER_DTYPES, *INEXACT_DTYPES)
SUPPORTED_DTYPE_SET = frozenset(SUPPORTED_DTYPES)
# The everyday dtypes, the ones op tests sweep over.
STANDARD_DTYPES = (_BOOL, _I8, _I16, _I32, _I64, _U8, _U16, _U32, _U64)
STANDARD_DTYPES += (_BF16, _F16, _F32, _F64, _C64, _C128)

_NARROW_SET = frozenset(NARROW_INTEGER_DTYPES + NARROW_FLOATING_DTYPES)
_VALID_SET = SUPPORTED_DTYPE_SET | {float0}
_KIND = {_BOOL: "b"}
_KIND.update({dt: "i" for dt in SIGNED_INTEGER_DTYPES})
_KIND.update({dt: "u" for dt in UNSIGNED_INTEGER_DTYPES})
_KIND.update({dt: "f" for dt in FLOATING_DTYPES})
_KIND.update({dt: "c" for dt in COMPLEX_DTYPES})

# Tables below are pairs indexed by `config.x64_enabled` (False -> 0, True -> 1).
_TO_32 = {_I64: _I32, _U64: _U32, _F64: _F32, _C128: _C64}
_CANONICAL = ({dt: _TO_32.get(dt, dt) for dt in _VALID_SET}, {dt: dt for dt in _VALID_SET})
_DEFAULT = (
    {"b": _BOOL, "i": _I32, "u": _U32, "f": _F32, "c": _C64},
    {"b": _BOOL, "i": _I64, "u": _U64, "f": _F64, "c": _C128},
)
_PY_SCALAR_TYPES = frozenset((bool, int, float, complex))
_PY_KIND = {bool: "b", int: "i", float: "f", complex: "c"}
_PY_DTYPE = tuple({t: table[k] for t, k in _PY_KIND.items()} for table in _DEFAULT)


# -- The promotion lattice -------------------------------------------------------------------------


class _Weak:
    """A weak-type node of the lattice: the type of a Python int, float or complex."""

    __slots__ = ("kind", "name")

    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name

    def __repr__(self) -> str:
        return self.name


_WEAK_NODE = {k: _Weak(k, f"weak {t.__name__}") for t, k in _PY_KIND.items() if t is not bool}
_WEAK_NODE["u"] = _WEAK_NODE["i"]  # a weak unsigned value joins the lattice as a weak int
_WEAK_I, _WEAK_F, _WEAK_C = _WEAK_NODE["i"], _WEAK_NODE["f"], _WEAK_NODE["c"]


def _upper_bounds(x64: bool) -> dict[Any, frozenset]:
    # Direct edges, upwards. The one difference between modes: uint32 meets int32 at int64 with
    # x64 on, at int32 with it off (jnp.promote_types(uint32, int32) -> int32 at 32 bits).
    edges: dict[Any, tuple] = {
        _BOOL: (_WEAK_I,),
        _WEAK_I: (_U8, _I8, *NARROW_INTEGER_DTYPES),
        _U8: (_U16, _I16),
        _U16: (_U32, _I32),
        _U32: (_U64, _I64 if x64 else _I32),
        _U64: (_WEAK_F,),
        _I8: (_I16,),
        _I16: (_I32,),
        _I32: (_I64,),
        _I64: (_WEAK_F,),
        _WEAK_F: (_BF16, _F16, _WEAK_C, *NARROW_FLOATING_DTYPES),
        _BF16: (_F32,),
        _F16: (_F32,),
        _F32: (_F64, _C64),
        _F64: (_C128,),
        _WEAK_C: (_C64,),
        _C64: (_C128,),
    }
    bounds: dict[Any, frozenset] = {}

    def visit(node: Any) -> frozenset:
        if node not in bounds:
            above = {node}
            for parent in edges.get(node, ()):
                above |= visit(parent)
            bounds[node] = frozenset(above)
        return bounds[node]

    for node in (*SUPPORTED_DTYPES, _WEAK_I, _WEAK_F, _WEAK_C):
        visit(node)
    return bounds


_UPPER_BOUNDS = (_upper_bounds(False), _upper_bounds(True))
_JOIN_CACHE: tuple[dict, dict] = ({}, {})


def _join(nodes: frozenset, x64: bool, fn: str) -> Any:
    # Least upper bound of lattice nodes, or TypePromotionError.
    cache = _JOIN_CACHE[x64]
    out = cache.get(nodes)
    if out is None:
        bounds = _UPPER_BOUNDS[x64]
        common = frozenset.intersection(*(bounds[n] for n in nodes))
        # The least common bound is the one whose own upper bounds are all the common ones.
        least = [n for n in common if bounds[n] == common]
        if not least:
            raise _promotion_error(nodes, fn)
        out = cache[nodes] = least[0]
    return out


def _promotion_error(nodes: frozenset, fn: str) -> TypePromotionError:
    names = ", ".join(sorted(n.name for n in nodes))
    narrow = sorted((n for n in nodes if n in _NARROW_SET), key=lambda n: n.name)
    why, cast = "", "float32"
    if narrow and narrow[0] in NARROW_INTEGER_DTYPES:
        why, cast = f" {narrow[0].name} promotes implicitly only with bool and weak ints.", "int32"
    elif narrow:
        why = (
            f" {narrow[0].name} promotes implicitly only with bool, 8- to 64-bit integers, weak"
            " ints and weak floats."
        )
    return TypePromotionError(
        f"{fn}: no implicit promotion path between {names}.{why}"
        f" Cast explicitly, e.g. x.astype('{cast}')."
    )


# -- Canonicalization and defaults -----------------------------------------------------------------

_CACHE_LIMIT = 4096
_CANON_CACHE: tuple[dict, dict] = ({}, {})


def canonicalize_dtype(dtype: DTypeLike) -> np.dtype:
    """Returns the dtype stablax uses for `dtype` in the current x64 mode.

    With x64 off, 64-bit types map to their 32-bit forms; `None` means the default float. Like
    `jax.dtypes.canonicalize_dtype`, unsupported dtypes pass through (see `check_user_dtype`).

    Args:
      dtype: anything `np.dtype` accepts, or None.

    Returns:
      A `np.dtype`, e.g. float32 for `float64`, `float` or `None` when x64 is off.
    """
    x64 = config.x64_enabled
    try:
        return _CANON_CACHE[x64][dtype]
    except (KeyError, TypeError):
        return _canonicalize_slow(dtype, x64, "canonicalize_dtype")


def _canonicalize_slow(dtype: DTypeLike, x64: bool, fn: str) -> np.dtype:
    if dtype is None:
        out = _DEFAULT[x64]["f"]
    else:
        try:
            out = np.dtype(dtype)
        except TypeError as e:
            raise TypeError(f"{fn}: cannot interpret {dtype!r} as a dtype") from e
        if not x64:
            out = _TO_32.get(out, out)
    cache = _CANON_CACHE[x64]
    if len(cache) < _CACHE_LIMIT:
        try:
            cache[dtype] = out
        except TypeError:
            pass
    return out


def default_float_dtype() -> np.dtype:
    """float32, or float64 with x64 on: the dtype of Python floats and of `jnp.zeros(3)`."""
    return _F64 if config.x64_enabled else _F32


def default_int_dtype() -> np.dtype:
    """int32, or int64 with x64 on: the dtype of Python ints."""
    return _I64 if config.x64_enabled else _I32


def default_uint_dtype() -> np.dtype:
    """uint32, or uint64 with x64 on: the dtype a weakly typed unsigned value widens to."""
    return _U64 if config.x64_enabled else _U32


def default_complex_dtype() -> np.dtype:
    """complex64, or complex128 with x64 on: the dtype of Python complex numbers."""
    return _C128 if config.x64_enabled else _C64


def is_python_scalar(x: Any) -> bool:
    """True for a Python bool, int, float or complex (exact types; numpy scalars are not)."""
    return type(x) in _PY_SCALAR_TYPES


def python_scalar_dtype(x: Any) -> np.dtype:
    """Returns the canonical dtype of a Python scalar or scalar type (int -> int32 or int64).

    Args:
      x: a Python bool, int, float or complex, or one of those types (subclasses too).

    Returns:
      bool, or the default int, float or complex dtype of the current x64 mode.
    """
    x64 = config.x64_enabled
    t = x if isinstance(x, type) else type(x)
    out = _PY_DTYPE[x64].get(t)
    if out is None:
        out = _CANONICAL[x64].get(_scalar_base_dtype(t))
        if out is None:
            raise TypeError(
                f"python_scalar_dtype: expected a Python bool, int, float or complex, got {x!r}"
            )
    return out


def _scalar_base_dtype(t: type) -> np.dtype | None:
    # Subclasses of Python scalars (IntEnum, ...) count as their base type, uncanonicalized.
    for base in (bool, int, float, complex):
        if issubclass(t, base):
            return _PY_DTYPE[1][base]
    return None


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
    out = _PY_DTYPE[x64].get(type(x))
    if out is not None:
        return out
    if not isinstance(x, type):
        dt = getattr(x, "dtype", None)
        if dt is not None:
            out = _CANONICAL[x64].get(dt)
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
        return result_type(*leaves) if leaves else _DEFAULT[x64]["f"]
    if x is None:
        raise ValueError("dtype_of: cannot determine the dtype of None")
    if isinstance(x, (int, float, complex)):  # subclasses of Python scalars, e.g. IntEnum
        return python_scalar_dtype(x)
    spec = x if isinstance(x, (type, str, np.dtype)) else getattr(x, "dtype", None)
    if spec is None:
        raise TypeError(f"dtype_of: cannot determine the dtype of {x!r}")
    dt = _canonicalize_slow(spec, x64, "dtype_of")
    if dt not in _VALID_SET:
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
    if isinstance(dtype, type) and dtype in _PY_SCALAR_TYPES:
        entry = (_PY_DTYPE[x64][dtype], False)
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError as e:
            raise TypeError(f"{name}: cannot interpret {dtype!r} as a dtype") from e
        if dt not in _VALID_SET:
            raise TypeError(
                f"{name}: dtype {dt} is not supported; stablax arrays hold bool, integer,"
                " floating (including bfloat16 and float8) and complex dtypes"
            )
        out = _CANONICAL[x64][dt]
        entry = (out, out != dt)
    cache = _USER_CACHE[x64]
    if len(cache) < _CACHE_LIMIT:
        try:
            cache[dtype] = entry
        except TypeError:
            pass
    return entry


# -- Promotion -------------------------------------------------------------------------------------

_RESULT_CACHE: tuple[dict, dict] = ({}, {})
_PROMOTE_CACHE: tuple[dict, dict] = ({}, {})
_PY_WEAK_TYPES = frozenset((int, float, complex))


_DTYPE_META = type(np.dtype)  # the metaclass of numpy's dtype classes; isinstance is slow


def _arg_key(x: Any) -> tuple[Any, bool]:
    # A cheap hashable stand-in for one argument: (dtype-ish, weak flag).
    t = type(x)
    if t in _PY_SCALAR_TYPES:
        return t, t is not bool
    if type(t) is _DTYPE_META:  # a np.dtype
        return x, False
    if isinstance(x, type):
        return x, x in _PY_WEAK_TYPES
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return dt, bool(getattr(x, "weak_type", False))
    if isinstance(x, (int, float, complex)):  # subclasses of Python scalars are not weak
        return _scalar_base_dtype(t), False
    return x, False


def _resolve(spec: Any, weak: bool, x64: bool, fn: str) -> tuple[np.dtype, Any, bool]:
    # -> (canonical dtype, lattice node, weak flag) for one _arg_key entry.
    if spec is None:
        dt = _DEFAULT[x64]["f"]
        return dt, dt, False
    if isinstance(spec, type) and spec in _PY_SCALAR_TYPES:
        if spec is bool:
            return _BOOL, _BOOL, False
        return _PY_DTYPE[x64][spec], _WEAK_NODE[_PY_KIND[spec]], True
    try:
        dt = np.dtype(spec)
    except TypeError as e:
        raise TypeError(f"{fn}: cannot determine the dtype of {spec!r}") from e
    if dt not in _VALID_SET:
        raise TypeError(
            f"{fn}: {dt} is not a supported dtype; stablax arrays hold bool, integer, floating"
            " and complex dtypes"
        )
    dt = _CANONICAL[x64][dt]
    if weak and dt != _BOOL and dt != float0:
        return dt, _WEAK_NODE[_KIND[dt]], True
    return dt, dt, weak


def _weak_result(node: Any, x64: bool) -> tuple[np.dtype, bool]:
    # A weak result takes the default dtype of its kind; bool is never weak.
    kind = node.kind if isinstance(node, _Weak) else _KIND.get(node, "b")
    if kind == "b":
        return node, False
    return _DEFAULT[x64][kind], True


def _result_type_slow(args: tuple, x64: bool, fn: str) -> tuple[np.dtype, bool]:
    if not args:
        raise ValueError(f"{fn}: at least one array or dtype is required")
    resolved = [_resolve(*_arg_key(x), x64, fn) for x in args]
    if len(resolved) == 1:
        dt, _, weak = resolved[0]
        return _weak_result(dt, x64) if weak else (dt, False)
    dts = [r[0] for r in resolved]
    weaks = [r[2] for r in resolved]
    if all(dt == dts[0] for dt in dts) and not all(weaks):
        return dts[0], False
    if any(dt == float0 for dt in dts):
        got = ", ".join(map(str, dts))
        raise ValueError(f"{fn}: float0 cannot be promoted with other dtypes; got {got}")
    if all(weaks):
        # All weak: join the dtypes themselves, then widen the result to its kind's default
        # (weak float16 + weak float16 -> weak float32, weak uint8 + weak uint32 -> weak uint32).
        return _weak_result(_join(frozenset(dts), x64, fn), x64)
    node = _join(frozenset(r[1] for r in resolved), x64, fn)
    if isinstance(node, _Weak):
        return _DEFAULT[x64][node.kind], True
    return _CANONICAL[x64][node], False


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """Returns the dtype JAX's promotion rules give for `args`, canonical for the x64 mode.

    Python scalars, the types int/float/complex and arrays with `weak_type=True` are weak: they
    adopt the other operand's dtype. None stands for the default float dtype. Implements
    `jax.dtypes.result_type`.

    Args:
      *args: dtypes, dtype names or scalar types, arrays, numpy or Python scalars, or any
        object with `dtype` (and optionally `weak_type`) attributes.
      return_weak_type_flag: also return whether the result is weakly typed.

    Returns:
      A `np.dtype`, or `(np.dtype, bool)` when `return_weak_type_flag` is set.

    Raises:
      TypePromotionError: when the dtypes have no implicit promotion path
        (e.g. float8_e5m2 with bfloat16).

    Example: `result_type(np.int8, 2.0)` is float32 (weak: True) with x64 off.
    """
    x64 = config.x64_enabled
    try:
        out = _RESULT_CACHE[x64][tuple(map(_arg_key, args))]
    except (KeyError, TypeError):  # a miss, or an unhashable argument such as a list
        out = _result_type_miss(args, x64)
    return out if return_weak_type_flag else out[0]


def _result_type_miss(args: tuple, x64: bool) -> tuple[np.dtype, bool]:
    out = _result_type_slow(args, x64, "result_type")
    cache = _RESULT_CACHE[x64]
    if len(cache) < _CACHE_LIMIT:
        try:
            cache[tuple(map(_arg_key, args))] = out
        except TypeError:
            pass
    return out


_WEAK_AS_64 = {"i": _I64, "f": _F64, "c": _C128}


def _promote_node(x: DTypeLike) -> Any:
    if x is int or x is float or x is complex:
        return _WEAK_NODE[_PY_KIND[x]]
    dt = np.dtype(x)
    if dt not in SUPPORTED_DTYPE_SET:
        raise ValueError(f"promote_types: {dt} is not a valid dtype for type promotion")
    return dt


def promote_types(a: DTypeLike, b: DTypeLike) -> np.dtype:
    """Returns the least dtype both `a` and `b` promote to (`jnp.promote_types`).

    As in JAX, the result is not canonicalized, and the Python types int, float and complex are
    weak: `promote_types(float, np.float16)` is float16, `promote_types(int, float)` float64.

    Args:
      a: a dtype specifier.
      b: a dtype specifier.

    Returns:
      The promoted `np.dtype`.

    Raises:
      TypePromotionError: when there is no implicit promotion path.
    """
    x64 = config.x64_enabled
    cache = _PROMOTE_CACHE[x64]
    try:
        return cache[a, b]
    except (KeyError, TypeError):
        pass
    node = _join(frozenset((_promote_node(a), _promote_node(b))), x64, "promote_types")
    out = _WEAK_AS_64[node.kind] if isinstance(node, _Weak) else node
    if len(cache) < _CACHE_LIMIT:
        try:
            cache[a, b] = out
        except TypeError:
            pass
    return out


# -- Queries ---------------------------------------------------------------------------------------

# numpy's class tree does not know the ml_dtypes types; give each its abstract parent.
_ABSTRACT_PARENT: dict[type, type] = {dt.type: np.floating for dt in FLOATING_DTYPES}
_ABSTRACT_PARENT.update({dt.type: np.signedinteger for dt in SIGNED_INTEGER_DTYPES})
_ABSTRACT_PARENT.update({dt.type: np.unsignedinteger for dt in UNSIGNED_INTEGER_DTYPES})


def _scalar_class(x: DTypeLike) -> type:
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
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


def _info_dtype(x: Any) -> Any:
    if isinstance(x, (type, str, np.dtype)) or x is None:
        return x
    dt = getattr(x, "dtype", None)
    return x if dt is None else dt


def finfo(dtype: Any) -> np.finfo:
    """Machine limits of a floating or complex dtype, bfloat16 and float8 included (`jnp.finfo`).

    Like JAX, not canonicalized: `finfo(float)` describes float64 whatever the x64 mode.
    """
    return ml_dtypes.finfo(_info_dtype(dtype))


def iinfo(dtype: Any) -> np.iinfo:
    """Machine limits of an integer dtype, int4 included (`jnp.iinfo`); not canonicalized."""
    return ml_dtypes.iinfo(_info_dtype(dtype))


_SCALAR_TYPE_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def scalar_type_of(x: Any) -> type:
    """The Python scalar type (bool, int, float or complex) matching the dtype of `x`.

    Implements `jax.dtypes.scalar_type_of`: uint8 -> int, bfloat16 -> float.
    """
    kind = _KIND.get(dtype_of(x))
    if kind is None:
        raise TypeError(f"scalar_type_of: invalid scalar value {x!r}")
    return _SCALAR_TYPE_OF_KIND[kind]


_NARROW_BITS = {_d(int2): 2, _d(uint2): 2, _d(int4): 4, _d(uint4): 4, _d(float4_e2m1fn): 4}
_NARROW_BITS.update({_d(float6_e2m3fn): 6, _d(float6_e3m2fn): 6})


def itemsize_bits(dtype: DTypeLike) -> int:
    """Bits per element: 4 for int4, 6 for float6 (numpy's itemsize rounds them up to a byte)."""
    dt = np.dtype(dtype)
    if dt == float0:
        raise ValueError("itemsize_bits: float0 has no storage")
    return _NARROW_BITS.get(dt, dt.itemsize * 8)
