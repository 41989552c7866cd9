"""Marker ops that exist only while a function is being transformed.

They are `stablehlo.custom_call`s to `stablax.*` targets, keyed in the rule tables as
"stablehlo.custom_call:<target>", and are replaced by their operands just before compilation
(ir_passes.strip_markers), so XLA never sees them.
"""

from __future__ import annotations

from typing import Any

from stablax._src import dispatch, op_rules
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.ir import ir

STOP_GRADIENT = "stablehlo.custom_call:stablax.stop_gradient"


def _identity_rule(x: ShapedArray) -> ShapedArray:
    return x


def _marker_lowering(target: str):
    def lower(operands, in_avals, out_avals):
        op = mlir.emit(
            "stablehlo.custom_call",
            operands,
            [mlir.aval_type(a) for a in out_avals],
            {
                "call_target_name": ir.StringAttr.get(target),
                "has_side_effect": ir.BoolAttr.get(False),
            },
        )
        return list(op.results)

    return lower


op_rules.def_op(
    STOP_GRADIENT, _identity_rule, _marker_lowering("stablax.stop_gradient"), differentiable=False
)


def stop_gradient_op(x: Any) -> Any:
    """The identity with zero derivative (one array)."""
    from stablax._src.core import current_trace
    from stablax._src.dispatch import to_array
    from stablax._src.lax._shapes import aval_of

    aval = aval_of(x)
    if aval.dtype.kind in "biu":
        return x
    if current_trace() is None and type(x) in (float, complex):
        return x  # as JAX: the Python scalar itself, no array, outside any transformation
    if not hasattr(x, "aval"):
        x = to_array(x)
    if current_trace() is None:
        return x  # a concrete array has no derivative to stop
    return dispatch.bind(STOP_GRADIENT, x)


def stop_gradient(x: Any) -> Any:
    """The identity on a pytree of arrays, with zero derivative: gradients do not flow through."""
    from stablax._src import tree_util

    return tree_util.tree_map(stop_gradient_op, x)
