"""lax conveniences composed of other lax ops: split, stack, unstack, tile, batch_matmul,
broadcast_shapes, broadcast_like, empty, dtype, shape_as_value, stage, axis_size."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import core, dispatch, dtypes, runtime, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.interpreters.batching import bound_axis_size
from stablax._src.lax._argcheck import RANK, axis_arg, int_sequence, sequence, static_shapes
from stablax._src.lax._dot import dot_general
from stablax._src.lax._reshape_axes import broadcast_to_rank, expand_dims
from stablax._src.lax._shapes import broadcast_in_dim, full, reshape
from stablax._src.lax._slice_pad import concatenate, slice_in_dim


def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list[Any]:
    """Splits `operand` along `axis` into pieces of the given `sizes` (which sum to its size).

    Args:
      operand: an array.
      sizes: the length of each piece along `axis`.
      axis: the axis to split.

    Returns:
      A list of `len(sizes)` arrays (`stablehlo.slice` each).
    """
    aval = aval_of(operand)
    # As JAX: sizes must be iterable before the axis is checked, and integers after it.
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
        raise TypeError(
            f"lax.split: sizes must be a sequence of integers, got {sizes!r}{mlir.where_suffix()}"
        )
    axis = axis_arg(axis, aval.ndim, "lax.split", array=RANK)
    sizes = int_sequence(sizes, "sizes", "lax.split")
    if any(s < 0 for s in sizes):
        raise ValueError(f"lax.split: sizes must be nonnegative, got {sizes}{mlir.where_suffix()}")
    if sum(sizes) != aval.shape[axis]:
        raise ValueError(
            f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the operand shape "
            f"{list(aval.shape)}{mlir.where_suffix()}"
        )
    pieces, start = [], 0
    for size in sizes:
        pieces.append(slice_in_dim(operand, start, start + size, axis=axis))
        start += size
    return pieces


def stack(operands: Sequence[Any], axis: int = 0) -> Any:
    """Joins arrays of one shape along a new axis `axis` (reshape + `stablehlo.concatenate`).

    Example: `stack([x, y], axis=1)` of two `int32[2]` is `int32[2,2]` with columns x and y.
    """
    operands = sequence(operands, "operands", "lax.stack")
    if not operands:
        raise ValueError("lax.stack: need at least one array to stack")
    shapes = [aval_of(x).shape for x in operands]
    if len(set(shapes)) != 1:
        raise ValueError(
            "All input arrays must have the same shape. Got "
            f"{', '.join(map(str, shapes))}.{mlir.where_suffix()}"
        )
    axis = axis_arg(axis, len(shapes[0]) + 1, "lax.stack", array=RANK)
    return concatenate([expand_dims(x, (axis,)) for x in operands], axis)


def unstack(x: Any, axis: int = 0) -> tuple[Any, ...]:
    """The slices of `x` along `axis`, that axis removed: the inverse of `stack`."""
    aval = aval_of(x)
    axis = axis_arg(axis, aval.ndim, "lax.unstack", array=RANK)
    out_shape = aval.shape[:axis] + aval.shape[axis + 1 :]
    return tuple(
        reshape(slice_in_dim(x, i, i + 1, axis=axis), out_shape) for i in range(aval.shape[axis])
    )


def tile(operand: Any, reps: Sequence[int]) -> Any:
    """Repeats `operand` `reps[i]` times along each axis i (`jnp.tile` without rank changes).

    Lowers to a reshape, a `stablehlo.broadcast_in_dim` and a reshape.
    """
    aval = aval_of(operand)
    reps = int_sequence(reps, "reps", "lax.tile")
    if len(reps) != aval.ndim:
        raise TypeError(
            "reps length must be equal to the ndim of x, got "
            f"len(reps)={len(reps)} and x.ndim={aval.ndim}.{mlir.where_suffix()}"
        )
    if any(r < 0 for r in reps):
        raise ValueError(f"lax.tile: reps must be nonnegative, got {reps}{mlir.where_suffix()}")
    interleaved = tuple(d for pair in zip(reps, aval.shape, strict=True) for d in pair)
    spread = broadcast_in_dim(operand, interleaved, tuple(range(1, 2 * aval.ndim, 2)))
    return reshape(spread, tuple(r * d for r, d in zip(reps, aval.shape, strict=True)))


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
    """Matrix products of the trailing two axes, over equal leading (batch) axes.

    Args:
      lhs: `[..., m, k]`.
      rhs: `[..., k, n]` with the same leading axes.
      precision: as for `dot_general`.

    Returns:
      `[..., m, n]` (`stablehlo.dot_general` with batch dimensions).
    """
    a, b = aval_of(lhs), aval_of(rhs)
    if min(a.ndim, b.ndim) < 2:
        raise ValueError(
            f"Arguments to batch_matmul must be at least 2D, got {a.ndim}, {b.ndim}"
            f"{mlir.where_suffix()}"
        )
    if a.ndim != b.ndim:
        raise ValueError(
            f"Arguments to batch_matmul must have same ndim, got {a.ndim}, {b.ndim}"
            f"{mlir.where_suffix()}"
        )
    batch = tuple(range(a.ndim - 2))
    numbers = (((a.ndim - 1,), (b.ndim - 2,)), (batch, batch))
    return dot_general(lhs, rhs, numbers, precision=precision)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The NumPy broadcast of `shapes` (size-1 axes stretch, shorter shapes are left-padded).

    Raises:
      ValueError: if two non-1 sizes of an axis differ.
    """
    if not shapes:
        return ()
    shapes = static_shapes(shapes, "lax.broadcast_shapes")
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + s for s in shapes]
    result = []
    for sizes in zip(*padded, strict=True):
        others = {d for d in sizes if d != 1}
        if len(others) > 1:
            raise ValueError(
                f"Incompatible shapes for broadcasting: shapes={[list(s) for s in shapes]}"
            )
        result.append(others.pop() if others else 1)
    return tuple(result)


