"""`func.call`: calls of private functions of the module being built, with all their rules.

A callee may carry a rule (custom_jvp, custom_vjp, checkpoint, hi-primitives: the payload
objects of custom_jvp.py, custom_vjp.py, checkpoint.py, transforms/hijax.py), kept in its
module's `payloads` under the callee's name, so the module holds everything the rewrites need.
A call without a rule (a function from elsewhere) is transformed by rewriting its callee
inline. XLA inlines the calls.

A rule object answers `kind` and `jvp(callee, primals, tangents)`, and may answer
`transpose(cts, operands)`, `batch(values, dims, axis_size)` (its own batching, custom_vmap's) or
`batched(arg_dims, axis_size)` (itself for a call batched at axis 0, with `num_args` and
`batches_closed_over`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stablax._src import bodies, core, dispatch, op_rules
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.interpreters import ad
from stablax._src.interpreters.batching import at_front, batch_traced, bdim_at_front
from stablax._src.interpreters.interpret import close
from stablax._src.ir import ir


def _call_shape_rule(*avals: ShapedArray, callee: Any, rule: Any) -> tuple[ShapedArray, ...]:
    got = [a.strip_weak_type() for a in avals]
    if [a.strip_weak_type() for a in callee.in_avals] != got:
        raise TypeError(
            f"func.call: argument types {[a.str_short() for a in got]} do not match the "
            f"callee's {[a.str_short() for a in callee.in_avals]}"
        )
    return tuple(callee.out_avals)


def _call_lowering(operands, in_avals, out_avals, *, callee, rule):
    trace = core.lowering_trace()
    name = bodies.add_function(trace, callee, rule.kind if rule is not None else "callee", rule)
    op = mlir.emit(
        "func.call",
        operands,
        [mlir.aval_type(a) for a in out_avals],
        {"callee": ir.FlatSymbolRefAttr.get(name)},
    )
    return list(op.results)


def _decode_call(op: Any, owner: Any) -> dict[str, Any]:
    name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    return {"callee": bodies.Callee(owner, name), "rule": owner.payloads.get(name)}


def call(callee: Any, args: Sequence[Any], rule: Any = None) -> list[Any]:
    """Emits a call of `callee` (a closed function) on `args` with `rule` as its payload."""
    out = dispatch.bind("func.call", *args, callee=callee, rule=rule)
    return list(out) if isinstance(out, tuple) else [out]


def call_traced_closed(traced: core.TracedFunction, args: Sequence[Any], rule: Any) -> list[Any]:
    """Calls a traced function, passing its captured values after `args`."""
    return call(close(traced), [*args, *traced.captured], rule)


# --- rules of plain calls: rewrite the callee inline; calls with rules delegate to them ------


def _call_jvp(primals, tangents, *, callee, rule):
    if rule is not None:
        return rule.jvp(callee, list(primals), list(tangents))
    return ad.jvp_traced(callee, primals, tangents)


def _call_transpose(cts, *operands, callee, rule):
    cts = list(cts) if isinstance(cts, (list, tuple)) else [cts]
    if rule is not None:
        if not hasattr(rule, "transpose"):
            raise NotImplementedError(f"[transpose] a {rule.kind} call is not linear")
        return rule.transpose(cts, operands)
    linear = [ad.is_undefined(x) for x in operands]
    if not all(linear[: sum(linear)]):
        raise NotImplementedError("[transpose] a call whose linear inputs do not come first")
    n = sum(linear)
    return ad.transpose_traced(callee, list(operands[n:]), cts, num_linear=n) + [None] * (
        len(operands) - n
    )


def batched_body(callee: Any, dims: Sequence[int | None], axis_size: int) -> core.TracedFunction:
    """A closed function computing `callee` on inputs batched at 0 where `dims` says so, every
    output batched at 0."""
    batched_avals = [
        a if d is None else ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type)
        for a, d in zip(callee.in_avals, dims, strict=True)
    ]

    def body(*xs):
        outs, out_dims = batch_traced(callee, xs, dims, axis_size)
        return [bdim_at_front(o, d, axis_size) for o, d in zip(outs, out_dims, strict=True)]

    return core.trace_to_func(body, batched_avals)


def _call_batch(values, dims, *, axis_size, callee, rule):
    # A plain call, or one whose rule is a traced function, is batched inline; a custom
    # function's call calls its batched body with its rules batched too.
    if hasattr(rule, "batch"):  # a rule of its own (custom_vmap)
        return rule.batch(values, dims, axis_size)
    if not hasattr(rule, "batched"):
        return batch_traced(callee, values, dims, axis_size)
    n = rule.num_args
    values, dims = at_front(values, dims)
    if not rule.batches_closed_over and any(d is not None for d in dims[n:]):
        raise NotImplementedError(
            f"[vmap] a {rule.kind} function that closes over batched values; pass them to it "
            "as arguments instead"
        )
    outs = call(batched_body(callee, dims, axis_size), values, rule.batched(dims[:n], axis_size))
    return outs, [0] * len(outs)


op_rules.def_op(
    "func.call",
    _call_shape_rule,
    _call_lowering,
    decode=_decode_call,
    decode_reads_owner=True,
    cache_eagerly=False,
    jvp=_call_jvp,
    transpose=_call_transpose,
    batch=_call_batch,
)
