"""vmap as a rewrite of StableHLO functions: each op's batching rule moves or adds the batch
dimension so the machine runs one batched op, not a loop.

Values carry a batch dimension index or None (unbatched). Rules live in
`op_rules.batch_rules[op]`: (values, dims, *, axis_size, **params) -> (outputs, output dims).
Here too: the pieces rules share, and the named axes of the enclosing vmaps (for collectives).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from stablax._src import core, dispatch, op_rules
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.interpreters.interpret import decode, emit_constant, operand_values
from stablax._src.op_rules import op_key


@mlir.rewrites_one_op
def batch_op(op: Any, values: list[Any], dims: list[int | None], axis_size: int, owner: Any):
    name = op_key(op)
    if name == "stablehlo.constant":
        # Into the target trace if one is set, as every op without tracer operands: during
        # linearize that is the primal function (a vmapped custom_jvp rule runs there).
        return [emit_constant(op, core.trace_state.target)], [None]
    params = decode(op, owner, name)
    if all(d is None for d in dims) and name not in op_rules.named_axis_ops:
        out = dispatch.bind(name, *values, **params)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [None] * len(outs)
    rule = op_rules.batch_rules.get(name)
    if rule is None:
        raise _no_batch_error(name)
    outs, out_dims = rule(values, dims, axis_size=axis_size, **params)
    if not isinstance(outs, (list, tuple)):
        outs, out_dims = [outs], [out_dims]
    return list(outs), list(out_dims)


def _no_batch_error(name: str) -> NotImplementedError:
    op_name = name.split(".", 1)[-1]  # the op, not its MLIR dialect (as JAX names it)
    return NotImplementedError(f"[vmap] batching rule for '{op_name}' not implemented")


def batch_not_implemented(name: str) -> Callable[..., Any]:
    """The batching rule of an op stablax cannot batch yet (JAX's NotImplementedError)."""

    def rule(values, dims, *, axis_size, **params):
        raise _no_batch_error(name)

    return rule


def batch_traced(
    traced: Any, args: Sequence[Any], dims: Sequence[int | None], axis_size: int
) -> tuple[list[Any], list[int | None]]:
    """The batched version of a function (traced, private or a region), emitted into the
    current trace."""
    arguments, ops, returned = traced.parts()
    owner = traced.owner
    env = dict(zip(arguments, [*args, *traced.captured], strict=True))
    denv = dict(zip(arguments, [*dims, *([None] * len(traced.captured))], strict=True))
    for op in ops:
        operands = operand_values(op)
        outs, out_dims = batch_op(
            op, [env[v] for v in operands], [denv[v] for v in operands], axis_size, owner
        )
        for r, value, d in zip(op.results, outs, out_dims, strict=True):
            env[r] = value
            denv[r] = d
    return [env[v] for v in returned], [denv[v] for v in returned]


# --- pieces of batching rules ------------------------------------------------------------------


def moveaxis(x: Any, src: int, dst: int) -> Any:
    """Moves axis `src` of x to position `dst` (a transpose, or nothing)."""
    ndim = aval_of(x).ndim
    src, dst = src % ndim, dst % ndim
    if src == dst:
        return x
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return dispatch.bind("stablehlo.transpose", x, permutation=tuple(perm))


def broadcast_in_dim(x: Any, shape: Sequence[int], dims: Sequence[int]) -> Any:
    return dispatch.bind(
        "stablehlo.broadcast_in_dim", x, shape=tuple(shape), broadcast_dimensions=tuple(dims)
    )


def at_front(values: Sequence[Any], dims: Sequence[int | None]):
    """Batched values with their batch dim moved to axis 0; unbatched ones as they are."""
    moved = [x if d is None else moveaxis(x, d, 0) for x, d in zip(values, dims, strict=True)]
    return moved, [None if d is None else 0 for d in dims]


def bdim_at_front(x: Any, bdim: int | None, axis_size: int) -> Any:
    """x with its batch dimension first, broadcasting an unbatched x."""
    if bdim is None:
        shape = aval_of(x).shape
        return broadcast_in_dim(x, (axis_size, *shape), range(1, len(shape) + 1))
    return moveaxis(x, bdim, 0)


def elementwise_batch_rule(name: str):
    """Ops whose operands share one shape: batch every operand at dim 0 (unbatched ones are
    broadcast, which XLA fuses away) and apply the op once."""

    def rule(values, dims, *, axis_size, **params):
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
                    moved.append(broadcast_in_dim(x, full, range(1, len(full))))
            elif rank == 0 and base:  # a batched scalar operand: spread it over the shape
                moved.append(broadcast_in_dim(x, full, (0,)))
            else:
                moved.append(moveaxis(x, d, 0))
        out = dispatch.bind(name, *moved, **params)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [0] * len(outs)

    return rule


# --- the named axes of the enclosing vmaps -----------------------------------------------------


class _AxisEnv(threading.local):
    def __init__(self) -> None:
        # Named axes of the enclosing vmaps, outermost first, and the axis of each running batch
        # rewrite (None for an unnamed vmap).
        self.frames: list[tuple[Hashable, int]] = []
        self.rewriting: list[Hashable] = []


_env = _AxisEnv()


@contextlib.contextmanager
def axis_frame(name: Hashable, size: int) -> Iterator[None]:
    """Binds axis `name` of `size` for the collectives traced inside (no-op for name None)."""
    if name is None:
        yield
        return
    _env.frames.append((name, size))
    try:
        yield
    finally:
        _env.frames.pop()


@contextlib.contextmanager
def rewriting_axis(name: Hashable) -> Iterator[None]:
    """Marks the batch rewrite running inside as the one that maps axis `name`."""
    _env.rewriting.append(name)
    try:
        yield
    finally:
        _env.rewriting.pop()


def bound_axis_size(name: Hashable) -> int:
    """The size of the innermost vmap axis called `name`; NameError when none is bound."""
    for bound, size in reversed(_env.frames):
        if bound == name:
            return size
    available = [bound for bound, _ in _env.frames]
    raise NameError(
        f"unbound axis name: {name}. Collectives (psum, pmean, all_gather, axis_index, ...) "
        f"reduce over an axis bound by an enclosing vmap(..., axis_name={name!r}); the axis "
        f"names bound here are {available}."
    )


def rewritten_axis() -> Hashable:
    """The axis name of the batch rewrite running now (None for an unnamed vmap or none)."""
    return _env.rewriting[-1] if _env.rewriting else None
