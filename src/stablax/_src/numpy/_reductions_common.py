"""What every NumPy reduction shares: the `axis` argument, the checks of `out`, `where` and
`initial`, masks (NaN-ignoring ones too), result and accumulation dtypes, and `keepdims`."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import Tracer
from stablax._src.errors import ConcretizationTypeError
from stablax._src.lax._argcheck import axes_arg, int_arg, int_sequence
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import broadcast_shapes, broadcast_to_shape, check_arraylike

_STATIC = ("axis", "dtype", "keepdims", "promote_integers")  # ddof is an operand, as in JAX


def _axes(axis: Any, ndim: int, name: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    names = (axis,) if isinstance(axis, str) else axis if isinstance(axis, tuple) else ()
    if builtins.any(isinstance(a, str) for a in names):
        # A string axis is a named (mapped) axis to JAX, which stablax does not have: JAX's
        # classes, an unbound name where it has a collective, else no named reduction.
        if name in ("sum", "max", "min", "mean"):
            raise NameError(f"jnp.{name}: unbound axis name in axis={axis!r}{mlir.where_suffix()}")
        if name in ("prod", "any", "all"):
            raise NotImplementedError(
                f"jnp.{name}: named reductions (axis={axis!r}) are not implemented"
                f"{mlir.where_suffix()}"
            )
    repeated = "{name}: duplicate value in 'axis': {given}"
    return axes_arg(axis, ndim, f"jnp.{name}", convert=_axis_values, repeated=repeated)


def _axis_values(axis: Any, what: str, name: str) -> tuple[int, ...]:
    expected = "an integer, a tuple of integers or None"
    if hasattr(axis, "__index__"):  # a 0-d integer array too
        return (int_arg(axis, what, name, expected),)
    return int_sequence(axis, what, name, expected)


def static_axis(axis: Any) -> Any:
    """`axis` as the hashable value a reduction's jit takes as static: a concrete 0-d integer
    array (NumPy's or stablax's), alone or in a tuple, is read as its int, as JAX reads it
    (`jnp.sum(x, axis=np.array(0))`). Anything else is returned as given, for the axis checks
    (a traced axis, an unhashable one) to refuse in their words."""
    if axis is None or type(axis) is int:
        return axis
    if type(axis) is tuple:
        return tuple(_integer_scalar(a) for a in axis)
    return _integer_scalar(axis)


def _integer_scalar(value: Any) -> Any:
    if getattr(value, "ndim", None) != 0 or isinstance(value, Tracer):
        return value
    if not dtypes.issubdtype(getattr(value, "dtype", np.float64), np.integer):
        return value
    return operator.index(value)


def single_axis(axis: Any, ndim: int, name: str) -> int:
    """One axis (an integer, not a tuple), normalised to [0, ndim)."""
    if not hasattr(axis, "__index__"):
        raise TypeError(f"jnp.{name}: axis must be an integer, got {axis!r}{mlir.where_suffix()}")
    return _axes(axis, ndim, name)[0]


def _keepdims_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def _sum_dtype(dt: np.dtype) -> np.dtype:
    # JAX widens bool and small integers to the default integer width, as NumPy does.
    if dt == np.bool_:
        return dtypes.default_int_dtype()
    if dt.kind == "i" and dt.itemsize < dtypes.default_int_dtype().itemsize:
        return dtypes.default_int_dtype()
    if dt.kind == "u" and dt.itemsize < dtypes.default_int_dtype().itemsize:
        return np.dtype(f"uint{dtypes.default_int_dtype().itemsize * 8}")
    return dt


def _accumulation_dtype(dt: np.dtype) -> np.dtype:
    """Half-precision floats accumulate in float32 (then round back), as JAX does."""
    if dtypes.issubdtype(dt, np.floating) and dt.itemsize < 4:
        return np.dtype(np.float32)
    return dt


def _check_out(out: Any, name: str, axis: Any = None) -> None:
    """Refuses `out`; a traced `axis` is refused first, as JAX makes the axis static first."""
    if isinstance(axis, Tracer):
        raise ConcretizationTypeError(
            f"jnp.{name}: the axis argument must be known statically, got a traced value "
            f"{axis.aval.str_short()}{mlir.where_suffix()}"
        )
    if out is not None:
        raise NotImplementedError(
            f"jnp.{name}: the 'out' argument is not supported; stablax arrays are immutable."
        )


def _check_where(where: Any, name: str, *arrays: Any) -> None:
    """where's dtype, checked before the other arguments (but after `arrays` are found to be
    arrays) as JAX's mean, var, std and nan-reductions do (the shape is checked with the
    array's, in `_mask`)."""
    if arrays:
        check_arraylike(name, *arrays)
    if where is None:
        return
    try:
        dtype = dtypes.dtype_of(where)
    except (TypeError, ValueError):  # not an array: left to asarray's error
        return
    if dtype != np.bool_:
        raise ValueError(
            f"jnp.{name}: where must be None or a boolean array, got {np.dtype(dtype).name}"
            f"{mlir.where_suffix()}"
        )


def _finish(out: Any, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Any:
    if keepdims:
        out = lax.reshape(out, _keepdims_shape(shape, axes))
    if out.aval.weak_type:  # reductions return strongly typed results, as in JAX
        out = lax.convert_element_type(out, out.aval.dtype)
    return out


def _mask(where: Any, shape: tuple[int, ...], name: str) -> Any:
    where = asarray(where)
    _check_where(where, name)  # JAX's rule and class
    if broadcast_shapes(f"jnp.{name}", where.aval.shape, shape) != tuple(shape):
        raise ValueError(
            f"jnp.{name}: where of shape {where.aval.shape} does not broadcast to the array's "
            f"shape {tuple(shape)}{mlir.where_suffix()}"
        )
    return broadcast_to_shape(where, shape)


def _is_inexact(a: Any) -> bool:
    return dtypes.issubdtype(a.aval.dtype, np.inexact)


def _replace_nan(a: Any, value: Any) -> Any:
    a = asarray(a)
    if not _is_inexact(a):
        return a
    return lax.select(lax.ne(a, a), lax.full_like(a, value), a)


def _not_nan(a: Any, where: Any) -> Any:
    """`where` and not NaN: the elements a NaN-ignoring reduction reads."""
    a = asarray(a)
    if not _is_inexact(a):
        return where
    keep = lax.eq(a, a)
    return keep if where is None else lax.bitwise_and(keep, _mask(where, a.aval.shape, "nan"))


def _masked(a: Any, where: Any, fill: Any, name: str) -> Any:
    if where is None:
        return a
    return lax.select(_mask(where, a.aval.shape, name), a, lax.full_like(a, fill))


def _with_initial(out: Any, initial: Any, combine, name: str) -> Any:
    if initial is None:
        return out
    initial = asarray(initial)
    if initial.aval.ndim != 0:
        raise ValueError(
            f"jnp.{name}: initial value must be a scalar, got an array of shape "
            f"{initial.aval.shape}{mlir.where_suffix()}"
        )
    return combine(out, lax.convert_element_type(initial, out.aval.dtype))
