"""Rearranging elements: flip, roll, rollaxis, rot90, tile, repeat, resize, trim_zeros."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax, runtime
from stablax._src import ir as mlir
from stablax._src.core import Tracer
from stablax._src.lax._argcheck import axes_arg, axis_arg, int_or_int_sequence, int_sequence
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._shape import (
    concatenate,
    moveaxis,
    ravel,
    reshape,
    transpose,
)
from stablax._src.numpy._shape_join import take_static
from stablax._src.numpy._sorting import concrete_value


def flip(m: Any, axis: Any = None) -> Any:
    """Reverses the order of elements along `axis` (all axes by default) (`stablehlo.reverse`)."""
    m = asarray(m)
    ndim = m.aval.ndim
    return lax.rev(m, tuple(range(ndim)) if axis is None else axes_arg(axis, ndim, "jnp.flip"))


def fliplr(m: Any) -> Any:
    """Reverses axis 1 (left/right)."""
    m = asarray(m)
    if m.aval.ndim < 2:
        raise ValueError("jnp.fliplr requires an array of at least 2 dimensions")
    return lax.rev(m, (1,))


def flipud(m: Any) -> Any:
    """Reverses axis 0 (up/down)."""
    m = asarray(m)
    if m.aval.ndim < 1:
        raise ValueError("jnp.flipud requires an array of at least 1 dimension")
    return lax.rev(m, (0,))


def _roll_axis(a: Any, shift: Any, axis: int) -> Any:
    n = a.aval.shape[axis]
    if n == 0:
        return a
    if isinstance(shift, Tracer) or hasattr(shift, "aval"):
        # Traced shift: slice a window of length n out of [a, a] at (n - shift mod n).
        shift = lax.convert_element_type(asarray(shift), np.int32)
        start = lax.rem(lax.sub(np.int32(n), lax.rem(shift, np.int32(n))), np.int32(n))
        start = lax.rem(lax.add(start, np.int32(n)), np.int32(n))
        doubled = concatenate([a, a], axis=axis)
        return lax.dynamic_slice_in_dim(doubled, start, n, axis=axis)
    shift = operator.index(shift) % n
    if shift == 0:
        return a
    head = lax.slice_in_dim(a, n - shift, n, axis=axis)
    tail = lax.slice_in_dim(a, 0, n - shift, axis=axis)
    return concatenate([head, tail], axis=axis)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Rolls elements along `axis` (over the flattened array when None); shifts may be traced."""
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.aval.shape)
    axes = axes_arg(axis, a.aval.ndim, "jnp.roll")
    if isinstance(shift, (Tracer,)) or hasattr(shift, "aval"):
        shifts_arr = asarray(shift)
        if shifts_arr.aval.dtype.kind not in "iu" or shifts_arr.aval.ndim > 1:
            raise TypeError(f"jnp.roll: shift must be integers, got {shifts_arr.aval.str_short()}")
        shifts = [shifts_arr] if shifts_arr.aval.ndim == 0 else list(shifts_arr)
    else:
        shifts = list(int_or_int_sequence(shift, "shift", "jnp.roll"))
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("jnp.roll: len(shift) must match len(axis)")
    for s, ax in zip(shifts, axes, strict=True):
        a = _roll_axis(a, s, ax)
    return a


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """Moves `axis` to sit before `start` (`np.rollaxis`; prefer `moveaxis`)."""
    a = asarray(a)
    ndim = a.aval.ndim
    axis = axis_arg(axis, ndim, "jnp.rollaxis")
    if not -ndim <= start <= ndim:
        raise ValueError(f"jnp.rollaxis: start={start} must satisfy {-ndim} <= start <= {ndim}")
    start = start + ndim if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """Rotates by 90 degrees `k` times in the plane of `axes`, from the first towards the second."""
    m = asarray(m)
    ndim = m.aval.ndim
    if ndim < 2:  # JAX's check, before the axes
        raise ValueError(
            f"jnp.rot90: the array must have at least 2 dimensions, got shape {m.aval.shape}"
            f"{mlir.where_suffix()}"
        )
    axes = int_sequence(axes, "axes", "jnp.rot90")
    if len(axes) != 2:
        raise ValueError("jnp.rot90: len(axes) must be 2")
    ax0, ax1 = (axis_arg(x, ndim, "jnp.rot90") for x in axes)
    if ax0 == ax1:
        raise ValueError(f"jnp.rot90: axes must be different, got {axes}")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return lax.rev(m, (ax0, ax1))
    perm = list(range(ndim))
    perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
    if k == 1:
        return transpose(lax.rev(m, (ax1,)), perm)
    return lax.rev(transpose(m, perm), (ax1,))


