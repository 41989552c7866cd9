"""Shared pieces of batching rules (vmap), and the rules of the elementwise family.

A batching rule gets each operand with its batch dimension (or None when unbatched) and emits
one batched op with stablax.lax functions: no loop over the batch.
"""

from __future__ import annotations

from typing import Any

from stablax._src import dispatch, op_rules
from stablax._src.avals import ShapedArray
from stablax._src.lax import _elementwise as _ew
from stablax._src.lax import _elementwise_unary as _ew_unary


def aval_of(x: Any) -> ShapedArray:
    from stablax._src.lax._shapes import aval_of as lax_aval_of

    return lax_aval_of(x)


def moveaxis(x: Any, src: int, dst: int) -> Any:
    """Moves axis `src` of x to position `dst` (a transpose, or nothing)."""
    from stablax._src import lax

    ndim = aval_of(x).ndim
    src, dst = src % ndim, dst % ndim
    if src == dst:
        return x
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def bdim_at_front(x: Any, bdim: int | None, axis_size: int) -> Any:
    """x with its batch dimension first, broadcasting an unbatched x."""
    from stablax._src import lax

    if bdim is None:
        shape = aval_of(x).shape
        return lax.broadcast_in_dim(x, (axis_size, *shape), tuple(range(1, len(shape) + 1)))
    return moveaxis(x, bdim, 0)


# --- rule families -----------------------------------------------------------------------------


def elementwise_batch_rule(name: str):
    """Ops whose operands share one shape: batch every operand at dim 0 (unbatched ones are
    broadcast, which XLA fuses away) and apply the op once."""

    def rule(values, dims, *, axis_size, **params):
        from stablax._src import lax

        # The batched shape: the widest operand's unbatched shape with the batch dim in front.
        ranks = [aval_of(x).ndim - (d is not None) for x, d in zip(values, dims, strict=True)]
        widest = max(range(len(values)), key=lambda i: ranks[i])
        base = list(aval_of(values[widest]).shape)
        if dims[widest] is not None:
            base.pop(dims[widest])
        full = (axis_size, *base)
        moved = []
        for x, d, rank in zip(values, dims, ranks, strict=True):
            if d is None:
                if rank == 0 and base:  # a scalar operand (select predicate, clamp bounds)
                    moved.append(x)
                else:
                    moved.append(lax.broadcast_in_dim(x, full, tuple(range(1, len(full)))))
            elif rank == 0 and base:  # a batched scalar operand: spread it over the shape
                moved.append(lax.broadcast_in_dim(x, full, (0,)))
            else:
                moved.append(moveaxis(x, d, 0))
        out = dispatch.bind(name, *moved, **params)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [0] * len(outs)

    return rule


def register_elementwise(*names: str) -> None:
    for name in names:
        op_rules.batch_rules[name] = elementwise_batch_rule(name)


register_elementwise(
    *(row[0] for row in _ew_unary.UNARY_OPS.values()),
    *(row[0] for row in _ew.BINARY_OPS.values()),
    "stablehlo.compare",
    "stablehlo.select",
    "stablehlo.clamp",
    "stablehlo.complex",
    "stablehlo.round_nearest_afz",
    "stablehlo.round_nearest_even",
    "stablehlo.custom_call:stablax.stop_gradient",
)
