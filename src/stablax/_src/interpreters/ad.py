"""Autodiff as rewrites of StableHLO functions: JVP, linearize (JVP split in two), transpose.

`jvp_traced` walks a function once, calling each op's jvp rule; tangents are values or None (a
symbolic zero, which costs nothing). `linearize_traced` runs the same walk with two traces open:
primal computations land in a primal function K, tangent computations in a linear function L
whose captured K values are the residuals. `transpose_traced` walks L backwards with each linear
op's transpose rule. Reverse mode is linearize followed by transpose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dispatch, dtypes, op_rules, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.bodies import aval_of_value
from stablax._src.concrete import evaluate_prefix
from stablax._src.core import Tracer
from stablax._src.interpreters.batching import elementwise_batch_rule
from stablax._src.interpreters.interpret import (
    decode,
    emit_constant,
    eval_op,
    interpret,
    operand_values,
)
from stablax._src.ir import ir
from stablax._src.ir_passes import marker_lowering
from stablax._src.op_rules import op_key
from stablax._src.staging import all_abstract, copy_in

# --- tangents ----------------------------------------------------------------------------------


def is_differentiable_dtype(dtype: np.dtype) -> bool:
    return dtypes.issubdtype(dtype, np.inexact)


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """Tangents have the primal's aval (never weakly typed); integer primals get float0."""
    if is_differentiable_dtype(aval.dtype):
        return aval.strip_weak_type()
    return ShapedArray(aval.shape, dtypes.float0)


def zeros_like_aval(aval: ShapedArray) -> Any:
    zero = dispatch.weak_scalar(np.zeros((), aval.dtype).item(), aval.dtype, weak_type=False)
    return dispatch.bind(
        "stablehlo.broadcast_in_dim", zero, shape=aval.shape, broadcast_dimensions=()
    )


def instantiate(tangent: Any, aval: ShapedArray) -> Any:
    """A concrete zero array in place of a symbolic zero."""
    return zeros_like_aval(aval) if tangent is None else tangent


def add_tangents(x: Any, y: Any) -> Any:
    if x is None:
        return y
    if y is None:
        return x
    return dispatch.bind("stablehlo.add", x, y)


# --- JVP ---------------------------------------------------------------------------------------


@mlir.rewrites_one_op
def jvp_op(
    op: Any, primals: list[Any], tangents: list[Any], owner: Any
) -> tuple[list[Any], list[Any]]:
    name = op_key(op)
    if name == "stablehlo.constant":
        return [emit_constant(op, core.trace_state.target)], [None]
    params = decode(op, owner, name)
    if all(t is None for t in tangents) or name in op_rules.not_differentiable:
        out = dispatch.bind(name, *primals, **params)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [None] * len(outs)
    rule = op_rules.jvp_rules.get(name)
    if rule is None:
        raise _no_jvp_error(name)
    outs, out_tangents = rule(primals, tangents, **params)
    if not isinstance(outs, (list, tuple)):
        outs, out_tangents = [outs], [out_tangents]
    out_tangents = [
        None if t is None or not is_differentiable_dtype(aval_of(o).dtype) else t
        for o, t in zip(outs, out_tangents, strict=True)
    ]
    return list(outs), out_tangents


def _no_jvp_error(name: str) -> NotImplementedError:
    op_name = name.split(".", 1)[-1]  # the op, not its MLIR dialect (as JAX names it)
    return NotImplementedError(f"[jvp] differentiation rule for '{op_name}' not implemented")


def jvp_not_implemented(name: str) -> Callable[..., Any]:
    """The jvp rule of an op (or a custom_jvp rule) that is not differentiated: JAX's
    NotImplementedError, naming the operation as JAX does ('pmax', 'lax.igamma_grad_a')."""

    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")

    return rule


def jvp_traced(
    traced: Any,
    primals: Sequence[Any],
    tangents: Sequence[Any],
    saved: dict[Any, Any] | None = None,
) -> tuple[list[Any], list[Any]]:
    """The JVP of a function (traced, private or a region), emitted into the current trace
    (tangents may be None).

    `saved` maps some of the function's values to precomputed primals that replace the
    recomputed ones (checkpoint policies).
    """
    arguments, ops, returned = traced.parts()
    owner = traced.owner
    penv = dict(zip(arguments, [*primals, *traced.captured], strict=True))
    tenv = dict(zip(arguments, [*tangents, *([None] * len(traced.captured))], strict=True))
    for op in ops:
        operands = operand_values(op)
        outs, touts = jvp_op(op, [penv[v] for v in operands], [tenv[v] for v in operands], owner)
        for result, value, tangent in zip(op.results, outs, touts, strict=True):
            penv[result] = value if saved is None else saved.get(result, value)
            tenv[result] = tangent
    return [penv[v] for v in returned], [tenv[v] for v in returned]


# --- linearize ---------------------------------------------------------------------------------


