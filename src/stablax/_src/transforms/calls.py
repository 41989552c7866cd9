"""`func.call`: calls of private functions of the module being built.

A callee may carry a rule (custom_jvp, custom_vjp, checkpoint: the objects in
custom_derivatives.py), kept in its module's `payloads` under the callee's name, so the module
holds everything the rewrites need. A call without a rule (a function from elsewhere) is
transformed by rewriting its callee inline. XLA inlines the calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stablax._src import bodies, core, dispatch, op_rules
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
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


def close(traced: Any) -> Any:
    """`traced` with its captured values as ordinary trailing inputs (callees are closed)."""
    if not traced.captured:
        return traced
    from stablax._src.lax._shapes import aval_of

    in_avals = [*traced.in_avals, *(aval_of(c) for c in traced.captured)]
    return traced.with_signature(in_avals, [])


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
    from stablax._src.transforms.ad import jvp_traced

    return jvp_traced(callee, primals, tangents)


def _call_transpose(cts, *operands, callee, rule):
    from stablax._src.transforms import ad

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


op_rules.def_op(
    "func.call",
    _call_shape_rule,
    _call_lowering,
    decode=_decode_call,
    decode_reads_owner=True,
    cache_eagerly=False,
    jvp=_call_jvp,
    transpose=_call_transpose,
)
