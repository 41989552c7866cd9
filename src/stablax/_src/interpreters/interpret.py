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
from stablax._src.core import Tracer
from stablax._src.ir import ir
from stablax._src.op_rules import op_key
from stablax._src.staging import run_staged

__all__ = ["aval_of_value", "body", "operand_values", "decode", "interpret"]


def body(fn: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """(inputs, ops except the return, returned values) of a function."""
    return fn.parts()


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


def call_traced(traced: core.TracedFunction, args: Sequence[Any]) -> list[Any]:
    """Applies a traced function: inlined into the current trace, or compiled and run."""
    if core.current_trace() is not None:
        return interpret(traced, args)
    return run_staged(lambda *xs: interpret(traced, xs), list(args))
