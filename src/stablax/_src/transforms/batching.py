"""vmap as a rewrite of StableHLO functions: each op's batching rule moves or adds the batch
dimension so the machine runs one batched op, not a loop.

Values carry a batch dimension index or None (unbatched). Rules live in
`op_rules.batch_rules[op]`: (values, dims, *, axis_size, **params) -> (outputs, output dims).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stablax._src import core, dispatch, op_rules
from stablax._src import ir as mlir
from stablax._src.transforms.interpret import decode, emit_constant, op_key, operand_values


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
        op_name = name.split(".", 1)[-1]  # the op, not its MLIR dialect (as JAX names it)
        raise NotImplementedError(f"[vmap] batching rule for '{op_name}' not implemented")
    outs, out_dims = rule(values, dims, axis_size=axis_size, **params)
    if not isinstance(outs, (list, tuple)):
        outs, out_dims = [outs], [out_dims]
    return list(outs), list(out_dims)


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
