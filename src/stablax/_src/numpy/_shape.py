"""Shape manipulation: reshape, transpose, ravel, squeeze, expand_dims, broadcast_to, stack, ..."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, lax, runtime
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.jit import jit
from stablax._src.lax._argcheck import axis_arg, int_or_int_sequence
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import (
    broadcast_shapes,
    broadcast_to_shape,
    check_out_none,
    promote_dtypes,
)


def _resolve_shape(newshape: Any, size: int, name: str) -> tuple[int, ...]:
    if isinstance(newshape, (int, np.integer)):
        newshape = (newshape,)
    shape = [operator.index(d) for d in newshape]
    if shape.count(-1) > 1:
        raise ValueError(f"{name}: can only specify one unknown dimension")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or size % known:
            raise TypeError(
                f"{name}: cannot reshape array of size {size} into shape "
                f"{tuple(newshape)}{mlir.where_suffix()}"
            )
        shape[shape.index(-1)] = size // known
    return tuple(shape)


def reshape(
    a: Any,
    shape: Any = None,
    order: str = "C",
    *,
    newshape: Any = None,
    copy: bool | None = None,
    out_sharding: Any = None,
) -> Any:
    """Reshapes (row-major; -1 infers one dimension). Arrays are immutable, so `copy` is moot.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "jnp.reshape")
    if shape is None:
        shape = newshape
    if shape is None:
        raise TypeError("jnp.reshape: missing the shape argument")
    a = asarray(a)
    shape = _resolve_shape(shape, a.aval.size, "jnp.reshape")
    if math.prod(shape) != a.aval.size:
        raise TypeError(
            f"jnp.reshape: cannot reshape array of shape {a.aval.shape} (size "
            f"{a.aval.size}) into shape {shape}{mlir.where_suffix()}"
        )
    if order == "A":  # JAX's classes: "A" (NumPy's memory order) is not implemented
        raise NotImplementedError("np.reshape order=A is not implemented.")
    if order not in ("C", "F"):
        raise ValueError(f"Unexpected value for 'order' argument: {order}.")
    if order == "F":
        rev = tuple(range(a.aval.ndim))[::-1]
        return transpose(
            lax.reshape(transpose(a, rev), shape[::-1]), tuple(range(len(shape)))[::-1]
        )
    return lax.reshape(a, shape)


def ravel(a: Any, order: str = "C", *, out_sharding: Any = None) -> Any:
    runtime.check_sharding(out_sharding, "jnp.ravel")
    a = asarray(a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (-1,), order)


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """Permutes axes (reverses them by default)."""
    a = asarray(a)
    ndim = a.aval.ndim
    if axes is None:
        axes = tuple(range(ndim))[::-1]
    axes = int_or_int_sequence(axes, "axes", "jnp.transpose")
    axes = tuple(axis_arg(x, ndim, "jnp.transpose") for x in axes)
    return lax.transpose(a, axes)


def permute_dims(a: Any, axes: Sequence[int]) -> Any:
    return transpose(a, axes)


