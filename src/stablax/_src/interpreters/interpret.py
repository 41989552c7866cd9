"""Reading StableHLO functions back: walk a function's ops and re-emit them through `bind`.

Every rewrite (jvp, transpose, batching) is an interpreter over a function (a traced function, a
private function or a region, see bodies.py): it maps each op's operands through an environment
and calls a rule. `call_traced` is the identity rewrite: it inlines a function into the current
trace, or runs it when no trace is active.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, dispatch
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.bodies import aval_of_value
from stablax._src.jaxpr_view import Literal
from stablax._src.op_rules import decode, op_key, operand_values
from stablax._src.staging import emit_constant, run_staged

__all__ = ["aval_of_value", "body", "operand_values", "decode", "interpret"]


def body(fn: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """(inputs, ops except the return, returned values) of a function."""
    return fn.parts()


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


def close(traced: Any) -> Any:
    """`traced` with its captured values as ordinary trailing inputs (callees are closed)."""
    if not traced.captured:
        return traced
    in_avals = [*traced.in_avals, *(aval_of(c) for c in traced.captured)]
    return traced.with_signature(in_avals, [])


def eval_jaxpr(jaxpr: Any, consts: Sequence[Any], args: Sequence[Any]) -> list[Any]:
    """Evaluates a jaxpr on `consts` (one per constvar) and `args` (one per invar).

    A view is its StableHLO function applied (inlined under a trace, else compiled and run); a
    jaxpr made or changed by hand runs its equations, each through its primitive's `bind`.
    """
    values = [*consts, *args]
    if jaxpr.source is not None:
        fn, positions = jaxpr.source
        inputs: list[Any] = [None] * len(values)
        for position, value in zip(positions, values, strict=True):
            inputs[position] = value
        return call_traced(close(fn), inputs)
    env = dict(zip([*jaxpr.constvars, *jaxpr.invars], values, strict=True))

    def read(atom: Any) -> Any:
        return atom.val if isinstance(atom, Literal) else env[atom]

    for eqn in jaxpr.eqns:
        out = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        outs = out if eqn.primitive.multiple_results else [out]
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(v) for v in jaxpr.outvars]


def jaxpr_as_fun(closed: Any) -> Callable[..., list[Any]]:
    """`closed` (a ClosedJaxpr, or a Jaxpr without constvars) as a function of its invars."""
    jaxpr, consts = (closed.jaxpr, closed.consts) if hasattr(closed, "consts") else (closed, ())
    return lambda *args: eval_jaxpr(jaxpr, consts, args)


def call_traced(traced: core.TracedFunction, args: Sequence[Any]) -> list[Any]:
    """Applies a traced function: inlined into the current trace, or compiled and run."""
    if core.current_trace() is not None:
        return interpret(traced, args)
    return run_staged(lambda *xs: interpret(traced, xs), list(args))
