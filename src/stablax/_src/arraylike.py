"""The argument check of the libraries (nn, scipy): arrays and scalars, never lists or tuples."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src.array import Array
from stablax._src.core import Tracer

_SCALARS = (bool, int, float, complex, np.generic)


def is_arraylike(x: Any) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, *_SCALARS)) or hasattr(x, "__jax_array__")


def check_arraylike(name: str, *args: Any, allow_none: bool = False) -> None:
    """Raises JAX's TypeError when an argument is a list, tuple or other non-array value."""
    for position, arg in enumerate(args):
        if allow_none and arg is None:
            continue
        if not is_arraylike(arg):
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got {type(arg).__name__} at "
                f"position {position}."
            )
