"""Argument handling shared by stablax.scipy: JAX's inexact promotion with its TypeError for
non-array arguments, and typed constants."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes
from stablax._src.arraylike import check_arraylike
from stablax._src.numpy._promotion import promote_args_inexact, promote_dtypes_inexact


def inexact_args(name: str, *args: Any) -> list[Any]:
    """The arguments promoted to one inexact dtype and broadcast together (as JAX's
    `promote_args_inexact`)."""
    check_arraylike(name, *args)
    return promote_args_inexact(name, *args)


def inexact_dtypes(name: str, *args: Any) -> list[Any]:
    """The arguments promoted to one inexact dtype, without broadcasting."""
    check_arraylike(name, *args)
    return promote_dtypes_inexact(*args)


def is_complex(x: Any) -> bool:
    return dtypes.issubdtype(x.dtype, np.complexfloating)


def reject_complex(name: str, x: Any) -> None:
    if is_complex(x):
        raise ValueError(f"{name} does not support complex-valued inputs.")


def const(x: Any, value: Any) -> np.ndarray:
    """`value` as a 0-d NumPy array of `x`'s dtype (a strongly typed constant)."""
    return np.asarray(value, dtype=x.dtype)


def horner(coefficients: Any, x: Any) -> Any:
    """The polynomial with `coefficients` (highest degree first) at `x`, by Horner's rule."""
    coefficients = list(coefficients)
    result = jnp.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        result = result * x + const(x, c)
    return result
