"""NumPy-style argument handling: JAX's dtype promotion and NumPy's shape broadcasting."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.config import config
from stablax._src.dispatch import check_python_int, weak_scalar
from stablax._src.lax._elementwise_common import aval_or_none
from stablax._src.numpy._asarray import asarray


def check_arraylike(name: str, *args: Any) -> None:
    """Raises TypeError unless every argument is an array or a scalar (lists are not, as in
    JAX: converting them element by element is slow and usually unintended)."""
    for position, arg in enumerate(args):
        if not _is_arraylike(arg):
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got {type(arg)} at position "
                f"{position}.{mlir.where_suffix()}"
            )


def check_out_none(name: str, out: Any) -> None:
    """NumPy's `out=` argument: None is accepted, anything else raises as JAX (arrays are
    immutable, so there is nothing to write into)."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to {name} is not supported.")


def _is_arraylike(x: Any) -> bool:
    return (
        isinstance(aval_or_none(x), ShapedArray)
        or isinstance(x, (np.ndarray, np.generic))
        or dtypes.is_python_scalar(x)
        or hasattr(x, "__jax_array__")
    )


def promote_dtypes(*args: Any) -> list[Any]:
    """Converts all arguments to their common JAX result type (weak if all inputs are weak)."""
    check_arraylike("promote_dtypes", *args)
    if len(args) < 2:
        return [_as_operand(a) for a in args]
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [_convert(a, dtype, weak) for a in args]


def promote_dtypes_inexact(*args: Any) -> list[Any]:
    """Like promote_dtypes, then to a float (or complex) type if integral or bool: 32 bits for
    bool and integers of up to 32 bits, 64 for 64-bit integers (JAX's `to_inexact_dtype`)."""
    check_arraylike("promote_dtypes_inexact", *args)
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [_convert(a, dtypes.to_inexact_dtype(dtype), weak) for a in args]


def promote_dtypes_numeric(*args: Any) -> list[Any]:
    """Like promote_dtypes, with bool promoted to int32 (JAX's `to_numeric_dtype`)."""
    check_arraylike("promote_dtypes_numeric", *args)
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if dtype == np.bool_:
        dtype = np.dtype(np.int32)
    return [_convert(a, dtype, weak) for a in args]


def promote_dtypes_as_given(*args: Any) -> list[Any]:
    """The arguments as operands with their own dtypes (Python scalars weakly typed)."""
    return [_as_operand(a) for a in args]


def _as_operand(x: Any) -> Any:
    if dtypes.is_python_scalar(x):  # weakly typed, except bools (as in JAX)
        return weak_scalar(x, dtypes.python_scalar_dtype(x), weak_type=type(x) is not bool)
    if aval_or_none(x) is None:
        return asarray(x)
    return x


# (min, max) of each integer dtype a Python int operand has been converted to.
_INT_LIMITS: dict[np.dtype, tuple[int, int]] = {}


def _convert(x: Any, dtype: np.dtype, weak: bool) -> Any:
    if type(x) is int and dtypes.KIND.get(dtype) in ("i", "u"):
        limits = _INT_LIMITS.get(dtype)
        if limits is None:
            info = dtypes.iinfo(dtype)
            limits = _INT_LIMITS[dtype] = (int(info.min), int(info.max))
        if not limits[0] <= x <= limits[1]:
            # As JAX (the int as its default integer type, then converted): OverflowError only
            # past that type, and a narrower integer type wraps, traced or not.
            x = np.asarray(x, check_python_int(x)).astype(dtype).item()
    if dtypes.is_python_scalar(x):
        return weak_scalar(x, dtype, weak_type=weak)
    if isinstance(x, (np.ndarray, np.generic, list, tuple)):
        x = asarray(x)
    aval = aval_of(x)
    if aval.dtype == dtype and aval.weak_type == weak:
        return x
    return lax.convert_element_type(x, dtype, weak_type=weak)


def broadcast_shapes(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(
            f"{name}: incompatible shapes for broadcasting: "
            f"{', '.join(str(tuple(s)) for s in shapes)}{mlir.where_suffix()}"
        ) from None


def check_rank_promotion(name: str, shapes: list[tuple[int, ...]]) -> None:
    """jax_numpy_rank_promotion: 'warn' or 'raise' when operands of different ranks (scalars
    aside) would be broadcast together, as NumPy does implicitly."""
    mode = config.jax_numpy_rank_promotion
    if mode == "allow" or len({len(s) for s in shapes if s}) < 2:
        return
    listed = " ".join(map(str, shapes))
    if mode == "raise":
        raise ValueError(
            f"Operands could not be broadcast together for {name} on shapes {listed} and with "
            "the config option jax_numpy_rank_promotion='raise'."
        )
    warnings.warn(
        f"Following NumPy automatic rank promotion for {name} on shapes {listed}. Set the "
        "jax_numpy_rank_promotion config option to 'allow' to disable this warning.",
        stacklevel=4,
    )


def broadcast_to_shape(x: Any, shape: tuple[int, ...]) -> Any:
    aval = aval_of(x)
    if aval.shape == shape:
        return x
    leading = len(shape) - aval.ndim
    squeeze = [i for i, d in enumerate(aval.shape) if d == 1 and shape[leading + i] != 1]
    if squeeze:
        kept = tuple(d for i, d in enumerate(aval.shape) if i not in squeeze)
        x = lax.reshape(x, kept)
        dims = tuple(leading + i for i in range(aval.ndim) if i not in squeeze)
    else:
        dims = tuple(range(leading, len(shape)))
    return lax.broadcast_in_dim(x, shape, dims)


def _broadcast_args(name: str, args: list[Any]) -> list[Any]:
    # Operands of an elementwise function that do not broadcast are a TypeError, as in JAX.
    shapes = [aval_of(a).shape for a in args]
    if len(set(shapes)) <= 1:
        return args
    check_rank_promotion(name, shapes)
    try:
        shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise TypeError(
            f"{name} got incompatible shapes for broadcasting: "
            f"{', '.join(str(tuple(s)) for s in shapes)}{mlir.where_suffix()}"
        ) from None
    return [broadcast_to_shape(a, shape) for a in args]


def promote_args(name: str, *args: Any) -> list[Any]:
    """JAX dtype promotion followed by NumPy broadcasting, as every binary ufunc needs."""
    check_arraylike(name, *args)
    args = promote_dtypes(*args)
    return _broadcast_args(name, args)


def promote_args_numeric(name: str, *args: Any) -> list[Any]:
    """promote_args with bool promoted to int32 (integer arithmetic on booleans, as JAX)."""
    check_arraylike(name, *args)
    args = promote_dtypes_numeric(*args)
    return _broadcast_args(name, args)


def promote_args_shapes_only(name: str, *args: Any) -> list[Any]:
    """The operands broadcast to one shape, their dtypes as they are."""
    shape = broadcast_shapes(name, *[a.aval.shape for a in args])
    return [broadcast_to_shape(a, shape) for a in args]


def promote_args_inexact(name: str, *args: Any) -> list[Any]:
    check_arraylike(name, *args)
    args = promote_dtypes_inexact(*args)
    return _broadcast_args(name, args)
