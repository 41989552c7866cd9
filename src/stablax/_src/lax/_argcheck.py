"""Checks of the non-array arguments of public functions (callables, integer sequences), raising
TypeError that names the function and the argument before anything else uses the value."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir


def check_callable(name: str, value: Any, what: str) -> Callable:
    """`value` if callable, else TypeError: "`name`: `what` must be callable, got ..."."""
    if not callable(value):
        raise TypeError(
            f"{name}: {what} must be callable, got {type(value).__name__} {value!r}"
            f"{mlir.where_suffix()}"
        )
    return value


def int_arg(value: Any, what: str, name: str) -> int:
    """`value` as a Python int, else TypeError naming the argument."""
    try:
        return operator.index(value)
    except TypeError as error:
        if type(error) is not TypeError:  # a tracer's concretization error says more
            raise
        raise TypeError(
            f"{name}: {what} must be an integer, got {value!r}{mlir.where_suffix()}"
        ) from None


def int_sequence(values: Any, what: str, name: str) -> tuple[int, ...]:
    """`values` as a tuple of Python ints, else TypeError naming the argument."""
    try:
        if isinstance(values, (str, bytes, bytearray)) or not hasattr(values, "__iter__"):
            raise TypeError
        if getattr(values, "ndim", 1) != 1:  # an array's rows are not integers
            raise TypeError
        return tuple(operator.index(v) for v in values)
    except TypeError as error:
        if type(error) is not TypeError:  # a tracer's concretization error says more
            raise
        raise TypeError(
            f"{name}: {what} must be a sequence of integers, got {values!r}{mlir.where_suffix()}"
        ) from None


def int_or_int_sequence(values: Any, what: str, name: str) -> tuple[int, ...]:
    """An integer as a 1-tuple, or a sequence of integers as a tuple."""
    if hasattr(values, "__index__") and not hasattr(values, "__iter__"):
        return (operator.index(values),)
    return int_sequence(values, what, name)


def sequence(values: Any, what: str, name: str) -> list[Any]:
    """A list or tuple (or other non-string iterable) as a list, else TypeError."""
    if isinstance(values, (list, tuple)):
        return list(values)
    error = TypeError(
        f"{name}: {what} must be a sequence, got {type(values).__name__}{mlir.where_suffix()}"
    )
    if isinstance(values, (str, bytes, bytearray)) or not hasattr(values, "__iter__"):
        raise error
    try:
        return list(values)
    except TypeError as failure:  # a 0-d array; a tracer's concretization error says more
        if type(failure) is not TypeError:
            raise
        raise error from None


def _empty_first_axis(x: Any) -> bool:
    shape = getattr(x, "shape", None) if hasattr(x, "dtype") else None
    return isinstance(shape, tuple) and shape[:1] == (0,)


def _static_shape(shape: Any, convert: Any, name: str, ints: bool) -> tuple[int, ...]:
    if _empty_first_axis(shape):
        return ()
    if ints and getattr(shape, "ndim", None) == 0 and dtypes.issubdtype(shape.dtype, np.integer):
        return (operator.index(shape),)  # a 0-d integer array is an int, as JAX reads it
    return convert(shape, "each shape", name)


def static_shapes(shapes: Any, name: str, ints: bool = False) -> list[tuple[int, ...]]:
    """Shapes for broadcast_shapes: integer sequences (with `ints`, an int is a 1-D shape, as
    jnp's takes) without negative sizes (TypeError, as JAX)."""
    convert = int_or_int_sequence if ints else int_sequence
    # An array whose first axis is empty iterates as an empty shape, whatever its other axes
    # and dtype (JAX takes a shape as `tuple(shape)`).
    result = [_static_shape(s, convert, name, ints) for s in shapes]
    for shape in result:
        if any(d < 0 for d in shape):
            raise TypeError(
                "Only non-negative indices are allowed when broadcasting static shapes, but got "
                f"shape {shape}.{mlir.where_suffix()}"
            )
    return result
