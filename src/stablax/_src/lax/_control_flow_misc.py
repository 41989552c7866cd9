"""Control flow composed from the constructs: lax.map (a scan, optionally of vmapped batches),
lax.associative_scan (a parallel prefix of slices and concatenations) and jnp.piecewise (a
switch per element)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import tree_util
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._control_flow_cond import switch
from stablax._src.lax._control_flow_scan import scan
from stablax._src.lax._shapes import aval_of


def map(f: Callable, xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001 (JAX's name)
    """`stack([f(x) for x in xs])` along the leading axis, as a scan (one compiled body).

    With `batch_size`, each scan step applies vmap(f) to that many elements (a remainder is
    vmapped once after the loop); `batch_size=0` is one full batch, `vmap(f)(xs)`, as in JAX.
    """
    check_callable("lax.map", f, "f")
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    from stablax._src import lax
    from stablax._src.transforms.vmap_api import vmap

    leaves = tree_util.tree_leaves(xs)
    if not leaves:
        raise ValueError("lax.map: xs must contain at least one array")
    for leaf in leaves:
        if not aval_of(leaf).shape:  # scan's class and message
            raise ValueError(
                "lax.map got value with no leading axis to map over: "
                f"{aval_of(leaf).str_short()}{mlir.where_suffix()}"
            )
    n = aval_of(leaves[0]).shape[0]
    batch_size = int(batch_size)
    if batch_size < 0:
        raise ValueError(
            f"lax.map: batch_size must be non-negative, got {batch_size}{mlir.where_suffix()}"
        )
    batched_f = vmap(f)
    num_batches, remainder = divmod(n, batch_size) if batch_size else (0, n)
    if num_batches == 0:  # no full batch (batch_size 0, or n < batch_size, n = 0 included)
        return batched_f(xs)
    main = tree_util.tree_map(
        lambda x: lax.reshape(
            lax.slice_in_dim(x, 0, num_batches * batch_size),
            (num_batches, batch_size, *aval_of(x).shape[1:]),
        ),
        xs,
    )
    ys = scan(lambda _, x: ((), batched_f(x)), (), main)[1]
    parts = [
        tree_util.tree_map(
            lambda y: lax.reshape(y, (num_batches * batch_size, *aval_of(y).shape[2:])), ys
        )
    ]
    if remainder:
        tail = tree_util.tree_map(lambda x: lax.slice_in_dim(x, num_batches * batch_size, n), xs)
        parts.append(batched_f(tail))
    if len(parts) == 1:
        return parts[0]
    return tree_util.tree_map(lambda a, b: lax.concatenate([a, b], 0), *parts)


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Inclusive prefix "sums" under an associative `fn` in O(log n) parallel steps.

    `fn(a, b)` combines two pytrees of arrays elementwise along `axis` (it must broadcast over
    leading slices). With `reverse`, prefixes run from the end: out[i] = fn(out[i+1], x[i]).
    Example: `lax.associative_scan(jnp.add, x)` is `jnp.cumsum(x)`.
    """
    from stablax._src import lax

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
        return [lax.slice_in_dim(x, start, stop, stride, axis) for x in xs]

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
        even = [
            lax.concatenate([f, r], axis) for f, r in zip(take(xs, 0, 1), even_rest, strict=True)
        ]
        return [_interleave(e, o, axis) for e, o in zip(even, odd, strict=True)]

    if reverse:
        leaves = [lax.rev(x, (axis,)) for x in leaves]
    out = prefix(leaves)
    if reverse:
        out = [lax.rev(x, (axis,)) for x in out]
    return tree_util.tree_unflatten(tree, out)


def _interleave(even: Any, odd: Any, axis: int) -> Any:
    """even[0], odd[0], even[1], odd[1], ... along `axis` (even may be one longer)."""
    from stablax._src import lax

    n_even, n_odd = aval_of(even).shape[axis], aval_of(odd).shape[axis]
    if n_even > n_odd:  # pad odd with a dummy slice, interleave, drop the last element
        odd = lax.concatenate([odd, lax.slice_in_dim(even, 0, 1, 1, axis)], axis)
    shape = aval_of(even).shape
    pair_shape = (*shape[: axis + 1], 1, *shape[axis + 1 :])
    both = lax.concatenate([lax.reshape(even, pair_shape), lax.reshape(odd, pair_shape)], axis + 1)
    merged = (*shape[:axis], 2 * shape[axis], *shape[axis + 1 :])
    out = lax.reshape(both, merged)
    return lax.slice_in_dim(out, 0, n_even + n_odd, 1, axis)


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """NumPy's piecewise: funclist[i] where condlist[i] holds (later conditions win), the extra
    last function (or 0) where none does; constants stand for constant functions.

    Each element picks its function through a `lax.switch` under vmap (a select of the
    branches' values), as jnp.piecewise does in JAX.
    """
    from stablax._src import lax
    from stablax._src.numpy import _creation
    from stablax._src.transforms.vmap_api import vmap

    x = _creation.asarray(x)
    dtype = aval_of(x).dtype
    conds = _creation.asarray(condlist, dtype=np.bool_)
    if aval_of(conds).ndim == 0 or aval_of(conds).ndim == aval_of(x).ndim == 0:
        conds = lax.reshape(conds, (1, *aval_of(conds).shape))
    nc, nf = aval_of(conds).shape[0], len(funclist)
    if nf == nc + 1:
        default, funcs = funclist[-1], list(funclist[:-1])
    elif nf == nc:
        default, funcs = 0, list(funclist)
    else:
        raise ValueError(
            f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}"
        )
    shape = aval_of(x).shape
    cond_shape = aval_of(conds).shape[1:]
    if len(cond_shape) > len(shape) or any(
        c not in (1, d) for c, d in zip(cond_shape[::-1], shape[::-1], strict=False)
    ):
        raise ValueError(
            f"jnp.piecewise: conditions of shape {cond_shape} do not broadcast to x's shape "
            f"{shape}{mlir.where_suffix()}"
        )
    conds = lax.broadcast_in_dim(
        conds, (nc, *shape), (0, *range(1 + len(shape) - len(cond_shape), 1 + len(shape)))
    )
    counts = lax.cumsum(lax.convert_element_type(conds, np.int32), 0)
    # Index of the last condition that holds, plus one (0: none holds, the default applies).
    index = lax.argmax(
        lax.concatenate([lax.full((1, *shape), 0, np.int32), counts], 0), 0, np.int32
    )

    def as_function(f: Any) -> Callable:
        if callable(f):
            return lambda v: lax.convert_element_type(f(v, *args, **kw), dtype)
        constant = np.asarray(f, dtype=dtype)
        return lambda v: lax.full((), constant, dtype)

    branches = [as_function(f) for f in [default, *funcs]]
    flat = vmap(lambda i, v: switch(i, branches, v))(
        lax.reshape(index, (int(np.prod(shape, dtype=np.int64)),)),
        lax.reshape(x, (int(np.prod(shape, dtype=np.int64)),)),
    )
    return lax.reshape(flat, shape)