class Linearized:
    """K (primals -> primal outputs + residuals) and L (tangents -> output tangents).

    `L.captured` mixes residuals (tracers of K, which K returns after its primal outputs) and
    outer values; `residual_slots[i]` says which K output feeds L's i-th captured argument.
    """

    def __init__(self, primal_fn, linear_fn, num_outputs, residual_slots, out_tangent_zero):
        self.primal_fn = primal_fn
        self.linear_fn = linear_fn
        self.num_outputs = num_outputs
        self.residual_slots = residual_slots
        self.out_tangent_zero = out_tangent_zero


# Ops that only give a constant its shape or dtype: with their constant, L copies them rather
# than reading their result from K.
_CONSTANT_SHAPING = ("stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.convert")


class _LinearTrace(core.FuncTrace):
    """L's trace: a constant of the primal trace that L reads (a reduction's zero, a scalar
    broadcast to an operand's shape) is copied into L, and a value K closes over is closed over
    by L too, rather than passed from K as a residual (JAX's linear jaxpr holds its literals and
    constants): K saves only what depends on the inputs."""

    def __init__(self, in_avals: Sequence[ShapedArray], primal: core.FuncTrace) -> None:
        super().__init__(in_avals, name="main")
        self._primal = primal
        self._copied_from: list[Tracer] = []

    def lift(self, outer: Any, aval: ShapedArray) -> Tracer:
        if isinstance(outer, Tracer) and outer._trace is self._primal:
            copied = self._captured_index.get(id(outer))
            if copied is None:
                copied = self._copy_constant(outer.value)
            if copied is not None:
                self._captured_index[id(outer)] = copied
                self._copied_from.append(outer)  # kept alive: its id keys the copy
                return copied
        return super().lift(outer, aval)

    def finish(self, outs: Sequence[Any], donated: Sequence[int] = ()) -> core.TracedFunction:
        # A residual L lifted but never reads (a saved name whose readers were recomputed from
        # other residuals) is dropped, so that K does not return it.
        with self.context:
            outs = [core.to_tracer(self, o) for o in outs]
            returned = {t.value for t in outs}
            first = len(self.in_avals)
            for i in reversed(range(first, len(self.block.arguments))):
                arg = self.block.arguments[i]
                if arg not in returned and next(iter(arg.uses), None) is None:
                    self.block.erase_argument(i)
                    del self.captured[i - first]
        return super().finish(outs, donated)

    def _copy_constant(self, value: Any) -> Tracer | None:
        primal = self._primal
        if isinstance(value, ir.BlockArgument):
            index = value.arg_number - len(primal.in_avals)
            if value.owner != primal.block or index < 0:
                return None
            outer = primal.captured[index]  # a value K closes over: L closes over it too
            return super().lift(outer, aval_of(outer))
        op = value.owner.operation
        if op.name == "stablehlo.constant":
            return emit_constant(op, self)
        if op.name not in _CONSTANT_SHAPING:
            return None
        operand = self._copy_constant(op.operands[0])
        if operand is None:
            return None
        return dispatch.bind(op.name, operand, **decode(op, None, op.name))


def linearize_traced(
    traced: Any, tangent_mask: Sequence[bool], sources: Sequence[Any] | None = None
) -> Linearized:
    """Splits the JVP of `traced` into a primal and a linear function.

    `tangent_mask[i]` says whether input i has a tangent (inputs without one are treated as
    constants: their symbolic zero tangents cost nothing). `sources`, the values the inputs
    stand for, let jvp rules (custom_jvp's) branch on primal values outside jit.
    """
    in_avals = traced.in_avals
    linear_avals = [tangent_aval(a) for a, m in zip(in_avals, tangent_mask, strict=True) if m]
    evaluate = None if sources is None else evaluate_prefix
    primal_trace = core.FuncTrace(in_avals, sources=sources, evaluate=evaluate)
    linear_trace = _LinearTrace(linear_avals, primal_trace)
    with primal_trace:
        with linear_trace:
            tangents_in = iter(linear_trace.args)
            tangents = [next(tangents_in) if m else None for m in tangent_mask]
            # Ops with no tracer operands (constants, iotas) belong to the primal side.
            with core.emitting_into(primal_trace):
                outs, out_tangents = jvp_traced(traced, primal_trace.args, tangents)
            zero_mask = [t is None for t in out_tangents]
            linear_fn = linear_trace.finish([t for t in out_tangents if t is not None])
        residual_slots: list[int | None] = []
        residuals: list[Any] = []
        for value in linear_fn.captured:
            if isinstance(value, Tracer) and value._trace is primal_trace:
                residual_slots.append(len(outs) + len(residuals))
                residuals.append(value)
            else:
                residual_slots.append(None)
        primal_fn = primal_trace.finish([*outs, *residuals])
    return Linearized(primal_fn, linear_fn, len(outs), residual_slots, zero_mask)


# --- transpose ---------------------------------------------------------------------------------


