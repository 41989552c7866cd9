"""Concrete values of tracers, on demand: Python control flow under `grad`/`jvp` outside `jit`.

A trace whose inputs stand for known values can answer `bool(x > 0)`: the function built so far
is cloned, made to return the tracer, compiled (cached by fingerprint, so a loop pays once per
distinct prefix) and run on the concrete inputs.
"""

from __future__ import annotations

from typing import Any

from stablax._src import core, ir_passes, runtime
from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.dispatch import compile_with_callbacks, to_array
from stablax._src.ir import ir


def _corresponding_value(old_block: Any, new_block: Any, value: Any) -> Any:
    value = value.maybe_downcast()
    if isinstance(value, ir.BlockArgument):
        return new_block.arguments[value.arg_number]
    owner, result_number = value.owner, value.result_number
    for old_op, new_op in zip(old_block.operations, new_block.operations, strict=True):
        if old_op.operation == owner:
            return new_op.operation.results[result_number]
    raise RuntimeError("stablax: internal error, value not found in the function being traced")


def _concrete_array(source: Any) -> Array:
    if isinstance(source, core.Tracer):
        if source._trace.finished:
            raise core.UnexpectedTracerError(
                f"A traced value {source.aval.str_short()} from a finished transformation was "
                "used to compute a concrete value."
            )
        return source._trace.concrete_array(source)
    return to_array(source)


def evaluate_prefix(trace: core.FuncTrace, tracer: core.Tracer) -> Array:
    """Runs the ops traced so far on the trace's concrete sources and returns `tracer`'s value."""
    if trace.finished:
        raise core.UnexpectedTracerError(
            f"A traced value {tracer.aval.str_short()} was used after its function was traced"
            f"{mlir.where_suffix()}."
        )
    with trace.context, ir.Location.unknown():
        module = ir.Module.create()
        clone = trace.func_op.operation.clone(ip=ir.InsertionPoint(module.body))
        for callee in list(trace.module.body.operations)[1:]:  # private callees (calls, loops)
            callee.operation.clone(ip=ir.InsertionPoint(module.body))
        block = clone.regions[0].blocks[0]
        value = _corresponding_value(trace.block, block, tracer.value)
        with ir.InsertionPoint(block):
            mlir.emit_return([value])
        clone.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([a.type for a in block.arguments], [value.type])
        )
        clone.attributes["sym_name"] = ir.StringAttr.get("main")
        text = module.operation.get_asm(enable_debug_info=False)
        callbacks = ir_passes.HOST_CALLBACK_TEXT in text
        if callbacks:  # the effects run when the whole program does, not here too
            ir_passes.drop_effects(module.operation, trace.payloads)
            text = module.operation.get_asm(enable_debug_info=False)
            callbacks = ir_passes.HOST_CALLBACK_TEXT in text
        if not callbacks:
            compilable, text = ir_passes.without_markers(module.operation, text)
            code = mlir.bytecode(compilable)
    inputs = [_concrete_array(s) for s in trace.sources] + [
        _concrete_array(c) for c in trace.captured
    ]
    device = runtime.default_device()
    if callbacks:  # pure callbacks the value depends on
        executable = compile_with_callbacks(module.operation, trace.payloads, [tracer.aval], device)
    else:
        executable = runtime.compile_module(code, text.encode(), [tracer.aval], device)
    (out,) = executable.execute([a._buf for a in inputs])
    return Array(out, tracer.aval)
