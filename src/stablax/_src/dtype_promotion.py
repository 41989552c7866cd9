"""JAX's type promotion: the lattice of dtypes and weak types, and `result_type` and
`promote_types` that join in it, canonical for the x64 mode and cached per mode; and
`parse_dtype`, the one reading of a dtype specifier that the dtype layer shares.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src.config import config
from stablax._src.dtype_tables import (
    BF16,
    BOOL,
    C64,
    C128,
    CANONICAL,
    DEFAULT,
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    KIND,
    NARROW_FLOATING_DTYPES,
    NARROW_INTEGER_DTYPES,
    PY_DTYPE,
    PY_KIND,
    PY_SCALAR_TYPES,
    SUPPORTED_DTYPE_SET,
    SUPPORTED_DTYPES,
    U8,
    U16,
    U32,
    U64,
    VALID_SET,
    DTypeLike,
    float0,
    remember,
    scalar_base_dtype,
)


class TypePromotionError(ValueError):
    """Raised when dtypes have no implicit promotion path, as `jax.dtypes.TypePromotionError`."""


# -- The promotion lattice -------------------------------------------------------------------------


class _Weak:
    """A weak-type node of the lattice: the type of a Python int, float or complex."""

    __slots__ = ("kind", "name")

    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name

    def __repr__(self) -> str:
        return self.name


_WEAK_NODE = {k: _Weak(k, f"weak {t.__name__}") for t, k in PY_KIND.items() if t is not bool}
_WEAK_NODE["u"] = _WEAK_NODE["i"]  # a weak unsigned value joins the lattice as a weak int
_WEAK_I, _WEAK_F, _WEAK_C = _WEAK_NODE["i"], _WEAK_NODE["f"], _WEAK_NODE["c"]


_NARROW_SET = frozenset(NARROW_INTEGER_DTYPES + NARROW_FLOATING_DTYPES)


def _strict_edges() -> dict[Any, tuple]:
    # jax_numpy_dtype_promotion="strict": only weak types promote (to any type of their kind or
    # above); two different concrete dtypes never meet.
    ints = tuple(d for d in SUPPORTED_DTYPES if d.kind in "iu")
    floats = tuple(d for d in SUPPORTED_DTYPES if d.kind == "f" or d in NARROW_FLOATING_DTYPES)
    return {
        _WEAK_I: (_WEAK_F, *ints),
        _WEAK_F: (_WEAK_C, *floats),
        _WEAK_C: tuple(d for d in SUPPORTED_DTYPES if d.kind == "c"),
    }


def _upper_bounds(x64: bool, strict: bool = False) -> dict[Any, frozenset]:
    # Direct edges, upwards. The one difference between modes: uint32 meets int32 at int64 with
    # x64 on, at int32 with it off (jnp.promote_types(uint32, int32) -> int32 at 32 bits).
    edges: dict[Any, tuple] = (
        _strict_edges()
        if strict
        else {
            BOOL: (_WEAK_I,),
            _WEAK_I: (U8, I8, *NARROW_INTEGER_DTYPES),
            U8: (U16, I16),
            U16: (U32, I32),
            U32: (U64, I64 if x64 else I32),
            U64: (_WEAK_F,),
            I8: (I16,),
            I16: (I32,),
            I32: (I64,),
            I64: (_WEAK_F,),
            _WEAK_F: (BF16, F16, _WEAK_C, *NARROW_FLOATING_DTYPES),
            BF16: (F32,),
            F16: (F32,),
            F32: (F64, C64),
            F64: (C128,),
            _WEAK_C: (C64,),
            C64: (C128,),
        }
    )
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


# Indexed by mode = x64 + 2 * strict (jax_numpy_dtype_promotion).
_UPPER_BOUNDS = tuple(_upper_bounds(bool(m & 1), bool(m & 2)) for m in range(4))
_JOIN_CACHE: tuple[dict, ...] = ({}, {}, {}, {})


def _join(nodes: frozenset, x64: bool, fn: str, strict: bool = False) -> Any:
    # Least upper bound of lattice nodes, or TypePromotionError.
    mode = x64 + 2 * strict
    cache = _JOIN_CACHE[mode]
    out = cache.get(nodes)
    if out is None:
        bounds = _UPPER_BOUNDS[mode]
        common = frozenset.intersection(*(bounds[n] for n in nodes))
        # The least common bound is the one whose own upper bounds are all the common ones.
        least = [n for n in common if bounds[n] == common]
        if not least:
            raise _promotion_error(nodes, fn, strict)
        out = cache[nodes] = least[0]
    return out


def _promotion_error(nodes: frozenset, fn: str, strict: bool = False) -> TypePromotionError:
    names = ", ".join(sorted(n.name for n in nodes))
    if strict:
        return TypePromotionError(
            f"{fn}: input dtypes ({names}) have no available implicit dtype promotion path when "
            "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
            "output type, or set jax_numpy_dtype_promotion=standard."
        )
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


# -- result_type and promote_types -----------------------------------------------------------------

_RESULT_CACHE: tuple[dict, ...] = ({}, {}, {}, {})  # by x64 + 2 * strict
_PROMOTE_CACHE: tuple[dict, ...] = ({}, {}, {}, {})
_PY_WEAK_TYPES = frozenset((int, float, complex))


_DTYPE_META = type(np.dtype)  # the metaclass of numpy's dtype classes; isinstance is slow


def _arg_key(x: Any) -> tuple[Any, bool]:
    # A cheap hashable stand-in for one argument: (dtype-ish, weak flag).
    t = type(x)
    if t in PY_SCALAR_TYPES:
        return t, t is not bool
    if type(t) is _DTYPE_META:  # a np.dtype
        return x, False
    if isinstance(x, type):
        return x, x in _PY_WEAK_TYPES
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return dt, bool(getattr(x, "weak_type", False))
    if isinstance(x, (int, float, complex)):  # subclasses of Python scalars are not weak
        return scalar_base_dtype(t), False
    return x, False


_UNREADABLE = "cannot interpret {spec!r} as a dtype"
_UNSUPPORTED = (
    "dtype {dtype} is not supported; stablax arrays hold bool, integer, floating (including"
    " bfloat16 and float8) and complex dtypes"
)
# result_type's words for an operand
_UNDETERMINED = "cannot determine the dtype of {spec!r}"
_UNSUPPORTED_OPERAND = (
    "{dtype} is not a supported dtype; stablax arrays hold bool, integer, floating and complex"
    " dtypes"
)


def parse_dtype(
    spec: DTypeLike,
    fn: str,
    unreadable: str = _UNREADABLE,
    unsupported: str | None = _UNSUPPORTED,
) -> np.dtype:
    """`spec` as a `np.dtype` (not canonicalized), else TypeError "`fn`: ...".

    `unreadable` is the message for what `np.dtype` refuses (formatted with `spec`);
    `unsupported` for a dtype stablax arrays cannot hold (formatted with `dtype`), or None to
    let such a dtype through.
    """
    if hasattr(spec, "aval"):  # an Array or a tracer: np.dtype would read its .dtype
        raise ValueError(
            f"{fn}: passing an array as a dtype argument is not supported; instead of "
            "dtype=arr use dtype=arr.dtype"
        )
    try:
        dt = np.dtype(spec)
    except TypeError as e:
        raise TypeError(f"{fn}: {unreadable.format(spec=spec)}") from e
    if unsupported is not None and dt not in VALID_SET:
        raise TypeError(f"{fn}: {unsupported.format(dtype=dt)}")
    return dt


def _resolve(spec: Any, weak: bool, x64: bool, fn: str) -> tuple[np.dtype, Any, bool]:
    # -> (canonical dtype, lattice node, weak flag) for one _arg_key entry.
    if spec is None:
        dt = DEFAULT[x64]["f"]
        return dt, dt, False
    if isinstance(spec, type) and spec in PY_SCALAR_TYPES:
        if spec is bool:
            return BOOL, BOOL, False
        return PY_DTYPE[x64][spec], _WEAK_NODE[PY_KIND[spec]], True
    dt = CANONICAL[x64][parse_dtype(spec, fn, _UNDETERMINED, _UNSUPPORTED_OPERAND)]
    if weak and dt != BOOL and dt != float0:
        return dt, _WEAK_NODE[KIND[dt]], True
    return dt, dt, weak


def _weak_result(node: Any, x64: bool) -> tuple[np.dtype, bool]:
    # A weak result takes the default dtype of its kind; bool is never weak.
    kind = node.kind if isinstance(node, _Weak) else KIND.get(node, "b")
    if kind == "b":
        return node, False
    return DEFAULT[x64][kind], True


def _result_type_slow(
    args: tuple, x64: bool, fn: str, strict: bool = False
) -> tuple[np.dtype, bool]:
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
    if all(weaks) and not strict:
        # All weak: join the dtypes themselves, then widen the result to its kind's default
        # (weak float16 + weak float16 -> weak float32, weak uint8 + weak uint32 -> weak uint32).
        return _weak_result(_join(frozenset(dts), x64, fn), x64)
    node = _join(frozenset(r[1] for r in resolved), x64, fn, strict)
    if isinstance(node, _Weak):
        return DEFAULT[x64][node.kind], True
    return CANONICAL[x64][node], False


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
    strict = config.jax_numpy_dtype_promotion == "strict"
    try:
        out = _RESULT_CACHE[x64 + 2 * strict][tuple(map(_arg_key, args))]
    except (KeyError, TypeError):  # a miss, or an unhashable argument such as a list
        out = _result_type_miss(args, x64, strict)
    return out if return_weak_type_flag else out[0]


def _result_type_miss(args: tuple, x64: bool, strict: bool = False) -> tuple[np.dtype, bool]:
    out = _result_type_slow(args, x64, "result_type", strict)
    remember(_RESULT_CACHE[x64 + 2 * strict], tuple(map(_arg_key, args)), out)
    return out


_WEAK_AS_64 = {"i": I64, "f": F64, "c": C128}


def _promote_node(x: DTypeLike) -> Any:
    if x is int or x is float or x is complex:
        return _WEAK_NODE[PY_KIND[x]]
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
    strict = config.jax_numpy_dtype_promotion == "strict"
    cache = _PROMOTE_CACHE[x64 + 2 * strict]
    try:
        return cache[a, b]
    except (KeyError, TypeError):
        pass
    nodes = frozenset((_promote_node(a), _promote_node(b)))
    node = _join(nodes, x64, "promote_types", strict)
    out = _WEAK_AS_64[node.kind] if isinstance(node, _Weak) else node
    remember(cache, (a, b), out)
    return out
