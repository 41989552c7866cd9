"""Functions the rewrites read, and copying them between modules.

A rewrite walks a function: a traced module's `@main` (`core.TracedFunction`), one of its private
functions (`Callee`: scan bodies, custom_jvp primals) or one region of a control-flow op
(`Region`: a `stablehlo.case` branch, a `stablehlo.while` body). All three answer `parts()`,
`in_avals`, `out_avals`, `captured` and `owner`, the traced function whose module and payloads
hold them. Regions read values from above: `free_values(op)` lists them, and a region's inputs
are its block arguments followed by those values.

Copying a function into a trace's module (`add_function`) or its ops to the current insertion
point (`inline`) renames the private functions it calls and moves their payloads along, so a
module never depends on anything outside itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jaxlib.mlir._mlir_libs import _jax_mlir_ext

from stablax._src import core
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.ir import ir
from stablax._src.ir_passes import PAYLOAD_ATTRIBUTE


def aval_of_value(value: Any) -> ShapedArray:
    return ShapedArray(mlir.shape_of_type(value.type), mlir.dtype_of_type(value.type))


def function_op(owner: core.TracedFunction, name: str) -> Any:
    """The `func.func @name` of `owner`'s module."""
    for op in owner.module.body.operations:
        op = op.operation
        if ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    raise KeyError(f"stablax: internal error, no function @{name} in the module")


class Callee:
    """A private function of `owner`'s module, read like a traced function."""

    def __init__(self, owner: core.TracedFunction, name: str) -> None:
        self.owner = owner
        self.name = name
        self.func_op = function_op(owner, name)
        block = self.func_op.regions[0].blocks[0]
        self.in_avals = [aval_of_value(a) for a in block.arguments]
        self.out_avals = [aval_of_value(v) for v in _terminator(block).operands]
        self.captured: list[Any] = []

    @property
    def payload(self) -> Any:
        return self.owner.payloads.get(self.name)

    def parts(self) -> tuple[list[Any], list[Any], list[Any]]:
        block = self.func_op.regions[0].blocks[0]
        ops = [op.operation for op in block.operations]
        return list(block.arguments), ops[:-1], list(ops[-1].operands)


class Region:
    """The single block of a region, as a function of its block arguments and then of `free`,
    the values the op's regions read from above."""

    def __init__(self, owner: core.TracedFunction, region: Any, free: Sequence[Any]) -> None:
        self.owner = owner
        self.block = region.blocks[0]
        self.free = list(free)
        self.in_avals = [aval_of_value(a) for a in [*self.block.arguments, *self.free]]
        self.out_avals = [aval_of_value(v) for v in _terminator(self.block).operands]
        self.captured: list[Any] = []

    def parts(self) -> tuple[list[Any], list[Any], list[Any]]:
        ops = [op.operation for op in self.block.operations]
        return [*self.block.arguments, *self.free], ops[:-1], list(ops[-1].operands)


def _terminator(block: Any) -> Any:
    ops = block.operations
    return ops[len(ops) - 1].operation


def free_values(op: Any) -> list[Any]:
    """The values `op`'s regions use that are defined outside `op`, in order of first use."""
    inside: set[Any] = set()
    free: list[Any] = []
    seen: set[Any] = set()

    def walk(region: Any) -> None:
        for block in region.blocks:
            inside.update(block.arguments)
            for inner in block.operations:
                inner = inner.operation
                for v in inner.operands:
                    if v not in inside and v not in seen:
                        seen.add(v)
                        free.append(v)
                for r in inner.regions:
                    walk(r)
                inside.update(inner.results)

    for region in op.regions:
        walk(region)
    return free


# --- copying -----------------------------------------------------------------------------------


def add_function(trace: core.FuncTrace, fn: Any, prefix: str, payload: Any = None) -> str:
    """The name of a private copy of `fn` (a traced function or a Callee) in `trace`'s module.

    Equal functions with the same payload share one copy; functions `fn` calls are copied too,
    and the payloads of the copied ops move to `trace.payloads` under their new names.
    """
    source = fn.func_op
    text = _function_text(source)
    key = ("function", prefix, text, id(payload))
    name = trace.symbols.get(key)
    if name is not None:
        return name
    name = trace.symbols[key] = trace.new_symbol(prefix)
    with trace.context, ir.Location.unknown():
        types = [a.type for a in source.regions[0].blocks[0].arguments]
        result_types = list(
            ir.FunctionType(ir.TypeAttr(source.attributes["function_type"]).value).results
        )
        with ir.InsertionPoint(trace.module.body):
            func, block = mlir.new_function(name, types, result_types)
        func.attributes["sym_visibility"] = ir.StringAttr.get("private")
        old_block = source.regions[0].blocks[0]
        env = dict(zip(old_block.arguments, block.arguments, strict=True))
        with ir.InsertionPoint(block):
            for op in old_block.operations:
                _copy_op(op.operation, env, fn.owner, trace)
    if payload is not None:
        trace.payloads[name] = payload
    return name


