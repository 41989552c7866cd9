"""Passes on a module about to be compiled: expanding or dropping marker ops (and emitting one),
and dropping the arguments its function does not use (what `jit(keep_unused=False)` compiles).

Marker ops are `stablehlo.custom_call`s to `stablax.*` targets that exist only while a function
is being transformed (stop_gradient, the linalg decompositions, named-axis collectives). Before
XLA sees a module, each is replaced by its expansion (`expansions`, filled by `def_op(expand=)`)
or, with none, by its operands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stablax._src import ir as mlir
from stablax._src.ir import ir

MARKER_PREFIX = "stablax."
# How a marker op prints: a module whose text lacks this holds none.
MARKER_TEXT = "custom_call @stablax."

# expansion: (op: ir.Operation) -> None, replacing a marker op in place by the ops implementing it
# (a backend kernel), or raising when the op cannot be compiled; keyed by custom-call target.
Expansion = Callable[[Any], None]
expansions: dict[str, Expansion] = {}


def emit_marker(
    target: str,
    operands: Sequence[Any],
    out_avals: Sequence[Any],
    parameters: Mapping[str, ir.Attribute] | None = None,
) -> list[Any]:
    """Emits a marker op: a custom call to `target` (a `stablax.*` name) without side effects,
    its `parameters` as further attributes; returns its results."""
    attributes = {
        "call_target_name": ir.StringAttr.get(target),
        "has_side_effect": ir.BoolAttr.get(False),
        **(parameters or {}),
    }
    op = mlir.emit(
        "stablehlo.custom_call", operands, [mlir.aval_type(a) for a in out_avals], attributes
    )
    return list(op.results)


def marker_lowering(target: str) -> Callable[..., list[Any]]:
    """The lowering of a marker op without parameters: a custom call to `target`."""

    def lower(operands, in_avals, out_avals):
        return emit_marker(target, operands, out_avals)

    return lower


def strip_markers(module: Any) -> None:
    """Expands or drops every marker custom call in `module` (a module's operation), in place."""
    for op in module.regions[0].blocks[0].operations:
        for region in op.operation.regions:
            for block in region.blocks:
                _strip_block(block)


def _strip_block(block: Any) -> None:
    for op in list(block.operations):
        operation = op.operation
        for region in operation.regions:
            for inner in region.blocks:
                _strip_block(inner)
        if operation.name != "stablehlo.custom_call":
            continue
        target = ir.StringAttr(operation.attributes["call_target_name"]).value
        expand = expansions.get(target)
        if expand is not None:
            expand(operation)
        elif target.startswith(MARKER_PREFIX):
            for result, operand in zip(operation.results, operation.operands, strict=True):
                result.replace_all_uses_with(operand)
            operation.erase()


def without_markers(module: Any, text: str) -> tuple[Any, str]:
    """The module as XLA may see it, and its location-free text: `module` (a module's operation)
    itself when its `text` shows no marker op, else a stripped copy."""
    if MARKER_TEXT not in text:
        return module, text
    copy = _copy(module)
    with module.context, ir.Location.unknown():
        strip_markers(copy)
    return copy, copy.get_asm(enable_debug_info=False)


def without_unused_arguments(module: Any, text: str, owned: bool) -> tuple[Any, str, list[int]]:
    """The module with the arguments its public function (the first) never reads removed, its
    location-free text, and the positions of the arguments kept. `module` (a module's operation)
    is changed in place if `owned`, else copied first; returned as it is when every argument is
    used. Donor attributes of the kept arguments stay with them."""
    func_op = module.regions[0].blocks[0].operations[0].operation
    arguments = func_op.regions[0].blocks[0].arguments
    kept = [i for i, argument in enumerate(arguments) if _is_used(argument)]
    if len(kept) == len(arguments):
        return module, text, kept
    if not owned:
        module = _copy(module)
        func_op = module.regions[0].blocks[0].operations[0].operation
    with module.context:
        block = func_op.regions[0].blocks[0]
        for i in reversed(range(len(block.arguments))):
            if i not in kept:
                block.erase_argument(i)
        attributes = func_op.attributes
        results = ir.FunctionType(ir.TypeAttr(attributes["function_type"]).value).results
        inputs = [argument.type for argument in block.arguments]
        attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
        if "arg_attrs" in attributes:
            old = ir.ArrayAttr(attributes["arg_attrs"])
            attributes["arg_attrs"] = ir.ArrayAttr.get([old[i] for i in kept])
    return module, module.get_asm(enable_debug_info=False), kept


def _is_used(value: Any) -> bool:
    for _ in value.uses:
        return True
    return False


def _copy(module: Any) -> Any:
    """A copy of `module` (a module's operation)."""
    with module.context, ir.Location.unknown():
        # A new module, its body copied op by op: cloning the module itself would insert the
        # copy at the current insertion point (inside a function being traced).
        copy = ir.Module.create().operation
        for name in module.attributes:
            copy.attributes[name] = module.attributes[name]
        body = ir.InsertionPoint(copy.regions[0].blocks[0])
        for op in module.regions[0].blocks[0].operations:
            op.operation.clone(ip=body)
        return copy
