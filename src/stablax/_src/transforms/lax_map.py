"""lax.map: a scan over the leading axis, optionally of vmapped batches (so it sits above vmap)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax._src import ir as mlir
from stablax._src import tree_util
from stablax._src.avals import aval_of
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._control_flow_scan import scan
from stablax._src.lax._shapes import reshape
from stablax._src.lax._slice_pad import concatenate, slice_in_dim
from stablax._src.transforms.vmap_api import vmap


def map(f: Callable, xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001 (JAX's name)
    """`stack([f(x) for x in xs])` along the leading axis, as a scan (one compiled body).

    With `batch_size`, each scan step applies vmap(f) to that many elements (a remainder is
    vmapped once after the loop); `batch_size=0` is one full batch, `vmap(f)(xs)`, as in JAX.
    """
    check_callable("lax.map", f, "f")
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
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
        lambda x: reshape(
            slice_in_dim(x, 0, num_batches * batch_size),
            (num_batches, batch_size, *aval_of(x).shape[1:]),
        ),
        xs,
    )
    ys = scan(lambda _, x: ((), batched_f(x)), (), main)[1]
    parts = [
        tree_util.tree_map(
            lambda y: reshape(y, (num_batches * batch_size, *aval_of(y).shape[2:])), ys
        )
    ]
    if remainder:
        tail = tree_util.tree_map(lambda x: slice_in_dim(x, num_batches * batch_size, n), xs)
        parts.append(batched_f(tail))
    if len(parts) == 1:
        return parts[0]
    return tree_util.tree_map(lambda a, b: concatenate([a, b], 0), *parts)