def broadcast_like(arr: Any, like_arr: Any) -> Any:
    """`arr` broadcast (NumPy rules, rank added on the left) to the shape of `like_arr`."""
    source, target = aval_of(arr), aval_of(like_arr)
    if broadcast_shapes(source.shape, target.shape) != target.shape:
        raise ValueError(
            f"Incompatible types for broadcasting: input type={source.str_short()} and requested "
            f"type={source.update(shape=target.shape).str_short()}{mlir.where_suffix()}"
        )
    ranked = broadcast_to_rank(arr, target.ndim) if source.ndim < target.ndim else arr
    return broadcast_in_dim(
        _squeeze_stretched(ranked, target.shape), target.shape, _kept_dims(ranked, target.shape)
    )


def _kept_dims(x: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(i for i, d in enumerate(aval_of(x).shape) if d == shape[i])


def _squeeze_stretched(x: Any, shape: tuple[int, ...]) -> Any:
    aval = aval_of(x)
    kept = tuple(d for i, d in enumerate(aval.shape) if d == shape[i])
    return x if kept == aval.shape else reshape(x, kept)


def empty(shape: Sequence[int], dtype: Any, *, out_sharding: Any = None) -> Any:
    """An array of `shape` and `dtype` whose values are unspecified (zeros on every backend here).

    Use it for buffers that are fully overwritten (e.g. by `dynamic_update_slice`).
    """
    if out_sharding is not None:
        raise NotImplementedError("lax.empty: out_sharding is not supported by stablax")
    dtype = dtypes.check_user_dtype(dtype, "lax.empty")
    if dtype is None:  # JAX's default for a missing dtype is the float one
        dtype = dtypes.canonicalize_dtype(np.float64)
    return full(shape, 0, dtype)


def dtype(x: Any) -> np.dtype:
    """The canonical dtype of a value or dtype-like (`float64` becomes `float32` without x64).

    Python scalars give the default dtypes (`dtype(1.0)` is float32), as `jnp.asarray` would.
    """
    if dtypes.is_python_scalar(x):
        return dtypes.canonicalize_dtype(dtypes.python_scalar_dtype(x))
    value_dtype = getattr(x, "dtype", None)
    if value_dtype is not None and not isinstance(x, type):
        if isinstance(value_dtype, dtypes.ExtendedDType):
            return value_dtype
        return dtypes.canonicalize_dtype(value_dtype)
    if x is None:  # NumPy reads None as float64; JAX refuses it
        raise ValueError(f"lax.dtype: Invalid argument to dtype: None{mlir.where_suffix()}")
    parsed = np.dtype(x)
    if parsed.kind in "SUOVMm":  # np.dtype('a') is bytes: no array dtype (JAX's TypeError)
        raise TypeError(
            f"lax.dtype: {x!r} (NumPy's {parsed.str}) is not a valid array dtype"
            f"{mlir.where_suffix()}"
        )
    return dtypes.canonicalize_dtype(parsed)


def shape_as_value(shape: Sequence[int]) -> np.ndarray:
    """A shape as a 1-D integer array (int64 if a dimension needs it, else int32)."""
    shape = int_sequence(shape, "shape", "lax.shape_as_value")
    wide = any(d > np.iinfo(np.int32).max for d in shape)
    value = np.asarray(shape, dtype=np.int64 if wide else np.int32).reshape(len(shape))
    # As JAX: the empty shape comes back as an array, a non-empty one as a NumPy array.
    return stage(value) if not shape else value


def stage(x: Any, /) -> Any:
    """The identity that brings `x` (a Python scalar, a NumPy array) into the current trace, or
    onto the device outside any trace."""
    trace = core.current_trace()
    if trace is None:
        return dispatch.to_array(x)
    return core.to_tracer(core.trace_state.target or trace, x)


def axis_size(axis_name: Any) -> int:
    """The size of the named vmap axis `axis_name` (the product for a tuple of names).

    Raises:
      NameError: if no enclosing `vmap` binds that name.
    """
    names = axis_name if isinstance(axis_name, (tuple, list)) else (axis_name,)
    return math.prod(bound_axis_size(n) for n in names)


def platform_dependent(*args: Any, default: Any = None, **per_platform: Any) -> Any:
    """`per_platform[platform](*args)` for the platform the program is built for.

    Args:
      *args: arrays (pytrees allowed) passed to the chosen branch.
      default: the branch for platforms not named.
      **per_platform: branches by platform name: 'cpu', 'cuda', 'rocm', 'tpu'.

    Returns:
      The chosen branch's result. stablax programs are compiled for the default backend, so the
      branch is chosen while tracing and only it is staged out (JAX stages all of them and lets
      the compiler drop the others: the results are the same).
    """
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    if default is not None and not callable(default):
        raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
    tree_util.tree_map(aval_of, args)  # the operands first, as JAX: a str is no JAX value
    platform = runtime.default_backend()
    branch = per_platform.get(platform, default)
    if branch is None:
        raise NotImplementedError(
            f"lax.platform_dependent: no branch for platform '{platform}' and no default "
            f"(branches for {sorted(per_platform)})"
        )
    return branch(*args)
