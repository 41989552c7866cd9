"""Reading StableHLO functions back: walk a traced function's ops and re-emit them through `bind`.

Every rewrite (jvp, transpose, batching) is an interpreter over a `TracedFunction`: it maps each
op's operands through an environment and calls a rule. `call_traced` is the identity rewrite:
it inlines a function into the current trace, or runs it when no trace is active.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, dispatch
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray, Tracer
from stablax._src.ir import ir
from stablax._src.transforms import calls


def body(traced: core.TracedFunction) -> tuple[list[Any], list[Any], list[Any]]:
    """(block arguments, ops except the return, returned values) of the function."""
    with mlir.context():
        block = traced.func_op.regions[0].blocks[0]
        ops = [op.operation for op in block.operations]
        ret = ops[-1]
        return list(block.arguments), ops[:-1], list(ret.operands)


def aval_of_value(value: Any) -> ShapedArray:
    return ShapedArray(mlir.shape_of_type(value.type), mlir.dtype_of_type(value.type))


def op_key(op: Any) -> str:
    """The rule-table key of an op: its name, "stablehlo.custom_call:<target>", or for a call of
    a control-flow construct its own key ("stablax.scan", see `calls.op_keys`)."""
    name = op.name
    if name == "func.call":
        return calls.op_keys.get(ir.FlatSymbolRefAttr(op.attributes["callee"]).value, name)
    if name == "stablehlo.custom_call":
        return f"{name}:{ir.StringAttr(op.attributes['call_target_name']).value}"
    return name


def decode(op: Any) -> dict[str, Any]:
    try:
        decoder = dispatch.param_decoders[op_key(op)]
    except KeyError:
        raise NotImplementedError(f"stablax: no rules for op {op_key(op)}") from None
    return decoder(op)


def emit_constant(op: Any, trace: core.FuncTrace | None = None) -> Any:
    """A copy of a `stablehlo.constant` op in `trace` (the current trace by default)."""
    trace = core.current_trace() if trace is None else trace
    if trace is None:
        raise RuntimeError("stablax: internal error, constants are only re-emitted while tracing")
    with trace.context, ir.Location.unknown(), trace.insertion_point():
        new = op.clone()
    return Tracer(trace, aval_of_value(new.results[0]), new.results[0])


def eval_op(op: Any, operands: Sequence[Any]) -> list[Any]:
    """Re-emits one op on new operands (constants are copied into the target trace)."""
    if op.name == "stablehlo.constant":
        return [emit_constant(op, core.trace_state.target)]
    out = dispatch.bind(op_key(op), *operands, **decode(op))
    return list(out) if isinstance(out, tuple) else [out]


def interpret(
    traced: core.TracedFunction,
    args: Sequence[Any],
    rule: Callable[[Any, list[Any]], list[Any]] = eval_op,
) -> list[Any]:
    """Runs `rule(op, operand_values)` over the function's ops; returns the outputs' values.

    Captured values of the function are bound to its trailing arguments as they are.
    """
    arguments, ops, returned = body(traced)
    env = dict(zip(arguments, [*args, *traced.captured], strict=True))
    for op in ops:
        outs = rule(op, [env[v] for v in op.operands])
        for result, value in zip(op.results, outs, strict=True):
            env[result] = value
    return [env[v] for v in returned]


def call_traced(traced: core.TracedFunction, args: Sequence[Any]) -> list[Any]:
    """Applies a traced function: inlined into the current trace, or compiled and run."""
    if core.current_trace() is not None:
        return interpret(traced, args)
    return run_staged(lambda *xs: interpret(traced, xs), list(args))


def run_staged(fun: Callable[..., Sequence[Any]], args: Sequence[Any]) -> list[Any]:
    """Runs `fun` (flat values in, flat values out) as one compiled program, or inline if tracing.

    Outside any trace the inputs are concrete, so the staging trace records them as sources:
    Python control flow on values inside `fun` works, as JAX's eager transformations allow.
    """
    trace = core.current_trace()
    if trace is not None:
        return list(fun(*[x if hasattr(x, "aval") else core.to_tracer(trace, x) for x in args]))
    from stablax._src.dispatch import compile_traced, to_array

    arrays = [to_array(a) for a in args]
    traced = core.trace_to_func(fun, [a.aval for a in arrays], sources=arrays)
    executable = compile_traced(traced)
    captured = [to_array(c) for c in traced.captured]
    from stablax._src.array import Array, raise_if_deleted

    raise_if_deleted(arrays + captured)  # a deleted or donated input: say so before XLA does
    outs = executable.execute([a._buf for a in arrays] + [c._buf for c in captured])

    return [Array(b, a) for b, a in zip(outs, traced.out_avals, strict=True)]
