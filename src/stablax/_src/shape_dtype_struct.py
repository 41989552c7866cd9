"""`ShapeDtypeStruct`: the shape, dtype and other static attributes of an array, standing in for
it (what `eval_shape` returns and `jit(f).lower` accepts), with JAX's API."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax._src import dtypes


class ShapeDtypeStruct:
    """A container for the shape, dtype, sharding and weak type of an array.

    Args:
      shape: a sequence of integers.
      dtype: a dtype-like object (required), or a typed key dtype.
      sharding: an optional placement (a device's sharding).
      weak_type: whether it stands for a weakly typed value (a Python scalar).
      manual_axis_type, is_ref: JAX's attributes for shard_map and Refs, kept as given.

    Instances are immutable, hashable and compare equal when every attribute does.
    """

    __slots__ = ("shape", "dtype", "sharding", "weak_type", "manual_axis_type", "is_ref")

    def __init__(
        self,
        shape: Any,
        dtype: Any,
        *,
        sharding: Any = None,
        weak_type: bool = False,
        manual_axis_type: Any = None,
        is_ref: bool = False,
    ) -> None:
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        if not isinstance(dtype, dtypes.ExtendedDType):
            dtype = np.dtype(dtype)
        for name, value in (
            ("shape", tuple(shape)),
            ("dtype", dtype),
            ("sharding", sharding),
            ("weak_type", weak_type),
            ("manual_axis_type", manual_axis_type),
            ("is_ref", is_ref),
        ):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise RuntimeError(
            f"Cannot reassign attributes ({name}) of immutable ShapeDtypeStruct objects"
        )

    size = property(lambda self: math.prod(self.shape))
    ndim = property(lambda self: len(self.shape))

    @classmethod
    def like(cls, x: Any) -> ShapeDtypeStruct:
        """The ShapeDtypeStruct of an array, tracer, key array or Python scalar."""
        if isinstance(x, ShapeDtypeStruct):
            return x
        aval = getattr(x, "aval", None)
        if aval is not None and hasattr(aval, "weak_type"):
            return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)
        if dtypes.is_python_scalar(x):
            dtype = dtypes.canonicalize_dtype(dtypes.python_scalar_dtype(x))
            return cls((), dtype, weak_type=type(x) is not bool)
        dtype = getattr(x, "dtype", None)
        if isinstance(dtype, dtypes.ExtendedDType):
            return cls(x.shape, dtype)
        value = np.asarray(x)
        return cls(value.shape, dtypes.canonicalize_dtype(value.dtype))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def _key(self) -> tuple:
        return (
            self.shape,
            self.dtype,
            self.sharding,
            self.weak_type,
            self.manual_axis_type,
            self.is_ref,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def update(self, **kwargs: Any) -> ShapeDtypeStruct:
        """A copy with some attributes replaced: `s.update(shape=(4,), weak_type=True)`."""
        unknown = set(kwargs) - set(self.__slots__)
        if unknown:
            raise TypeError(f"ShapeDtypeStruct.update got unexpected arguments {sorted(unknown)}")
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(kwargs)
        shape, dtype = values.pop("shape"), values.pop("dtype")
        return ShapeDtypeStruct(shape, dtype, **values)

    def __repr__(self) -> str:
        name = getattr(self.dtype, "name", str(self.dtype))
        sharding = f", sharding={self.sharding}" if self.sharding is not None else ""
        weak = f", weak_type={self.weak_type}" if self.weak_type else ""
        mat = f", manual_axis_type={self.manual_axis_type}" if self.manual_axis_type else ""
        ref = f", is_ref={self.is_ref}" if self.is_ref else ""
        return f"{type(self).__name__}(shape={self.shape}, dtype={name}{sharding}{weak}{mat}{ref})"

    __str__ = __repr__

    def __reduce__(self):
        return (_rebuild, (self._key(),))


def _rebuild(key: tuple) -> ShapeDtypeStruct:
    shape, dtype, sharding, weak_type, manual_axis_type, is_ref = key
    return ShapeDtypeStruct(
        shape,
        dtype,
        sharding=sharding,
        weak_type=weak_type,
        manual_axis_type=manual_axis_type,
        is_ref=is_ref,
    )
