"""lax.associative_scan: inclusive prefix combinations in O(log n) parallel steps, from slices
and concatenations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax._src import ir as mlir
from stablax._src import tree_util
from stablax._src.avals import aval_of
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._shapes import reshape
from stablax._src.lax._slice_pad import concatenate, rev, slice_in_dim


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Inclusive prefix "sums" under an associative `fn` in O(log n) parallel steps.

    `fn(a, b)` combines two pytrees of arrays elementwise along `axis` (it must broadcast over
    leading slices). With `reverse`, prefixes run from the end: out[i] = fn(out[i+1], x[i]).
    Example: `lax.associative_scan(jnp.add, x)` is `jnp.cumsum(x)`.
    """
    check_callable("lax.associative_scan", fn, "fn")
    leaves, tree = tree_util.tree_flatten(elems)
    if not leaves:
        return elems
    ndim = aval_of(leaves[0]).ndim
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"lax.associative_scan: axis {axis} is out of bounds for array of dimension {ndim}"
            f"{mlir.where_suffix()}"
        )
    axis %= ndim
    n = aval_of(leaves[0]).shape[axis]
    if any(aval_of(x).shape[axis] != n for x in leaves):
        raise ValueError(
            "associative_scan: array inputs must have the same length along the scan axis, "
            f"got {[aval_of(x).shape[axis] for x in leaves]}"
        )

    def combine(a: list[Any], b: list[Any]) -> list[Any]:
        out = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        if out_tree != tree:
            raise TypeError(
                f"associative_scan: fn must return the structure of its inputs, {tree}, "
                f"got {out_tree}"
            )
        for x, out_leaf in zip(a, out_leaves, strict=True):
            if aval_of(out_leaf).shape != aval_of(x).shape:
                raise TypeError(
                    "lax.associative_scan: fn must return arrays of its inputs' shapes, "
                    f"got {aval_of(out_leaf).str_short()} for "
                    f"{aval_of(x).str_short()}{mlir.where_suffix()}"
                )
        return out_leaves

    def take(xs: list[Any], start: int, stop: int | None, stride: int = 1) -> list[Any]:
        return [slice_in_dim(x, start, stop, stride, axis) for x in xs]

    def prefix(xs: list[Any]) -> list[Any]:
        length = aval_of(xs[0]).shape[axis]
        if length < 2:
            return xs
        # Combine neighbours, scan the half-length sequence, then fill in the even positions.
        pairs = combine(take(xs, 0, length - 1, 2), take(xs, 1, None, 2))
        odd = prefix(pairs)  # out[1], out[3], ...
        if length % 2 == 0:
            even_rest = combine(take(odd, 0, aval_of(odd[0]).shape[axis] - 1), take(xs, 2, None, 2))
        else:
            even_rest = combine(odd, take(xs, 2, None, 2))
        even = [concatenate([f, r], axis) for f, r in zip(take(xs, 0, 1), even_rest, strict=True)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd, strict=True)]

    if reverse:
        leaves = [rev(x, (axis,)) for x in leaves]
    out = prefix(leaves)
    if reverse:
        out = [rev(x, (axis,)) for x in out]
    return tree_util.tree_unflatten(tree, out)


def _interleave(even: Any, odd: Any, axis: int) -> Any:
    """even[0], odd[0], even[1], odd[1], ... along `axis` (even may be one longer)."""
    n_even, n_odd = aval_of(even).shape[axis], aval_of(odd).shape[axis]
    if n_even > n_odd:  # pad odd with a dummy slice, interleave, drop the last element
        odd = concatenate([odd, slice_in_dim(even, 0, 1, 1, axis)], axis)
    shape = aval_of(even).shape
    pair_shape = (*shape[: axis + 1], 1, *shape[axis + 1 :])
    both = concatenate([reshape(even, pair_shape), reshape(odd, pair_shape)], axis + 1)
    merged = (*shape[:axis], 2 * shape[axis], *shape[axis + 1 :])
    out = reshape(both, merged)
    return slice_in_dim(out, 0, n_even + n_odd, 1, axis)
