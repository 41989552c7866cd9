"""Reading StableHLO functions back: walk a function's ops and re-emit them through `bind`.

Every rewrite (jvp, transpose, batching) is an interpreter over a function (a traced function, a
private function or a region, see bodies.py): it maps each op's operands through an environment
and calls a rule. `call_traced` is the identity rewrite: it inlines a function into the current
trace, or runs it when no trace is active.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import bodies, core, dispatch, op_rules
from stablax._src import ir as mlir
from stablax._src.bodies import aval_of_value
from stablax._src.concrete import evaluate_prefix
from stablax._src.core import Tracer
from stablax._src.ir import ir

# A `stablehlo.while` carrying this attribute is a scan (see lax/_control_flow_scan.py).
SCAN_ATTRIBUTE = "stablax.scan"
SCAN = "stablax.scan"

__all__ = ["aval_of_value", "body", "op_key", "operand_values", "decode", "interpret"]


def body(fn: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """(inputs, ops except the return, returned values) of a function."""
    return fn.parts()


def op_key(op: Any) -> str:
    """The rule-table key of an op: its name, "stablehlo.custom_call:<target>", or "stablax.scan"
    for a `stablehlo.while` marked as a scan."""
    name = op.name
    if name == "stablehlo.custom_call":
        return f"{name}:{ir.StringAttr(op.attributes['call_target_name']).value}"
    if name == "stablehlo.while" and SCAN_ATTRIBUTE in op.attributes:
        return SCAN
    return name


def operand_values(op: Any, key: str | None = None) -> list[Any]:
    """The values an op reads: its operands, then what its regions read from above."""
    key = op_key(op) if key is None else key
    if key in op_rules.captures_from_above:
        return [*op.operands, *bodies.free_values(op)]
    return list(op.operands)


def decode(op: Any, owner: Any = None, key: str | None = None) -> dict[str, Any]:
    """The params that re-emit `op` through `bind` (`owner`: the function holding it)."""
    key = op_key(op) if key is None else key
    try:
        decoder = op_rules.param_decoders[key]
    except KeyError:
        raise NotImplementedError(f"stablax: no rules for op {key}") from None
    return decoder(op, owner)


def emit_constant(op: Any, trace: core.FuncTrace | None = None) -> Any:
    """A copy of a `stablehlo.constant` op in `trace` (the current trace by default)."""
    trace = core.current_trace() if trace is None else trace
    if trace is None:
        raise RuntimeError("stablax: internal error, constants are only re-emitted while tracing")
    with trace.context, ir.Location.unknown(), trace.insertion_point():
        new = op.clone()
    return Tracer(trace, aval_of_value(new.results[0]), new.results[0])


@mlir.rewrites_one_op
def eval_op(op: Any, operands: Sequence[Any], owner: Any) -> list[Any]:
    """Re-emits one op on new operands (constants are copied into the target trace)."""
    if op.name == "stablehlo.constant":
        return [emit_constant(op, core.trace_state.target)]
    key = op_key(op)
    out = dispatch.bind(key, *operands, **decode(op, owner, key))
    return list(out) if isinstance(out, tuple) else [out]


def interpret(
    fn: Any,
    args: Sequence[Any],
    rule: Callable[[Any, list[Any], Any], list[Any]] = eval_op,
) -> list[Any]:
    """Runs `rule(op, operand_values, owner)` over the function's ops; returns the outputs' values.

    Captured values of the function are bound to its trailing arguments as they are.
    """
    arguments, ops, returned = fn.parts()
    owner = fn.owner
    env = dict(zip(arguments, [*args, *fn.captured], strict=True))
    for op in ops:
        outs = rule(op, [env[v] for v in operand_values(op)], owner)
        for result, value in zip(op.results, outs, strict=True):
            env[result] = value
    return [env[v] for v in returned]


def all_abstract() -> bool:
    """Whether no value of the traces being built can be concrete: each one's inputs stand for no
    values, or for tracers of traces like it (grad inside jit), never for arrays (grad outside
    jit), and no rewrite or lowering is emitting. Ops copied in then need no `bind`."""
    state = core.trace_state
    return state.target is None and state.lowering is None and no_concrete_values()


def no_concrete_values() -> bool:
    """Whether no value of the traces being built can be concrete (`all_abstract` less its
    conditions on rewrites): code traced on abstract values then traces the same everywhere."""
    if dispatch.compile_time_eval.active:
        return False
    return all(_abstract(t) for t in core.trace_state.stack)


def _abstract(trace: core.FuncTrace) -> bool:
    sources = trace.sources
    return sources is None or all(isinstance(s, Tracer) and _abstract(s._trace) for s in sources)


def copy_in(fn: Any, args: Sequence[Any]) -> list[Tracer]:
    """`fn` applied to `args` by copying its ops (MLIR clones, no rules run) into the trace they
    belong to; its captured values are read like arguments. Use only where `all_abstract()`."""
    leaves = [*args, *fn.captured]
    current = core.trace_state.stack[-1]
    trace = core.operand_trace(leaves, current)
    tracers = [core.to_tracer(trace, x) for x in leaves]
    values = [t.value for t in tracers]
    if fn.captured:  # the same function, its captured values as trailing inputs
        fn = fn.with_signature([*fn.in_avals, *(t.aval for t in tracers[len(args) :])], [])
    saved, core.trace_state.lowering = core.trace_state.lowering, trace
    try:
        if trace is current:
            outs = bodies.inline(fn, values)
        else:
            with trace.insertion_point():
                outs = bodies.inline(fn, values)
    finally:
        core.trace_state.lowering = saved
    return [Tracer(trace, a, v) for a, v in zip(fn.out_avals, outs, strict=True)]


def is_flat(fn: Any) -> bool:
    """Whether `fn` has no op that `copy_routed` cannot clone alone (regions, calls, payloads)."""
    return not any(
        len(op.regions) or op.name == "func.call" or bodies.PAYLOAD_ATTRIBUTE in op.attributes
        for op in fn.parts()[1]
    )


def copy_routed(fn: Any, args: Sequence[Any]) -> list[Tracer]:
    """`interpret(fn, args)` for a closed function that `is_flat`, with each op cloned rather than
    re-emitted through `bind`, into the trace `bind` would choose for it (the innermost trace of
    its operands): under linearize, primal ops land in K and tangent ops in L. About three times
    cheaper an op; the outputs have `fn`'s avals."""
    arguments, ops, returned = fn.parts()
    env = dict(zip(arguments, args, strict=True))
    default = core.trace_state.target or core.current_trace()
    for op in ops:
        operands = [env[v] for v in op.operands]
        trace = core.operand_trace(operands, default)
        values = [core.to_tracer(trace, x).value for x in operands]
        new = op.clone(ip=trace.insertion_point())
        for i, v in enumerate(values):
            new.operands[i] = v
        for result, value in zip(op.results, new.results, strict=True):
            env[result] = Tracer(trace, aval_of_value(value), value)
    outs = [env[v] for v in returned]
    return [
        o if not isinstance(o, Tracer) or o.aval == a else Tracer(o._trace, a, o.value)
        for o, a in zip(outs, fn.out_avals, strict=True)
    ]


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

    mlir.start_top_level_trace()
    arrays = [to_array(a) for a in args]
    traced = core.trace_to_func(
        fun, [a.aval for a in arrays], sources=arrays, evaluate=evaluate_prefix
    )
    executable = compile_traced(traced)
    captured = [to_array(c) for c in traced.captured]
    from stablax._src.array import Array, raise_if_deleted

    raise_if_deleted(arrays + captured)  # a deleted or donated input: say so before XLA does
    outs = executable.execute([a._buf for a in arrays] + [c._buf for c in captured])

    return [Array(b, a) for b, a in zip(outs, traced.out_avals, strict=True)]