def matrix_transpose(x: Any) -> Any:
    """Swaps the last two axes (`jnp.matrix_transpose`)."""
    x = asarray(x)
    if x.aval.ndim < 2:  # JAX's class
        raise ValueError(
            f"jnp.matrix_transpose: x must be at least two-dimensional, got shape {x.aval.shape}"
            f"{mlir.where_suffix()}"
        )
    perm = list(range(x.aval.ndim))
    perm[-2:] = perm[-2:][::-1]
    return lax.transpose(x, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    a = asarray(a)
    ndim = a.aval.ndim
    src = [axis_arg(s, ndim, "jnp.moveaxis") for s in np.atleast_1d(source).tolist()]
    dst = [axis_arg(d, ndim, "jnp.moveaxis") for d in np.atleast_1d(destination).tolist()]
    order = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return lax.transpose(a, order)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    a = asarray(a)
    perm = list(range(a.aval.ndim))
    i, j = (
        axis_arg(axis1, len(perm), "jnp.swapaxes"),
        axis_arg(axis2, len(perm), "jnp.swapaxes"),
    )
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def expand_dims(a: Any, axis: Any) -> Any:
    a = asarray(a)
    axes = np.atleast_1d(axis).tolist()
    out_ndim = a.aval.ndim + len(axes)
    axes = sorted(axis_arg(x, out_ndim, "jnp.expand_dims") for x in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"jnp.expand_dims: repeated axis in {axis}{mlir.where_suffix()}")
    shape = list(a.aval.shape)
    for x in axes:
        shape.insert(x, 1)
    return lax.reshape(a, shape)


def squeeze(a: Any, axis: Any = None) -> Any:
    a = asarray(a)
    shape = a.aval.shape
    if axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = [axis_arg(x, len(shape), "jnp.squeeze") for x in np.atleast_1d(axis).tolist()]
        for x in axes:
            if shape[x] != 1:
                raise ValueError(
                    f"jnp.squeeze: cannot select an axis to squeeze out which has "
                    f"size not equal to one, got shape={shape} and axis={axis}"
                )
    return lax.reshape(a, [d for i, d in enumerate(shape) if i not in axes])


def broadcast_to(array: Any, shape: Any, *, out_sharding: Any = None) -> Any:
    """Broadcasts `array` to `shape` with NumPy's rules (`out_sharding`: None or a sharding on
    stablax's one device)."""
    runtime.check_sharding(out_sharding, "jnp.broadcast_to")
    a = asarray(array)
    shape = int_or_int_sequence(shape, "shape", "jnp.broadcast_to")
    if broadcast_shapes("jnp.broadcast_to", a.aval.shape, shape) != shape:
        raise ValueError(
            f"jnp.broadcast_to: cannot broadcast array of shape {a.aval.shape} "
            f"to shape {shape}{mlir.where_suffix()}"
        )
    return broadcast_to_shape(a, shape)


def broadcast_arrays(*args: Any) -> list[Any]:
    args = [asarray(a) for a in args]
    shape = broadcast_shapes("jnp.broadcast_arrays", *[a.aval.shape for a in args])
    return [broadcast_to_shape(a, shape) for a in args]


def concatenate(arrays: Sequence[Any], axis: int | None = 0, dtype: Any = None) -> Any:
    """Joins arrays along an existing axis (`stablehlo.concatenate`)."""
    if not len(arrays):
        raise ValueError("jnp.concatenate: need at least one array to concatenate")
    arrays = [asarray(a) for a in arrays]
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    # The shapes and the axis before the dtype, in JAX's order
    ndim = aval_of(arrays[0]).ndim
    if ndim == 0:
        raise ValueError("jnp.concatenate: zero-dimensional arrays cannot be concatenated")
    axis = axis_arg(axis, ndim, "jnp.concatenate")
    if dtype is not None:  # each converted as it is, with no promotion among them (as JAX)
        arrays = [lax.convert_element_type(a, dtype) for a in arrays]
    elif len(arrays) > 1:
        arrays = promote_dtypes(*arrays)
    return lax.concatenate(arrays, axis)


def stack(arrays: Sequence[Any], axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """Joins arrays along a new axis (`np.stack`; `out` must be None, as JAX)."""
    check_out_none("jnp.stack", out)
    if not len(arrays):
        raise ValueError("jnp.stack: need at least one array to stack")
    arrays = [asarray(a) for a in arrays]
    if dtype is not None:  # the dtype before the shapes, in JAX's order
        dtypes.check_user_dtype(dtype, "jnp.stack")
    shapes = {a.aval.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("jnp.stack: all input arrays must have the same shape")
    axis = axis_arg(axis, arrays[0].aval.ndim + 1, "jnp.stack")
    return _stack(axis, dtype, *arrays)


@jit(static_argnums=(0, 1))
def _stack(axis: int, dtype: Any, *arrays: Any) -> Any:
    # One program rather than an eager expand_dims per array plus a concatenate.
    return concatenate([expand_dims(a, axis) for a in arrays], axis, dtype)