def tile(A: Any, reps: Any) -> Any:  # noqa: N803 (NumPy's name)
    """Repeats the whole array `reps` times along each axis (`np.tile`)."""
    a = asarray(A)
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(map(operator.index, reps))
    ndim = max(len(reps), a.aval.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - a.aval.ndim) + a.aval.shape
    # Broadcast into an interleaved (rep, dim) layout, then merge each pair.
    inter = [v for pair in zip(reps, shape, strict=True) for v in pair]
    out = lax.broadcast_in_dim(lax.reshape(a, shape), inter, tuple(range(1, 2 * ndim, 2)))
    return lax.reshape(out, tuple(r * d for r, d in zip(reps, shape, strict=True)))


def repeat(
    a: Any,
    repeats: Any,
    axis: int | None = None,
    *,
    total_repeat_length: int | None = None,
    out_sharding: Any = None,
) -> Any:
    """Repeats each element `repeats` times along `axis` (`np.repeat`).

    Traced `repeats` need a static `total_repeat_length`; the output is cut to it, or padded
    with the last element.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "jnp.repeat")
    a = asarray(a)
    repeats_dtype = dtypes.dtype_of(repeats)
    if repeats_dtype != np.bool_ and not dtypes.issubdtype(repeats_dtype, np.integer):
        raise TypeError(  # NumPy's class (no safe cast to int); JAX's gather rejects them too
            f"jnp.repeat: repeats must be integers, got {repeats_dtype.name}{mlir.where_suffix()}"
        )
    traced = isinstance(repeats, Tracer)
    if traced and total_repeat_length is None:
        raise TypeError(
            "jnp.repeat: when repeats is traced (under jit, vmap or grad), the total number of "
            "repeats must be static: pass total_repeat_length, or make repeats static"
        )
    size = repeats.aval.size if traced else np.size(repeats)
    if a.aval.ndim == 0 and size != 1:  # JAX's check, before the axis's
        raise ValueError(
            f"jnp.repeat: a scalar `a` takes a single count of repeats, got {size}"
            f"{mlir.where_suffix()}"
        )
    if axis is None or a.aval.ndim == 0:  # NumPy and JAX: a 0-d `a` is 1-d
        a, axis = ravel(a), 0 if axis is None else axis
    axis = axis_arg(axis, a.aval.ndim, "jnp.repeat")
    n = a.aval.shape[axis]
    # Any shape of repeats holding one or n counts, as JAX (it ravels them).
    if size not in (1, n):
        raise ValueError(
            f"jnp.repeat: {size} repeats do not match the {n} elements along axis {axis}"
            f"{mlir.where_suffix()}"
        )
    if n == 0:  # nothing to repeat (JAX returns the input, whatever total_repeat_length is)
        return a
    # Checked only where it is used, so JAX's earlier errors and its empty result come first.
    if total_repeat_length is not None and not hasattr(total_repeat_length, "__index__"):
        raise TypeError(
            f"jnp.repeat: total_repeat_length must be an integer, got {total_repeat_length!r}"
            f"{mlir.where_suffix()}"
        )
    if total_repeat_length is not None and operator.index(total_repeat_length) < 0:
        raise ValueError(
            f"jnp.repeat: total_repeat_length must be non-negative, got {total_repeat_length}"
            f"{mlir.where_suffix()}"
        )
    if not traced and size == 1 and total_repeat_length is None:
        host = np.ravel(np.asarray(repeats))
        r = int(host[0])  # a bool count is 0 or 1, as NumPy and JAX
        if r < 0:
            raise ValueError(f"jnp.repeat: repeats may not contain negative values, got {r}")
        shape = a.aval.shape
        inter = shape[: axis + 1] + (r,) + shape[axis + 1 :]
        dims = tuple(i for i in range(len(inter)) if i != axis + 1)
        out = lax.broadcast_in_dim(a, inter, dims)
        return lax.reshape(out, shape[:axis] + (n * r,) + shape[axis + 1 :])
    if not traced:
        counts = np.broadcast_to(np.ravel(np.asarray(repeats)), (n,)).astype(np.int64)
        if (counts < 0).any():
            raise ValueError("jnp.repeat: repeats may not contain negative values")
        idx = np.repeat(np.arange(n), counts)
        if total_repeat_length is not None:
            length = operator.index(total_repeat_length)
            idx = np.concatenate([idx, np.full(max(0, length - idx.size), n - 1)])[:length]
        return take_static(a, idx, axis)
    length = operator.index(total_repeat_length)
    index_dtype = dtypes.canonicalize_dtype(np.int32)
    one_count = size != n  # a single count for all n elements is broadcast from a scalar
    counts = lax.reshape(repeats, () if one_count else (n,))
    counts = lax.convert_element_type(counts, index_dtype)
    counts = lax.broadcast_in_dim(counts, (n,), () if one_count else (0,))
    ends = lax.cumsum(counts, axis=0)
    # Output position j takes element #(number of cumulative ends <= j), clamped to n - 1.
    positions = lax.broadcasted_iota(index_dtype, (length, n), 0)
    taken = lax.convert_element_type(
        lax.le(lax.broadcast_in_dim(ends, (length, n), (1,)), positions), index_dtype
    )
    idx = lax.min(lax.reduce_sum(taken, (1,)), np.asarray(max(n - 1, 0), index_dtype))
    out = lax.index_take(a, [idx], [axis])
    return moveaxis(out, 0, axis) if axis else out


def resize(a: Any, new_shape: Any) -> Any:
    """An array of `new_shape` filled with repeated copies of `a`'s flattened data."""
    a = asarray(a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("jnp.resize: all elements of new_shape must be non-negative")
    size = int(np.prod(new_shape, dtype=np.int64))
    flat = ravel(a)
    if flat.aval.size == 0 or size == 0:
        return lax.full(new_shape, 0, a.aval.dtype)
    reps = -(-size // flat.aval.size)
    return reshape(lax.slice_in_dim(tile(flat, reps), 0, size), new_shape)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """Drops leading ('f') and/or trailing ('b') zeros along the axes; needs concrete values."""
    a = asarray(filt)
    if not isinstance(trim, str):
        raise TypeError(
            f"jnp.trim_zeros: trim must be a string of 'f' and 'b', got {type(trim).__name__}"
            f"{mlir.where_suffix()}"
        )
    trim = trim.lower()
    hint = "jnp.trim_zeros: the output shape depends on the values; call it outside jit."
    nonzero = concrete_value(a, "jnp.trim_zeros", hint) != 0  # concrete under eager grad too
    ndim = nonzero.ndim
    axes = range(ndim) if axis is None else axes_arg(axis, ndim, "jnp.trim_zeros")
    start, stop = [0] * ndim, list(nonzero.shape)
    for ax in axes:
        others = tuple(i for i in range(ndim) if i != ax)
        hits = np.flatnonzero(nonzero.any(axis=others) if others else nonzero)
        if hits.size == 0:  # all zeros: NumPy leaves an empty axis
            start[ax] = stop[ax] = 0 if "f" in trim else nonzero.shape[ax]
            if "b" in trim:
                stop[ax] = start[ax]
            continue
        if "f" in trim:
            start[ax] = int(hits[0])
        if "b" in trim:
            stop[ax] = int(hits[-1]) + 1
    return lax.slice(a, start, stop)
