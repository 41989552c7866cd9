"""Which op made a NaN or an Inf: a program whose outputs hold one is compiled again with every
floating-point op's result tested (loop and branch bodies and called functions included), and run
on the same inputs; the first op whose result is invalid while its operands are not is named,
with the user's line and, inside a loop, the iteration. Normal runs pay nothing: the tested
program exists only once a check has fired."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import ir_passes, runtime, runtime_effects
from stablax._src.ir import ir
from stablax._src.nan_checks import checked_kinds, invalid_kind, invalid_value_error

# Ops whose regions run their ops in the program (their results come from those ops).
_CONSTRUCTS = ("stablehlo.while", "stablehlo.case", "stablehlo.if")
_NOT_TESTED = ("stablehlo.constant", "func.call", "func.return", "stablehlo.return", *_CONSTRUCTS)
_LOCATION = re.compile(r'"([^"]+)":(\d+):\d+')
_PLACEHOLDER = "stablax.nan_test"


class _Test:
    """The host side of one tested op: counts its runs and reports the first invalid one."""

    __slots__ = ("report", "op", "where", "loops", "calls")

    # jaxlib's host-callback protocol (the executable's callables): NumPy arrays in, a tuple out.
    has_side_effect = True
    ordered = False
    num_effect_results = 0

    def __init__(self, report: _Report, name: str, location: Any, loops: int) -> None:
        self.report = report
        self.op = name
        match = _LOCATION.search(str(location))
        self.where = f"{match.group(1)}:{match.group(2)}" if match else None
        self.loops = loops
        self.calls = 0

    def __call__(self, result_invalid: np.ndarray, operands_invalid: np.ndarray) -> tuple:
        if result_invalid:
            if not operands_invalid and self.report.made is None:
                self.report.made = (self, self.calls)
            if self.report.seen is None:
                self.report.seen = (self, self.calls)
        self.calls += 1
        return ()

    def describe(self, run: int) -> str:
        where = f" at {self.where}" if self.where else ""
        if self.loops == 0:
            return f"{self.op}{where}"
        if self.loops == 1:
            return f"{self.op}{where}, in loop iteration {run} (counting from 0)"
        return f"{self.op}{where}, in its run {run} over {self.loops} nested loops (from 0)"


class _Report:
    """The first tested op to make an invalid value from valid operands (`made`), and the first
    whose result held one at all (`seen`), each with the op's run (0 for the first)."""

    def __init__(self) -> None:
        self.made: tuple[_Test, int] | None = None
        self.seen: tuple[_Test, int] | None = None


class CheckedProgram:
    """A traced program run under `jax_debug_nans`/`jax_debug_infs`: `check` tests its outputs
    and, when one holds a forbidden value, finds the op that made it. The tested copy is compiled
    on the first failure of each kind and device and kept here, with the program that owns it,
    so a failure that repeats (a training loop) pays only for running it."""

    __slots__ = ("name", "traced", "_located")

    def __init__(self, name: str | None, traced: Any) -> None:
        self.name = name
        self.traced = traced
        self._located: dict[tuple[str, Any], _Located] = {}

    def check(
        self, buffers: Sequence[Any], outs: Sequence[Any], device: Any, rerun: bool = True
    ) -> None:
        """Raises FloatingPointError naming the op that made a forbidden value in `outs`, the
        outputs of running the program on `buffers`. `rerun` False (the inputs were donated and
        are gone) names only the program."""
        traced, name = self.traced, self.name
        kind = invalid_kind(outs, traced.out_avals, checked_kinds())
        if kind is None:
            return
        if not rerun:
            raise invalid_value_error(
                kind, f"{name}, which donates its arguments (it cannot run again to find the op)"
            )
        located = self._located.get((kind, device))
        if located is None:
            located = self._located[kind, device] = _Located(traced, kind, device)
        made, seen = located.run(buffers)
        inside = f", inside {name}" if name else ""
        if made is not None:
            raise invalid_value_error(kind, f"{made}{inside}")
        if seen is not None:
            raise invalid_value_error(kind, f"{seen}{inside}, from operands that held it already")
        raise invalid_value_error(kind, f"{name or 'the program'}: an argument held it already")


