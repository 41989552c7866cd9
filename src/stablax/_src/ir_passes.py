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

import numpy as np

from stablax._src import ir as mlir
from stablax._src.ir import ir

MARKER_PREFIX = "stablax."
# The attribute naming an op's payload in its module's `payloads` (a Python object the rewrites,
# or the compiled program, need for it).
PAYLOAD_ATTRIBUTE = "stablax.payload"
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
    side_effect: bool = False,
) -> list[Any]:
    """Emits a marker op: a custom call to `target` (a `stablax.*` name), its `parameters` as
    further attributes; returns its results."""
    attributes = {
        "call_target_name": ir.StringAttr.get(target),
        "has_side_effect": ir.BoolAttr.get(side_effect),
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


def copy_module(module: Any) -> ir.Module:
    """A copy of `module` (a module's operation) to rewrite for compilation."""
    with module.context, ir.Location.unknown():
        # A new module, its body copied op by op: cloning the module itself would insert the
        # copy at the current insertion point (inside a function being traced).
        copy = ir.Module.create()
        for name in module.attributes:
            copy.operation.attributes[name] = module.attributes[name]
        body = ir.InsertionPoint(copy.body)
        for op in module.regions[0].blocks[0].operations:
            op.operation.clone(ip=body)
        return copy


def without_markers(module: Any, text: str) -> tuple[Any, str]:
    """The module as XLA may see it, and its location-free text: `module` (a module's operation)
    itself when its `text` shows no marker op, else a stripped copy."""
    if MARKER_TEXT not in text:
        return module, text
    copy = copy_module(module).operation
    strip_markers(copy)
    return copy, copy.get_asm(enable_debug_info=False)


# --- host callbacks ----------------------------------------------------------------------------

# A call of Python on the host: a marker op whose payload is the callable (lax/_host_callback.py),
# pointed at jaxlib's Python-callback custom call when its program is compiled.
HOST_CALLBACK = "stablax.host_callback"
HOST_CALLBACK_TEXT = f"custom_call @{HOST_CALLBACK}"


def custom_calls_to(module: Any, target: str) -> list[Any]:
    """The custom calls of `target` in `module` (a module's operation), regions included, in
    order."""
    found: list[Any] = []

    def walk(block: Any) -> None:
        for op in block.operations:
            op = op.operation
            for region in op.regions:
                for inner in region.blocks:
                    walk(inner)
            if op.name == "stablehlo.custom_call" and target_of(op) == target:
                found.append(op)

    walk(module.regions[0].blocks[0])
    return found


def target_of(op: Any) -> str:
    """The target a custom call names."""
    return ir.StringAttr(op.attributes["call_target_name"]).value


def payload_of(op: Any, payloads: Mapping[str, Any]) -> Any:
    return payloads[ir.StringAttr(op.attributes[PAYLOAD_ATTRIBUTE]).value]


def bind_host_callbacks(module: Any, payloads: Mapping[str, Any], platform: str) -> list[Any]:
    """Points each host-callback op of `module` (a module's operation, rewritten in place) at
    jaxlib's Python-callback target for `platform`, numbered in order; returns their callables
    in that order (the list the executable is compiled with)."""
    callables = []
    for op in custom_calls_to(module, HOST_CALLBACK):
        callables.append(payload_of(op, payloads))
        point_at_python_callback(op, platform, len(callables) - 1)
        del op.attributes[PAYLOAD_ATTRIBUTE]
    return callables


def point_at_python_callback(op: Any, platform: str, index: int) -> None:
    """Makes the custom call `op` call the `index`-th callable its executable is compiled with,
    through jaxlib's Python-callback target for `platform`."""
    device = "gpu" if platform in ("cuda", "rocm") else "cpu"
    with op.context:
        op.attributes["call_target_name"] = ir.StringAttr.get(f"xla_ffi_python_{device}_callback")
        op.attributes["api_version"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4)
        index_attr = ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), index)
        op.attributes["backend_config"] = ir.DictAttr.get({"index": index_attr})


def drop_effects(module: Any, payloads: Mapping[str, Any]) -> None:
    """Removes the host callbacks with side effects whose results nothing reads but the order of
    effects (`module`, a module's operation, in place): a program computing a concrete value
    for tracing must not print, or call an io_callback, again."""
    for op in reversed(custom_calls_to(module, HOST_CALLBACK)):
        callback = payload_of(op, payloads)
        if not callback.has_side_effect:
            continue
        results = list(op.results)
        kept = results[: len(results) - callback.num_effect_results]
        if any(list(r.uses) for r in kept):
            continue
        with op.context, ir.Location.unknown(), ir.InsertionPoint(op):
            for result in results[len(kept) :]:
                empty = mlir.constant(np.zeros(mlir.shape_of_type(result.type), np.bool_))
                result.replace_all_uses_with(empty)
        op.erase()


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
        module = copy_module(module).operation
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
