"""What `jit` accepts: each leaf argument's abstract value and device buffer, and how static and
donated positions and keyword arguments map onto the function's parameters."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dtypes, runtime
from stablax._src.array import Array, from_host
from stablax._src.avals import ShapedArray
from stablax._src.dispatch import check_python_int, to_array
from stablax._src.shape_dtype_struct import ShapeDtypeStruct

SCALAR_TYPES = (bool, int, float, complex)


def leaf_aval(x: Any) -> ShapedArray:
    """The abstract value a leaf argument is traced with (Python scalars are weakly typed)."""
    if type(x) is Array:
        return x.aval
    if type(x) in SCALAR_TYPES:  # Python bools are never weakly typed
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    if isinstance(x, Array):
        return x.aval
    if isinstance(x, core.Tracer):
        raise core.UnexpectedTracerError(
            f"A traced value {x.aval.str_short()} was passed to a jitted function outside the "
            "transformation that created it."
        )
    if isinstance(x, (np.ndarray, np.generic)):
        dtypes.check_user_dtype(x.dtype, "jit")
        return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype), False)
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), x.weak_type)
    if hasattr(x, "__jax_array__"):
        return leaf_aval(x.__jax_array__())
    if isinstance(x, SCALAR_TYPES):  # subclasses such as numpy.float64 registered as float
        return ShapedArray((), dtypes.python_scalar_dtype(x), not isinstance(x, bool))
    raise TypeError(
        f"jit: argument of type {type(x).__name__} is not a valid stablax type; pass arrays, "
        "scalars or pytrees of them, or mark the argument static (static_argnums)."
    )


def leaf_buffer(x: Any, aval: ShapedArray) -> runtime.Buffer:
    if type(x) is Array:
        return x._buf
    array = to_array(x) if not isinstance(x, (np.ndarray, np.generic)) else None
    if array is None:
        array = from_host(x)
    return array._buf


# --- static arguments and keywords ---------------------------------------------------------------


def signature_or_none(fun: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def as_tuple(nums: int | Sequence[int]) -> tuple[int, ...]:
    return (nums,) if isinstance(nums, int) else tuple(nums)


def check_argnums(sig, argnums, what: str) -> None:
    """Static or donated positions must exist, as JAX checks (unless the function takes *args)."""
    if sig is None or not argnums:
        return
    kinds = [q.kind for q in sig.parameters.values()]
    p = inspect.Parameter
    if p.VAR_POSITIONAL in kinds:
        return
    count = sum(k in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for k in kinds)
    if max(argnums) >= count or min(argnums) < -count:
        raise ValueError(
            f"jit: {what}={tuple(sorted(argnums))} names positions the function does not have: "
            f"it accepts {count} positional arguments"
        )


def resolve_static(sig, static_argnums, static_argnames):
    """Normalises static_argnums/argnames to each other, as JAX does, where the signature allows."""
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    nums, names = set(static_argnums), set(static_argnames)
    if sig is not None:
        params = list(sig.parameters.values())
        p = inspect.Parameter
        positional = [q for q in params if q.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        nums = {n + len(positional) if n < 0 else n for n in nums}
        for n in list(nums):
            if n < len(positional) and positional[n].kind == p.POSITIONAL_OR_KEYWORD:
                names.add(positional[n].name)
        for i, q in enumerate(positional):
            if q.name in names:
                nums.add(i)
    return tuple(sorted(nums)), tuple(sorted(names))


def positional_names(fun: Callable) -> tuple | None:
    """The parameters of a plain function a keyword argument can also fill by position, in order
    (a positional-only one is None, which no keyword names); None for other callables and for
    wrappers, whose signature (which resolved static_argnames) may not be their code's."""
    if (
        type(fun) is not types.FunctionType
        or hasattr(fun, "__wrapped__")
        or hasattr(fun, "__signature__")
    ):
        return None
    code = fun.__code__
    posonly = code.co_posonlyargcount
    return (None,) * posonly + code.co_varnames[posonly : code.co_argcount]


def keywords_by_position(args: tuple, kwargs: dict, names: tuple) -> tuple | None:
    """The call's arguments all by position when its keywords name exactly the parameters after
    its positional ones (`f(x, train=True)` for `def f(x, train)`), so that it can take the hit
    path; else None. Python binds the two calls alike, and static_argnames are also argnums."""
    end = len(args) + len(kwargs)
    if end > len(names):
        return None
    try:
        return args + tuple([kwargs[name] for name in names[len(args) : end]])
    except KeyError:
        return None


def donated_leaf_indices(
    args: tuple, in_tree: Any, static_argnums: frozenset[int], donate_argnums: frozenset[int]
) -> list[int]:
    """The flat leaf positions of the donated arguments of a call, read off `in_tree` (the
    treedef of its (dynamic positional arguments, keyword arguments)): no second flatten."""
    if not donate_argnums:
        return []
    dynamic_args = iter(in_tree.children()[0].children())
    indices, position = [], 0
    for i in range(len(args)):
        if i in static_argnums:
            continue
        n = next(dynamic_args).num_leaves
        if i in donate_argnums:
            indices.extend(range(position, position + n))
        position += n
    return indices


def check_python_ints(args: tuple, statics: Any) -> None:
    """A Python int argument of a jitted function inlined into a trace is parsed as at the top
    level (and as in JAX): outside the default integer type it is an OverflowError."""
    for i, a in enumerate(args):
        if type(a) is int and i not in statics:
            check_python_int(a)