def check_program(
    name: str | None, traced: Any, buffers: Sequence[Any], outs: Sequence[Any], device: Any
) -> None:
    """`CheckedProgram(name, traced).check(...)` for a program run once (an eager op)."""
    CheckedProgram(name, traced).check(buffers, outs, device)


class _Located:
    """A copy of a traced program in which every floating-point op's result is tested for `kind`
    ("nan" or "inf") values (loop and branch bodies and called functions included), compiled."""

    def __init__(self, traced: Any, kind: str, device: Any) -> None:
        self.report = report = _Report()
        self.tests: list[_Test] = []
        payloads = traced.payloads
        with mlir.context():
            copy = ir_passes.copy_module(traced.module.operation)
            ir_passes.drop_effects(copy.operation, payloads)  # prints and io callbacks ran already
            for func, loops in _functions_and_loops(copy.operation):
                _instrument(func.regions[0].blocks[0], loops, kind, traced, report, self.tests)
            callbacks = ir_passes.bind_host_callbacks(copy.operation, payloads, device.platform)
            _bind_tests(copy.operation, len(callbacks), device.platform)
            ir_passes.strip_markers(copy.operation)  # after the placeholders are bound
            text = copy.operation.get_asm(enable_debug_info=False)
            self.executable = runtime.compile_with_callbacks(
                copy, text.encode(), traced.out_avals, device, [*callbacks, *self.tests], False
            )

    def run(self, buffers: Sequence[Any]) -> tuple[str | None, str | None]:
        """Runs the tested copy on `buffers`; describes ("log at file.py:12") the first op that
        made an invalid value from valid operands and the first whose result held one at all
        (None where none did)."""
        self.report.made = self.report.seen = None
        for test in self.tests:
            test.calls = 0
        runtime.block_until_ready(self.executable.execute(list(buffers)))
        runtime_effects.effects_barrier()
        return tuple(
            None if found is None else found[0].describe(found[1])
            for found in (self.report.made, self.report.seen)
        )


def _functions_and_loops(module: Any) -> list[tuple[Any, int]]:
    """The module's functions, each with the depth of the loops it runs in (its ops run once per
    trip of each), the deepest over its callers."""
    functions = {
        ir.StringAttr(op.operation.attributes["sym_name"]).value: op.operation
        for op in module.regions[0].blocks[0].operations
    }
    depth = dict.fromkeys(functions, 0)
    for name in functions:  # callers come before their callees in a traced module
        for callee, loops in _calls(functions[name].regions[0].blocks[0], depth[name]):
            if callee in depth:
                depth[callee] = max(depth[callee], loops)
    return [(functions[name], depth[name]) for name in functions]


def _calls(block: Any, loops: int) -> list[tuple[str, int]]:
    """The functions `block` calls, each with the depth of loops the call runs in."""
    found = []
    for op in block.operations:
        op = op.operation
        if op.name == "func.call":
            found.append((ir.FlatSymbolRefAttr(op.attributes["callee"]).value, loops))
        if op.name in _CONSTRUCTS:
            inner = loops + (op.name == "stablehlo.while")
            for region in op.regions:
                for b in region.blocks:
                    found += _calls(b, inner)
    return found


def _instrument(block, loops, kind, traced, report, tests) -> None:
    """After each floating-point op of `block` (and of the loops and branches in it), a host
    call told whether the op's result holds a `kind` value and whether its operands did."""
    for op in list(block.operations):
        op = op.operation
        if op.name in _CONSTRUCTS:
            inner = loops + (op.name == "stablehlo.while")
            for region in op.regions:
                for b in region.blocks:
                    _instrument(b, inner, kind, traced, report, tests)
        if op.name in _NOT_TESTED:
            continue
        results = [r for r in op.results if _inexact(r.type)]
        if not results:
            continue
        operands = [v for v in op.operands if _inexact(v.type)]
        with op.location, ir.InsertionPoint.after(op):
            result_invalid = _any_invalid(results, kind)
            operands_invalid = _any_invalid(operands, kind)
            ir.Operation.create(
                "stablehlo.custom_call",
                results=[],
                operands=[result_invalid, operands_invalid],
                attributes={
                    "call_target_name": ir.StringAttr.get(_PLACEHOLDER),
                    "has_side_effect": ir.BoolAttr.get(True),
                    "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
                    "backend_config": ir.DictAttr.get({"index": _index(len(tests))}),
                },
            )
        tests.append(_Test(report, _name(op, traced), op.location, loops))


