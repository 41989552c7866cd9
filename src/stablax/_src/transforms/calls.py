"""Function calls that carry rules: custom_jvp, custom_vjp and checkpoint as `func.call` ops.

The primal function is traced once per signature into a private `func.func` of the module being
built, and a `func.call` to it is emitted. The callee's name keys `callees`, which holds the
traced function and what the rewrites should do with it: a user jvp rule, fwd/bwd pair, or a
rematerialization policy. XLA inlines the calls; the rewrites read them.
"""

from __future__ import annotations

import itertools
from typing import Any

from stablax._src import core, dispatch
from stablax._src.core import ShapedArray
from stablax._src.ir import ir


class Callee:
    """A traced function reachable by name, with the rule the rewrites apply to its calls."""

    def __init__(self, name: str, traced: core.TracedFunction, kind: str, rule: Any) -> None:
        self.name = name
        self.traced = traced
        self.kind = kind  # "custom_jvp", "custom_vjp" or "remat"
        self.rule = rule


callees: dict[str, Callee] = {}
# Callees whose calls are ops of their own in the rule tables (control flow: "stablax.scan", ...):
# callee name -> rule-table key, read by `interpret.op_key`.
op_keys: dict[str, str] = {}
_by_content: dict[tuple, str] = {}
_counter = itertools.count()


def register_callee(
    kind: str, traced: core.TracedFunction, rule: Any, rule_key: Any
) -> tuple[Callee, list[Any]]:
    """The callee for this traced body and rule, and the captured values to pass this time.

    Callees are shared by content (the body's text and the rule), so repeated calls emit
    identical modules and hit the compile cache; captured values are operands of each call.
    """
    key = (kind, traced.text(), rule_key)
    name = _by_content.get(key)
    if name is None:
        name = f"{kind}_{next(_counter)}"
        callees[name] = Callee(name, traced, kind, rule)
        _by_content[key] = name
    return callees[name], traced.captured


def _ensure_callee_in_module(trace: core.FuncTrace, callee: Callee) -> None:
    defined = trace.__dict__.setdefault("_callees", set())
    if callee.name in defined:
        return
    with trace.context, ir.Location.unknown(), ir.InsertionPoint(trace.module.body):
        clone = callee.traced.func_op.operation.clone()
        clone.attributes["sym_name"] = ir.StringAttr.get(callee.name)
        clone.attributes["sym_visibility"] = ir.StringAttr.get("private")
        # Nested callees of the callee must exist in this module too.
    for nested in _nested_callees(callee.traced):
        _ensure_callee_in_module(trace, callees[nested])
    defined.add(callee.name)


def _nested_callees(traced: core.TracedFunction) -> list[str]:
    names: list[str] = []

    def walk(block: Any) -> None:  # calls inside regions (control-flow bodies) count too
        for op in block.operations:
            operation = op.operation
            if operation.name == "func.call":
                names.append(ir.FlatSymbolRefAttr(operation.attributes["callee"]).value)
            for region in operation.regions:
                for inner in region.blocks:
                    walk(inner)

    walk(traced.func_op.regions[0].blocks[0])
    return names


def _call_shape_rule(*avals: ShapedArray, callee: str) -> tuple[ShapedArray, ...]:
    traced = callees[callee].traced
    expected = [*traced.in_avals, *[_aval(c) for c in traced.captured]]
    got = [a.strip_weak_type() for a in avals]
    if [a.strip_weak_type() for a in expected] != got:
        raise TypeError(
            f"call of {callee}: argument types {[a.str_short() for a in got]} do not "
            f"match {[a.str_short() for a in expected]}"
        )
    return tuple(traced.out_avals)


def _aval(x: Any) -> ShapedArray:
    from stablax._src.lax._shapes import aval_of

    return aval_of(x)


def _call_lowering(operands, in_avals, out_avals, *, callee):
    from stablax._src import ir as mlir

    trace = core.current_trace()
    _ensure_callee_in_module(_trace_of_insertion(trace), callees[callee])
    op = mlir.emit(
        "func.call",
        operands,
        [mlir.aval_type(a) for a in out_avals],
        {"callee": ir.FlatSymbolRefAttr.get(callee)},
    )
    return list(op.results)


def _trace_of_insertion(default: core.FuncTrace) -> core.FuncTrace:
    # The lowering runs with the insertion point of the trace `bind` chose; find that trace.
    block = ir.InsertionPoint.current.block
    for trace in reversed(core.trace_state.stack):
        if trace.block == block:
            return trace
    return default


def _decode_call(op: Any) -> dict[str, Any]:
    return {"callee": ir.FlatSymbolRefAttr(op.attributes["callee"]).value}


dispatch.def_op("func.call", _call_shape_rule, _call_lowering, decode=_decode_call)


def call(callee: Callee, args: list[Any], captured: list[Any]) -> list[Any]:
    """Emits a call of `callee` on `args` and this call's captured values."""
    out = dispatch.bind("func.call", *args, *captured, callee=callee.name)
    return list(out)
