"""Argument checks shared by the samplers: shapes, dtypes, broadcast-compatible parameters."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes


def shape_arg(name: str, shape: Any) -> tuple[int, ...]:
    """A `shape=` argument as a tuple of non-negative Python ints."""
    if not isinstance(shape, Sequence):
        raise TypeError(f"random.{name}: shape must be a sequence of integers, got {shape!r}")
    try:
        out = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(
            f"random.{name}: shape must be a sequence of concrete integers, got {shape!r}"
        ) from None
    if any(d < 0 for d in out):
        raise ValueError(f"random.{name}: shape must be non-negative, got {out}")
    return out


def dtype_arg(name: str, dtype: Any, kind: str, default: type = float) -> np.dtype:
    """A `dtype=` argument, canonicalized (with JAX's warning when x64 truncates it).

    `kind` is "float" (real floating), "inexact" (float or complex), "int", "uint" or "any".
    """
    out = dtypes.check_user_dtype(default if dtype is None else dtype, f"random.{name}", warn=True)
    if kind == "any":
        return out
    ok = {
        "float": dtypes.issubdtype(out, np.floating),
        "inexact": dtypes.issubdtype(out, np.inexact),
        "int": dtypes.issubdtype(out, np.integer),
        "uint": dtypes.issubdtype(out, np.unsignedinteger),
    }[kind]
    if not ok:
        what = {
            "float": "a float",
            "inexact": "a float or complex",
            "int": "an int",
            "uint": "an unsigned int",
        }[kind]
        raise ValueError(f"dtype argument to `{name}` must be {what} dtype, got {out}")
    return out


def check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    """Raises unless the parameters broadcast to exactly `shape`."""
    if not param_shapes:
        return
    try:
        joined = np.broadcast_shapes(shape, *param_shapes)
    except ValueError:
        joined = None
    if joined != shape:
        raise ValueError(
            f"{name} parameter shapes must be broadcast-compatible with shape argument, and the "
            f"result of broadcasting the shapes must equal the shape argument, but got result "
            f"{joined} for shape argument {shape}."
        )


def broadcast_shape(name: str, shape: Any, *params: Any) -> tuple[int, ...]:
    """`shape` if given (checked against the parameters), else the parameters' broadcast shape."""
    param_shapes = [np.shape(p) for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*param_shapes)) if param_shapes else ()
    shape = shape_arg(name, shape)
    check_shape(name, shape, *param_shapes)
    return shape


def check_safe_cast(name: str, dtype: np.dtype, *args: Any) -> None:
    """Rejects parameters whose promotion with `dtype` is not `dtype` (JAX's `safe_to_cast`)."""
    for arg in args:
        if dtypes.result_type(arg, dtype) != dtype:
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type "
                f"{np.dtype(dtypes.dtype_of(arg))} to {dtype}"
            )