def _name(op: Any, traced: Any) -> str:
    """JAX's name for what `op` (of a copy of `traced`'s module) computes, as a jaxpr view of
    the program shows it; a host callback by its own name."""
    from stablax._src import jaxpr_view  # a true cycle: the view evaluates through staging

    if op.name == "stablehlo.custom_call" and ir_passes.PAYLOAD_ATTRIBUTE in op.attributes:
        name = getattr(ir_passes.payload_of(op, traced.payloads), "name", None)
        if name:
            return name
    return jaxpr_view.equation_of(op, traced).name


def _index(i: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), i)


def _bind_tests(module: Any, first: int, platform: str) -> None:
    """Points the test placeholders at jaxlib's Python-callback target, numbered after the
    program's own `first` host callbacks."""
    for op in ir_passes.custom_calls_to(module, _PLACEHOLDER):
        index = ir.IntegerAttr(ir.DictAttr(op.attributes["backend_config"])["index"]).value
        ir_passes.point_at_python_callback(op, platform, first + index)


def _inexact(t: ir.Type) -> bool:
    if not isinstance(t, ir.RankedTensorType):  # a token
        return False
    return np.issubdtype(mlir.dtype_of_type(t), np.inexact)


def _any_invalid(values: Sequence[Any], kind: str) -> Any:
    """A `tensor<i1>`: whether any element of any of `values` is a NaN (or an Inf)."""
    flag = mlir.constant(np.array(False))
    for value in values:
        flag = _or(flag, _reduce_or(_invalid(value, kind)))
    return flag


def _invalid(value: Any, kind: str) -> Any:
    """Elementwise: is `value` a NaN (`kind` "nan") or an Inf ("inf"); a complex number is when
    either of its parts is."""
    element = ir.RankedTensorType(value.type).element_type
    if isinstance(element, ir.ComplexType):
        part_type = _with_element(value.type, element.element_type)
        real = _unary("stablehlo.real", value, part_type)
        imag = _unary("stablehlo.imag", value, part_type)
        return _or(_invalid(real, kind), _invalid(imag, kind))
    bools = _with_element(value.type, ir.IntegerType.get_signless(1))
    is_nan = _compare("NE", value, value, bools)
    if kind == "nan":
        return is_nan
    finite = _unary("stablehlo.is_finite", value, bools)
    return _unary("stablehlo.not", _or(finite, is_nan), bools)


def _with_element(t: ir.Type, element: ir.Type) -> ir.Type:
    return ir.RankedTensorType.get(ir.RankedTensorType(t).shape, element)


def _unary(name: str, value: Any, result_type: ir.Type) -> Any:
    return ir.Operation.create(name, results=[result_type], operands=[value]).result


def _or(a: Any, b: Any) -> Any:
    return ir.Operation.create("stablehlo.or", results=[a.type], operands=[a, b]).result


def _compare(direction: str, a: Any, b: Any, result_type: ir.Type) -> Any:
    attributes = {
        "comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>")
    }
    return ir.Operation.create(
        "stablehlo.compare", results=[result_type], operands=[a, b], attributes=attributes
    ).result


def _reduce_or(flags: Any) -> Any:
    """A `tensor<i1>`: whether any element of the boolean tensor `flags` is set."""
    rank = len(ir.RankedTensorType(flags.type).shape)
    if rank == 0:
        return flags
    scalar = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    reduce = ir.Operation.create(
        "stablehlo.reduce",
        results=[scalar],
        operands=[flags, mlir.constant(np.array(False))],
        attributes={"dimensions": ir.DenseI64ArrayAttr.get(list(range(rank)))},
        regions=1,
    )
    body = reduce.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(body):
        either = _or(body.arguments[0], body.arguments[1])
        ir.Operation.create("stablehlo.return", results=[], operands=[either])
    return reduce.result
