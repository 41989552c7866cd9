"""Checks of the non-array arguments of public functions (callables, integer sequences, axes),
raising an error that names the function and the argument before anything else uses the value."""

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


def int_arg(value: Any, what: str, name: str, expected: str = "an integer") -> int:
    """`value` as a Python int, else TypeError: "`name`: `what` must be `expected`, ..."."""
    try:
        return operator.index(value)
    except TypeError as error:
        if type(error) is not TypeError:  # a tracer's concretization error says more
            raise
        raise TypeError(
            f"{name}: {what} must be {expected}, got {value!r}{mlir.where_suffix()}"
        ) from None


def int_sequence(
    values: Any, what: str, name: str, expected: str = "a sequence of integers"
) -> tuple[int, ...]:
    """`values` as a tuple of Python ints, else TypeError: "`name`: `what` must be `expected`,
    ..."."""
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
            f"{name}: {what} must be {expected}, got {values!r}{mlir.where_suffix()}"
        ) from None


def int_or_int_sequence(values: Any, what: str, name: str) -> tuple[int, ...]:
    """An integer (a 0-d integer array too, as JAX reads it) as a 1-tuple, or a sequence of
    integers as a tuple."""
    if hasattr(values, "__index__") and not hasattr(values, "__iter__"):
        return (operator.index(values),)
    if getattr(values, "ndim", None) == 0 and hasattr(values, "__index__"):
        return (int_arg(values, what, name, "an integer or a sequence of integers"),)
    return int_sequence(values, what, name)


def lax_ints(values: Any, what: str, opname: str) -> tuple[int, ...]:
    """A lax parameter (`what` of lax.`opname`) as a tuple of Python ints (int_sequence)."""
    return int_sequence(values, what, f"lax.{opname}")


# The words after "is out of bounds for" in an axis error: NumPy's, and lax's.
DIMENSION = "array of dimension"
RANK = "an array of rank"


def axis_arg(
    axis: Any,
    ndim: int,
    name: str,
    *,
    what: str = "axis",
    array: str = DIMENSION,
    convert: Callable[[Any], int] | None = None,
    negative: bool = True,
    located: bool = True,
) -> int:
    """`axis` in [0, ndim), a negative one counting from the end.

    Out of range (or negative, where `negative` is False: lax's reductions), ValueError
    "`name`: `what` `axis` is out of bounds for `array` `ndim`", followed by the user's line
    where `located`. `convert` makes `axis` an int: by default int_arg, whose TypeError names
    the argument; `operator.index` leaves Python's own.
    """
    axis = int_arg(axis, what, name) if convert is None else convert(axis)
    if -ndim <= axis < ndim if negative else 0 <= axis < ndim:
        return axis % ndim
    note = " (lax axes are not negative)" if -ndim <= axis < 0 else ""
    raise ValueError(
        f"{name}: {what} {axis} is out of bounds for {array} {ndim}{note}"
        f"{mlir.where_suffix() if located else ''}"
    )


def axes_arg(
    axes: Any,
    ndim: int,
    name: str,
    *,
    convert: Callable[[Any, str, str], tuple[int, ...]] = int_or_int_sequence,
    repeated: str | None = None,
    what: str = "axis",
    array: str = DIMENSION,
    negative: bool = True,
) -> tuple[int, ...]:
    """`axes` read by `convert` (its TypeError names `what`), each one through axis_arg.

    `repeated`, where given, is the ValueError's message for an axis named twice, formatted with
    `name`, `axes` (the axes as given, as a tuple) and `given` (as given).
    """
    values = convert(axes, what, name)
    result = tuple(
        axis_arg(a, ndim, name, array=array, convert=operator.index, negative=negative)
        for a in values
    )
    if repeated is not None and len(set(result)) != len(result):
        message = repeated.format(name=name, axes=tuple(axes), given=axes)
        raise ValueError(f"{message}{mlir.where_suffix()}")
    return result


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
