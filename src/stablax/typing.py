"""`stablax.typing`: the annotations of `jax.typing` (`ArrayLike`, `DTypeLike`)."""

from __future__ import annotations

from typing import Any, Protocol, Union, runtime_checkable

import numpy as np

from stablax._src.basearray import Array


@runtime_checkable
class SupportsDType(Protocol):
    """Anything with a `dtype` attribute (an array, a ShapeDtypeStruct, ...)."""

    @property
    def dtype(self) -> np.dtype: ...


# What stablax.numpy functions accept as an array argument (tracers are `Array`s too).
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]  # noqa: UP007
# What they accept as a dtype argument.
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]  # noqa: UP007

__all__ = ["ArrayLike", "DTypeLike"]