def _function_text(func_op: Any) -> str:
    name = ir.StringAttr(func_op.attributes["sym_name"]).value
    # A local scope: printing a nested op otherwise numbers the values of its whole module.
    text = func_op.get_asm(enable_debug_info=False, use_local_scope=True, assume_verified=True)
    return text.replace(f"@{name}(", "@(", 1)


def inline(fn: Any, args: Sequence[Any]) -> list[Any]:
    """Emits `fn`'s ops at the current insertion point on `args` (ir.Values); returns the values
    of its outputs. Functions it calls are copied into the lowering trace's module."""
    inputs, ops, outputs = fn.parts()
    values = [*args, *(_captured_value(c) for c in fn.captured)]
    env = dict(zip(inputs, values, strict=True))
    trace = core.lowering_trace()
    for op in ops:
        _copy_op(op, env, fn.owner, trace)
    return [env[v] for v in outputs]


def expand_in_place(operation: Any, fun: Callable, name: str, what: str) -> None:
    """Replaces `operation` (a marker op of a module about to be compiled) by `fun`, a function
    of lax ops traced on its operands' avals (as function `name`) and inlined in its place.
    `fun` must capture no values; `what` names it in the internal error raised if it does."""
    in_avals = [aval_of_value(v) for v in operation.operands]
    traced = core.trace_to_func(fun, in_avals, name=name)
    if traced.captured:
        raise RuntimeError(f"stablax: internal error, the {what} captured values")
    with ir.InsertionPoint(operation), operation.location:
        values = _jax_mlir_ext.inlined_func_call(traced.func_op.operation, list(operation.operands))
    for result, value in zip(operation.results, values, strict=True):
        result.replace_all_uses_with(value)
    operation.erase()


def _captured_value(value: Any) -> Any:
    raise RuntimeError("stablax: internal error, only closed functions are inlined")


def _copy_op(op: Any, env: dict[Any, Any], owner: Any, trace: core.FuncTrace) -> None:
    """Copies one op (its regions included) at the current insertion point, mapping the values
    it reads through `env` and renaming the functions and payloads it refers to.

    Cloning copies attributes without reading them back in Python (some, such as complex dense
    constants, have no Python type)."""
    new = op.clone(ip=ir.InsertionPoint.current)
    for i, v in enumerate(op.operands):
        new.operands[i] = env[v]
    if len(op.regions):
        free = set(free_values(op))
        _rename(new, owner, trace, lambda v: env[v] if v in free else None)
    else:
        _rename_one(new, owner, trace)
    env.update(zip(op.results, new.results, strict=True))


def _rename(op: Any, owner: Any, trace: core.FuncTrace, outer: Any) -> None:
    """Renames symbols and payload keys in `op` and the ops nested in it; operands of nested ops
    that are values from above the copied op become `outer(value)`."""
    _rename_one(op, owner, trace)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                for i, v in enumerate(inner.operands):
                    replacement = outer(v)
                    if replacement is not None:
                        inner.operands[i] = replacement
                _rename(inner, owner, trace, outer)


def _rename_one(op: Any, owner: Any, trace: core.FuncTrace) -> None:
    if op.name == "func.call":
        old = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        # Copies of one function (a jitted helper called 100 times) call the same callees.
        key = ("copy of", owner, old)
        new = trace.symbols.get(key)
        if new is None:
            callee = Callee(owner, old)
            new = add_function(trace, callee, _prefix(old), owner.payloads.get(old))
            trace.symbols[key] = new
        op.attributes["callee"] = ir.FlatSymbolRefAttr.get(new)
    if PAYLOAD_ATTRIBUTE in op.attributes:
        old_key = ir.StringAttr(op.attributes[PAYLOAD_ATTRIBUTE]).value
        key = trace.add_payload(_prefix(old_key), owner.payloads[old_key])
        op.attributes[PAYLOAD_ATTRIBUTE] = ir.StringAttr.get(key)


def _prefix(name: str) -> str:
    head, _, tail = name.rpartition("_")
    return head if head and tail.isdigit() else name
