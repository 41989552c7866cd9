"""Abstract values: the shape, dtype and weak-type flag that tracing and dispatch key on."""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir


class ShapedArray:
    """Shape, dtype and weak-type flag of an array: everything tracing needs to know about it.

    Instances are interned, so equality and hashing are identity-based and run in C: avals key
    the jit and eager-dispatch caches on the hot path. The intern table holds them weakly (it is
    bounded by the avals alive) and is filled under a lock, so two threads never make two.
    """

    __slots__ = ("shape", "dtype", "weak_type", "__weakref__")
    _interned: weakref.WeakValueDictionary[tuple, ShapedArray] = weakref.WeakValueDictionary()
    _lock = threading.Lock()

    def __new__(cls, shape: Sequence[int], dtype: Any, weak_type: bool = False) -> ShapedArray:
        key = (tuple(shape), dtype, weak_type)
        self = cls._interned.get(key)
        if self is None:
            shape, dtype = tuple(int(d) for d in shape), np.dtype(dtype)
            canonical = (shape, dtype, bool(weak_type))
            with cls._lock:
                self = cls._interned.get(canonical)
                if self is None:
                    self = object.__new__(cls)
                    self.shape, self.dtype, self.weak_type = canonical
                    cls._interned[canonical] = self
                cls._interned[key] = self
        return self

    def __reduce__(self):
        return (ShapedArray, (self.shape, self.dtype, self.weak_type))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def strip_weak_type(self) -> ShapedArray:
        return self if not self.weak_type else ShapedArray(self.shape, self.dtype, False)

    def str_short(self, short_dtypes: bool = False) -> str:
        """`float32[2,3]` (`f32[2,3]` with `short_dtypes`), without the weak type."""
        name = short_dtype_name(self.dtype) if short_dtypes else str(self.dtype)
        return f"{name}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __str__(self) -> str:
        # JAX's: a weak type is a leading ~ (`jax.typeof(1.0)` prints `~float32[]`).
        return f"{'~' if self.weak_type else ''}{self.str_short()}"


class ExtendedShapedArray(ShapedArray):
    """The abstract value of an array of an extended dtype: `typeof(random.key(0))` prints
    `key<fry>[]`. Only `typeof` makes one (tracing sees a key array's uint32 data), so it is
    compared by value rather than interned."""

    __slots__ = ()

    def __new__(cls, shape: Sequence[int], dtype: Any, weak_type: bool = False):
        self = object.__new__(cls)
        self.shape, self.dtype, self.weak_type = tuple(int(d) for d in shape), dtype, False
        return self

    def __reduce__(self):
        return (ExtendedShapedArray, (self.shape, self.dtype))

    def update(self, shape=None, dtype=None, weak_type=None) -> ExtendedShapedArray:
        return ExtendedShapedArray(
            self.shape if shape is None else shape, self.dtype if dtype is None else dtype
        )

    def __eq__(self, other: Any) -> bool:
        return (
            type(other) is ExtendedShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
        )

    def __hash__(self) -> int:
        return hash((self.shape, str(self.dtype)))


def short_dtype_name(dtype: Any) -> str:
    """JAX's short dtype names: f32, bf16, i8, u32, c64, bool; key dtypes as they print."""
    if not isinstance(dtype, np.dtype):
        return str(dtype)
    return (
        dtype.name.replace("float", "f")
        .replace("uint", "u")
        .replace("int", "i")
        .replace("complex", "c")
    )


def short(x: Any) -> str:
    """`float32[2,3]` for anything with an aval, shape/dtype, or a Python scalar."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval.str_short()
    if isinstance(x, ShapedArray):
        return x.str_short()
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return f"{np.dtype(x.dtype).name}[{','.join(map(str, x.shape))}]"
    return type(x).__name__


def aval_of(x: Any) -> ShapedArray:
    """The abstract value of an operand (arrays, tracers, NumPy values, Python scalars)."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if dtypes.is_python_scalar(x):  # weakly typed, except bools (as in JAX)
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    if hasattr(x, "__jax_array__"):
        return aval_of(x.__jax_array__())
    array = np.asarray(x)
    # None or another object NumPy only wraps (as to_array), or strings and bytes
    if array.dtype == object or array.dtype.kind in "SU":
        raise TypeError(
            f"Value {x!r} of type {type(x).__name__} is not a valid stablax array type"
            f"{mlir.where_suffix()}"
        )
    return ShapedArray(array.shape, dtypes.canonicalize_dtype(array.dtype), False)
