"""Constructors that read host data: frombuffer, fromstring; fromiter/fromfile refuse, as JAX."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src.numpy._asarray import asarray


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """A 1-D array of the bytes in `buffer` read as `dtype` (`np.frombuffer`), then copied."""
    host = np.frombuffer(buffer, dtype=np.dtype(dtype), count=count, offset=offset)
    return asarray(host, dtype=dtypes.check_user_dtype(dtype, "jnp.frombuffer"))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """A 1-D array from text of numbers separated by `sep` (`np.fromstring`)."""
    host = np.fromstring(string, dtype=np.dtype(dtype), count=count, sep=sep)
    return asarray(host, dtype=dtypes.check_user_dtype(dtype, "jnp.fromstring"))


def _impure(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for "
            f"use with jit and other transformations. Consider jnp.asarray(np.{name}(...)) "
            "instead, outside of any transformation."
        )

    refuse.__name__ = name
    return refuse


fromiter = _impure("fromiter")
fromfile = _impure("fromfile")
