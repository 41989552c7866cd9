"""`vmap`: trace a function on one example, rewrite it into its batched form, run it once.

in_axes/out_axes follow JAX: an int (negative allowed), None, or a pytree prefix of the
arguments/outputs; keyword arguments are batched along axis 0.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from stablax._src import core, tree_util
from stablax._src.core import ShapedArray
from stablax._src.lax._batch_rules import aval_of, moveaxis
from stablax._src.transforms.batching import batch_traced
from stablax._src.transforms.interpret import run_staged


def flatten_axes(name: str, treedef: Any, axis_tree: Any) -> list[int | None]:
    """Broadcasts a prefix tree of axes (ints/None) to one entry per leaf of `treedef`."""
    proxy = tree_util.tree_unflatten(treedef, list(range(treedef.num_leaves)))
    axes: list[Any] = [None] * treedef.num_leaves

    def assign(axis, subtree):
        for leaf in tree_util.tree_leaves(subtree):
            axes[leaf] = axis

    try:
        tree_util.tree_map(assign, axis_tree, proxy, is_leaf=lambda x: x is None)
    except (ValueError, TypeError):
        raise ValueError(
            f"{name} specification must be a tree prefix of the corresponding value, got "
            f"specification {axis_tree} for value tree {treedef}."
        ) from None
    for axis in axes:
        if axis is not None and not isinstance(axis, int):
            raise TypeError(
                f"{name} must be an int, None, or a (nested) container with those "
                f"types as leaves, but got {axis}."
            )
    return axes


def _unbatched_aval(aval: ShapedArray, axis: int | None) -> ShapedArray:
    if axis is None:
        return aval
    shape = list(aval.shape)
    shape.pop(axis)
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def vmap(
    fun: Callable,
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_name: Any = None,
    axis_size: int | None = None,
    spmd_axis_name: Any = None,
) -> Callable:
    """Vectorizes `fun` over a batch axis of its arguments.

    Args:
      fun: a function of arrays (pytrees allowed).
      in_axes: the batch axis of each argument (int, None for unbatched, or a pytree prefix).
      out_axes: where the batch axis goes in each output (int, None, or a pytree prefix).
      axis_size: the batch size, needed only when no argument is batched.

    Returns:
      The batched function. Each op is rewritten by its batching rule (no loop is emitted).
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)

    @functools.wraps(fun, updated=())
    def vmapped(*args: Any, **kwargs: Any) -> Any:
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if not isinstance(in_axes, tuple):
            axes_spec = ((in_axes,) * len(args), 0)
        elif len(in_axes) == len(args):
            axes_spec = (in_axes, 0)
        else:
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                f"positional arguments passed to the function, but got len(in_axes)="
                f"{len(in_axes)}, len(args)={len(args)}"
            )
        dims = flatten_axes("vmap in_axes", in_tree, axes_spec)
        avals = [aval_of(x) for x in leaves]
        dims = [
            None if d is None else _normalize_axis(d, a.ndim)
            for d, a in zip(dims, avals, strict=True)
        ]
        size = _axis_size(avals, dims, axis_size)
        slice_avals = [_unbatched_aval(a, d) for a, d in zip(avals, dims, strict=True)]
        boxes: dict[str, Any] = {}

        def flat_fun(*tracers):
            a, k = tree_util.tree_unflatten(in_tree, list(tracers))
            out = fun(*a, **k)
            out_leaves, boxes["out_tree"] = tree_util.tree_flatten(out)
            return out_leaves

        def impl(*flat):
            traced = core.trace_to_func(flat_fun, slice_avals)
            outs, out_dims = batch_traced(traced, flat, dims, size)
            out_axes_flat = flatten_axes("vmap out_axes", boxes["out_tree"], out_axes)
            return [
                _place(o, d, target, size)
                for o, d, target in zip(outs, out_dims, out_axes_flat, strict=True)
            ]

        results = run_staged(impl, leaves)
        return tree_util.tree_unflatten(boxes["out_tree"], results)

    return vmapped


def _normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"vmap was requested to map its argument along axis {axis}, which implies that its "
            f"rank should be at least {axis + 1 if axis >= 0 else -axis}, but is only {ndim}"
        )
    return axis % ndim


def _axis_size(avals, dims, axis_size) -> int:
    sizes = {a.shape[d] for a, d in zip(avals, dims, strict=True) if d is not None}
    if not sizes:
        if axis_size is None:
            raise ValueError(
                "vmap must have at least one non-None value in in_axes (or be given axis_size)"
            )
        return axis_size
    if len(sizes) > 1:
        described = [
            f"argument leaf {i} of shape {a.shape} mapped along axis {d}: size {a.shape[d]}"
            for i, (a, d) in enumerate(zip(avals, dims, strict=True))
            if d is not None
        ]
        raise ValueError(
            "vmap got inconsistent sizes for array axes to be mapped:\n  " + "\n  ".join(described)
        )
    (size,) = sizes
    if axis_size is not None and axis_size != size:
        raise ValueError(
            f"vmap got axis_size={axis_size} but the mapped arguments have size {size}"
        )
    return size


def _place(x: Any, bdim: int | None, target: int | None, size: int) -> Any:
    from stablax._src import lax

    if target is None:
        if bdim is not None:
            raise ValueError("vmap has mapped output but out_axes is None")
        return x
    aval = aval_of(x)
    if bdim is None:
        ndim = aval.ndim + 1
        target = target % ndim
        shape = list(aval.shape)
        shape.insert(target, size)
        kept = tuple(i for i in range(ndim) if i != target)
        return lax.broadcast_in_dim(x, tuple(shape), kept)
    return moveaxis(x, bdim, target % aval.ndim)