class UndefinedPrimal:
    """A linear input of a transpose rule: only its aval is known."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined(x: Any) -> bool:
    return type(x) is UndefinedPrimal


def transpose_traced(
    linear_fn: Any,
    captured_values: Sequence[Any],
    cotangents: Sequence[Any],
    num_linear: int | None = None,
) -> list[Any]:
    """Cotangents of a linear function's inputs given its outputs' cotangents (None = zero).

    The first `num_linear` inputs (all of `in_avals` by default) are the linear ones; the rest are
    bound to `captured_values`. Ops whose operands do not depend on the linear inputs are
    evaluated forward first; then the linear ops are walked backwards, accumulating cotangents.
    """
    arguments, ops, returned = linear_fn.parts()
    owner = linear_fn.owner
    if num_linear is None:
        num_linear = len(linear_fn.in_avals)
    env: dict[Any, Any] = {}
    linear: set[Any] = set()
    for i, arg in enumerate(arguments):
        if i < num_linear:
            env[arg] = UndefinedPrimal(linear_fn.in_avals[i])
            linear.add(arg)
        else:
            env[arg] = captured_values[i - num_linear]
    linear_ops = []
    for op in ops:
        operands = operand_values(op)
        if any(v in linear for v in operands):
            linear_ops.append((op, operands))
            for r in op.results:
                linear.add(r)
        else:
            outs = eval_op(op, [env[v] for v in operands], owner)
            for r, value in zip(op.results, outs, strict=True):
                env[r] = value
    ct_env: dict[Any, Any] = {}
    for value, ct in zip(returned, cotangents, strict=True):
        if ct is not None and value in linear:
            ct_env[value] = add_tangents(ct_env.get(value), ct)
    for op, op_operands in reversed(linear_ops):
        cts_out = [ct_env.pop(r, None) for r in op.results]
        if all(ct is None for ct in cts_out):
            continue
        cts_in = _transpose_op(op, op_operands, cts_out, linear, env, owner)
        for v, ct_in in zip(op_operands, cts_in, strict=True):
            if v in linear and ct_in is not None:
                ct_env[v] = add_tangents(ct_env.get(v), ct_in)
    return [ct_env.get(arg) for arg in arguments[:num_linear]]


@mlir.rewrites_one_op
def _transpose_op(op, operands, cts_out, linear, env, owner) -> Sequence[Any]:
    """The cotangents of one linear op's operands, given its outputs' (None = zero)."""
    key = op_key(op)
    rule = op_rules.transpose_rules.get(key)
    if rule is None:
        raise NotImplementedError(f"[transpose] rule for '{key}' not implemented")
    values = [UndefinedPrimal(aval_of_value(v)) if v in linear else env[v] for v in operands]
    ct = cts_out if len(cts_out) > 1 else cts_out[0]
    return rule(ct, *values, **decode(op, owner, key))


def call_primal(lin: Linearized, primals: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Runs K on `primals` in the current context: (primal outputs, L's captured values)."""
    if all_abstract():  # under jit: K's ops are copied in, not re-emitted one by one
        outs = copy_in(lin.primal_fn, primals)
    else:
        outs = interpret(lin.primal_fn, primals)
    captured = [
        outs[slot] if slot is not None else value
        for slot, value in zip(lin.residual_slots, lin.linear_fn.captured, strict=True)
    ]
    return outs[: lin.num_outputs], captured


# --- stop_gradient: a marker op, the identity with zero derivative -----------------------------
# A `stablehlo.custom_call` to `stablax.stop_gradient`, dropped before compilation
# (ir_passes.strip_markers), so XLA never sees it.

STOP_GRADIENT = "stablehlo.custom_call:stablax.stop_gradient"


def _identity_rule(x: ShapedArray) -> ShapedArray:
    return x


op_rules.def_op(
    STOP_GRADIENT,
    _identity_rule,
    marker_lowering("stablax.stop_gradient"),
    differentiable=False,
    batch=elementwise_batch_rule(STOP_GRADIENT),
)


def stop_gradient_op(x: Any) -> Any:
    """The identity with zero derivative (one array)."""
    aval = aval_of(x)
    if aval.dtype.kind in "biu":  # no derivative to stop; a NumPy array takes its canonical
        # dtype (a uint64 one is uint32 without x64), as every op's operand does
        kept = hasattr(x, "aval") or getattr(x, "dtype", aval.dtype) == aval.dtype
        return x if kept else np.asarray(x, aval.dtype)
    if core.current_trace() is None and type(x) in (float, complex):
        return x  # as JAX: the Python scalar itself, no array, outside any transformation
    if not hasattr(x, "aval"):
        x = dispatch.to_array(x)
    if core.current_trace() is None:
        return x  # a concrete array has no derivative to stop
    return dispatch.bind(STOP_GRADIENT, x)


def stop_gradient(x: Any) -> Any:
    """The identity on a pytree of arrays, with zero derivative: gradients do not flow through."""
    return tree_util.tree_map(stop_gradient_op, x)
