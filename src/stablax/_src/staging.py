"""Traced functions applied where they are needed: copied into the trace being built (op by op,
no rules run, where every value is abstract), or compiled and run on concrete values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import bodies, core, ir_passes
from stablax._src import ir as mlir
from stablax._src.array import Array, raise_if_deleted
from stablax._src.bodies import aval_of_value
from stablax._src.concrete import evaluate_prefix
from stablax._src.config import config
from stablax._src.core import Tracer
from stablax._src.dispatch import compile_time_eval, compile_traced, to_array
from stablax._src.ir import ir
from stablax._src.nan_locator import check_program


def all_abstract() -> bool:
    """Whether no value of the traces being built can be concrete: each one's inputs stand for no
    values, or for tracers of traces like it (grad inside jit), never for arrays (grad outside
    jit), and no rewrite or lowering is emitting. Ops copied in then need no `bind`."""
    state = core.trace_state
    return state.target is None and state.lowering is None and no_concrete_values()


def no_concrete_values() -> bool:
    """Whether no value of the traces being built can be concrete (`all_abstract` less its
    conditions on rewrites): code traced on abstract values then traces the same everywhere."""
    if compile_time_eval.active:
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


def emit_constant(op: Any, trace: core.FuncTrace | None = None) -> Any:
    """A copy of a `stablehlo.constant` op in `trace` (the current trace by default)."""
    trace = core.current_trace() if trace is None else trace
    if trace is None:
        raise RuntimeError("stablax: internal error, constants are only re-emitted while tracing")
    with trace.context, ir.Location.unknown(), trace.insertion_point():
        new = op.clone()
    return Tracer(trace, aval_of_value(new.results[0]), new.results[0])


def is_flat(fn: Any) -> bool:
    """Whether `fn` has no op that `copy_routed` cannot clone alone (regions, calls, payloads)."""
    return not any(
        len(op.regions) or op.name == "func.call" or ir_passes.PAYLOAD_ATTRIBUTE in op.attributes
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


def run_staged(fun: Callable[..., Sequence[Any]], args: Sequence[Any]) -> list[Any]:
    """Runs `fun` (flat values in, flat values out) as one compiled program, or inline if tracing.

    Outside any trace the inputs are concrete, so the staging trace records them as sources:
    Python control flow on values inside `fun` works, as JAX's eager transformations allow.
    """
    trace = core.current_trace()
    if trace is not None:
        return list(fun(*[x if hasattr(x, "aval") else core.to_tracer(trace, x) for x in args]))
    mlir.start_top_level_trace()
    arrays = [to_array(a) for a in args]
    traced = core.trace_to_func(
        fun, [a.aval for a in arrays], sources=arrays, evaluate=evaluate_prefix
    )
    executable, _ = compile_traced(traced)
    captured = [to_array(c) for c in traced.captured]
    raise_if_deleted(arrays + captured)  # a deleted or donated input: say so before XLA does
    buffers = [a._buf for a in arrays] + [c._buf for c in captured]
    outs = executable.execute(buffers)
    if config.jax_debug_nans or config.jax_debug_infs:
        check_program(None, traced, buffers, outs, executable.device)

    return [Array(b, a) for b, a in zip(outs, traced.out_avals, strict=True)]
