"""`jax.typeof` under the alias: stablax's, extended to typed key arrays (flax nnx's rngs).

stablax's `ShapedArray` holds NumPy dtypes only, so a key array's abstract value is a
`KeyShapedArray` here: its shape, its `key<fry>` dtype, and the sharding every aval reports.
"""

from __future__ import annotations

from typing import Any

from stablax._compat import sharding as _sharding
from stablax._src.api_extras import typeof as _typeof
from stablax._src.random.keys import PRNGKeyArray


class KeyShapedArray:
    """The abstract value of a typed key array (`jax.typeof(jax.random.key(0))`)."""

    __slots__ = ("dtype", "shape", "weak_type")

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape = tuple(shape)
        self.dtype = dtype
        self.weak_type = False

    ndim = property(lambda self: len(self.shape))
    sharding = property(_sharding.aval_sharding)

    @property
    def size(self) -> int:
        out = 1
        for d in self.shape:
            out *= d
        return out

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, KeyShapedArray)
            and self.shape == other.shape
            and self.dtype == other.dtype
        )

    def __hash__(self) -> int:
        return hash((self.shape, str(self.dtype)))

    def __repr__(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"

    str_short = __repr__


def typeof(x: Any) -> Any:
    """The abstract value of `x`: shape, dtype, weak type and (one-device) sharding."""
    if isinstance(x, PRNGKeyArray):
        return KeyShapedArray(x.shape, x.dtype)
    return _typeof(x)
