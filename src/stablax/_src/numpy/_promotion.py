"""NumPy-style argument handling: JAX's dtype promotion and NumPy's shape broadcasting."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.config import config
from stablax._src.dispatch import weak_scalar
from stablax._src.lax._shapes import aval_of


def promote_dtypes(*args: Any) -> list[Any]:
    """Converts all arguments to their common JAX result type (weak if all inputs are weak)."""
    if len(args) < 2:
        return [_as_operand(a) for a in args]
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [_convert(a, dtype, weak) for a in args]


def promote_dtypes_inexact(*args: Any) -> list[Any]:
    """Like promote_dtypes, then to the default float (or complex) type if integral or bool."""
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if not (dtypes.issubdtype(dtype, np.inexact)):
        dtype = dtypes.default_float_dtype()
    return [_convert(a, dtype, weak) for a in args]


def _as_operand(x: Any) -> Any:
    if dtypes.is_python_scalar(x):
        return weak_scalar(x, dtypes.python_scalar_dtype(x))
    return x


def _convert(x: Any, dtype: np.dtype, weak: bool) -> Any:
    if dtypes.is_python_scalar(x):
        return weak_scalar(x, dtype, weak_type=weak)
    if isinstance(x, (np.ndarray, np.generic, list, tuple)):
        from stablax._src.numpy._creation import asarray

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


def promote_args(name: str, *args: Any) -> list[Any]:
    """JAX dtype promotion followed by NumPy broadcasting, as every binary ufunc needs."""
    args = promote_dtypes(*args)
    shapes = [aval_of(a).shape for a in args]
    if len(set(shapes)) <= 1:
        return args
    check_rank_promotion(name, shapes)
    shape = broadcast_shapes(name, *shapes)
    return [broadcast_to_shape(a, shape) for a in args]


def promote_args_inexact(name: str, *args: Any) -> list[Any]:
    args = promote_dtypes_inexact(*args)
    shapes = [aval_of(a).shape for a in args]
    if len(set(shapes)) <= 1:
        return args
    check_rank_promotion(name, shapes)
    shape = broadcast_shapes(name, *shapes)
    return [broadcast_to_shape(a, shape) for a in args]
