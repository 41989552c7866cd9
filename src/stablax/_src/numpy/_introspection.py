"""Questions about values rather than computations: ndim/shape/size, isscalar, iscomplexobj,
isrealobj, iterable, can_cast, broadcast_shapes. None of them emits an op."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src.lax._argcheck import int_or_int_sequence, static_shapes
from stablax._src.numpy._promotion import broadcast_shapes as _broadcast_shapes


def _is_array(x: Any) -> bool:
    return hasattr(x, "aval") or isinstance(x, (np.ndarray, np.generic))


def ndim(a: Any) -> int:
    """The number of dimensions of an array or array-like (`np.ndim`)."""
    return len(shape(a))


def shape(a: Any) -> tuple[int, ...]:
    """The shape of an array or array-like, without transferring it (`np.shape`)."""
    if hasattr(a, "aval"):
        return tuple(a.aval.shape)
    if hasattr(a, "shape"):
        return tuple(a.shape)
    return np.shape(a)


def size(a: Any, axis: Any = None) -> int:
    """The number of elements, in total or along the given axes (`np.size`)."""
    dims = shape(a)
    if axis is None:
        return int(np.prod(dims, dtype=np.int64))
    axes = int_or_int_sequence(axis, "axis", "jnp.size")
    for a in axes:
        if not -len(dims) <= a < len(dims):
            raise ValueError(
                f"jnp.size: axis {a} is out of bounds for array of dimension {len(dims)}"
            )
    return int(np.prod([dims[i] for i in axes], dtype=np.int64))


def isscalar(element: Any) -> bool:
    """True for Python and NumPy scalars and for 0-d arrays (JAX's rule, unlike NumPy's)."""
    if _is_array(element):
        return ndim(element) == 0
    return np.isscalar(element)


def _dtype_of_obj(x: Any) -> np.dtype:
    dt = getattr(x, "dtype", None)
    if dt is not None and not isinstance(x, type):
        return np.dtype(dt)
    return np.asarray(x).dtype


def iscomplexobj(x: Any) -> bool:
    """Whether `x` has a complex dtype (whatever its values)."""
    if x is None:
        return False
    return dtypes.issubdtype(_dtype_of_obj(x), np.complexfloating)


def isrealobj(x: Any) -> bool:
    """Whether `x` has a non-complex dtype."""
    return not iscomplexobj(x)


def iterable(y: Any) -> bool:
    """Whether `iter(y)` works (`np.iterable`)."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """Whether dtype `arg1` is `arg2` or below it in NumPy's type hierarchy (`np.issubdtype`),
    with bfloat16 and float8 under np.floating and int4 under np.integer."""
    return dtypes.issubdtype(arg1, arg2)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """NumPy's `can_cast` on dtypes (Python scalars are refused, as NEP 50 and JAX do)."""
    if dtypes.is_python_scalar(from_):
        raise TypeError(
            "can_cast() does not support Python ints, floats, and complex because the result "
            "used to depend on the value."
        )
    if to is not None and not isinstance(to, (type, str, np.dtype)) and not hasattr(to, "dtype"):
        raise TypeError(f"jnp.can_cast: cannot interpret {to!r} as a data type")  # JAX's first
    if not isinstance(casting, str):  # NumPy's check (JAX's can_cast is NumPy's)
        raise TypeError(f"jnp.can_cast: casting must be str, not {type(casting).__name__}")
    if casting not in _CASTINGS:
        raise ValueError(
            f"jnp.can_cast: casting must be one of {', '.join(map(repr, _CASTINGS))} "
            f"(got {casting!r})"
        )
    if from_ is None or to is None:  # NumPy would read None as float64; JAX refuses it
        raise TypeError(f"jnp.can_cast: None is not a dtype (from_={from_!r}, to={to!r})")
    if isinstance(from_, (type, str, np.dtype)):
        src = from_
    elif getattr(from_, "dtype", None) is not None:
        src = _dtype_of_obj(from_)
    else:  # NumPy's class: an object that is neither a dtype nor an array
        raise TypeError(f"jnp.can_cast: from_ must be a dtype or an array, got {from_!r}")
    return bool(np.can_cast(np.dtype(src), np.dtype(to), casting))


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape NumPy's broadcasting gives `shapes` (ints count as 1-D shapes)."""
    shapes = static_shapes(shapes, "jnp.broadcast_shapes", ints=True)
    if not shapes:
        return ()
    return _broadcast_shapes("jnp.broadcast_shapes", *shapes)
