"""custom_vjp: a function with user-supplied forward and backward passes (fwd, bwd).

In a trace that autodiff is about to rewrite, the call traces fwd in place of the primal, as
JAX does under grad; elsewhere it traces the primal (a `CustomVjp` call) and runs fwd when the
call is differentiated. The output tangents are a marker op, VJP_LIN, whose transpose runs bwd
(a hi-primitive's marker also carries the tangents its jvp rule gives, which forward mode uses).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, dispatch, op_rules, tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters import calls
from stablax._src.interpreters.ad import (
    instantiate,
    is_differentiable_dtype,
    tangent_aval,
    zeros_like_aval,
)
from stablax._src.interpreters.batching import at_front, bdim_at_front
from stablax._src.interpreters.custom_calls import (
    CustomFunction,
    PrimalCall,
    SymbolicZero,
    VmappedRules,
    call_primal,
    check_no_closed_over_tangents,
    merge_args,
    trace_callee,
)
from stablax._src.ir import ir
from stablax._src.ir_passes import PAYLOAD_ATTRIBUTE, emit_marker


class CustomVJPPrimal:
    """A primal argument of a custom_vjp fwd rule defined with `symbolic_zeros=True`: its value
    and whether it is being differentiated."""

    __slots__ = ("value", "perturbed")

    def __init__(self, value: Any, perturbed: bool) -> None:
        self.value = value
        self.perturbed = perturbed

    def __repr__(self) -> str:
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def custom_vjp_primal_tree_values(tree: Any) -> Any:
    """The values of a tree of CustomVJPPrimal records (a symbolic_zeros fwd rule's arguments)."""

    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value

    return tree_util.tree_map(value, tree)


def _check_for_tracers(nondiff: Any) -> None:
    for leaf in tree_util.tree_leaves(nondiff):
        if isinstance(leaf, core.Tracer):
            raise core.UnexpectedTracerError(
                "Found a traced value passed as an argument to a custom_vjp function in a "
                "position indicated by nondiff_argnums as non-differentiable. Traced values "
                "cannot be passed as non-differentiable arguments to custom_vjp functions; "
                "nondiff_argnums should only be used for arguments that can't be or contain "
                "arrays, e.g. function-valued arguments."
            )


class custom_vjp(CustomFunction):  # noqa: N801 (JAX's public name)
    """A function with a user-defined VJP: `defvjp(fwd, bwd)`.

    fwd(*args) returns (output, residuals); bwd(residuals, output_cotangent) returns one
    cotangent per differentiable argument (a tuple).
    """

    kind, rule, definer = "custom_vjp", "VJP", "defvjp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None

    def defvjp(
        self,
        fwd: Callable,
        bwd: Callable,
        symbolic_zeros: bool = False,
        optimize_remat: bool = False,
    ) -> None:
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros = symbolic_zeros

    def _has_rules(self) -> bool:
        return self.fwd is not None

    def _nondiff_arguments(self, nondiff: tuple) -> tuple:
        _check_for_tracers(nondiff)
        return nondiff

    def _traced_call(self, trace: core.FuncTrace, nondiff: tuple, leaves, in_tree) -> Any:
        if trace.differentiated:
            box: dict[str, Any] = {}

            # As JAX under grad: fwd runs (once, on concrete values outside jit), not the primal.
            def fwd(*xs):
                out_leaves, res_leaves, box["out_tree"], box["res_tree"] = _run_fwd(
                    self, nondiff, in_tree, xs
                )
                box["num_out"] = len(out_leaves)
                return [*out_leaves, *res_leaves]

            traced = trace_callee(fwd, leaves, concrete=True)
            info = VjpLin(self, nondiff, in_tree, box["out_tree"], box["res_tree"], traced, leaves)
            payload = FwdCall(info, len(leaves))
            outs = calls.call_traced_closed(traced, leaves, payload)
            return tree_util.tree_unflatten(box["out_tree"], outs[: box["num_out"]])
        return call_primal(self, nondiff, leaves, in_tree, CustomVjp)


def _run_fwd(custom, nondiff, in_tree, args):
    """Runs fwd on the arguments in their positions (nondiff ones included, as in JAX)."""
    if getattr(custom, "symbolic_zeros", False):
        args = [CustomVJPPrimal(a, is_differentiable_dtype(aval_of(a).dtype)) for a in args]
    primals_tree = tree_util.tree_unflatten(in_tree, list(args))
    nondiff_argnums = getattr(custom, "nondiff_argnums", ())
    result = custom.fwd(*merge_args(nondiff, primals_tree, nondiff_argnums))
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError(
            "Custom VJP fwd rule must produce a pair (list or tuple of length two) representing "
            f"primal outputs and residuals (values stored from the forward pass for use on the "
            f"backward pass), got {type(result).__name__}."
        )
    out, residuals = result
    out_leaves, out_tree = tree_util.tree_flatten(out)
    res_leaves, res_tree = tree_util.tree_flatten(residuals)
    return out_leaves, res_leaves, out_tree, res_tree


class VjpLin:
    """What the tangent of a custom_vjp call needs to run bwd: the user's rules, the argument
    and output structures and avals, and the residuals' structure."""

    def __init__(self, custom, nondiff, in_tree, out_tree, res_tree, fwd_traced, args):
        self.custom = custom
        self.nondiff = nondiff
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.res_tree = res_tree
        self.num_res = res_tree.num_leaves
        self.arg_avals = [aval_of(a) for a in args]
        self.out_avals = list(fwd_traced.out_avals[: out_tree.num_leaves])
        self.num_forward = 0  # trailing operands: the output tangents forward mode uses

    def with_rules(self, custom, nondiff, arg_avals, out_avals, res_tree=None) -> VjpLin:
        new = object.__new__(VjpLin)
        new.__dict__.update(self.__dict__)
        new.custom, new.nondiff = custom, nondiff
        new.arg_avals, new.out_avals = list(arg_avals), list(out_avals)
        if res_tree is not None:
            new.res_tree, new.num_res = res_tree, res_tree.num_leaves
        return new

    def linear(
        self, tangents: Sequence[Any], residuals: Sequence[Any], forward: Sequence[Any] = ()
    ) -> list[Any]:
        """The marker standing for the output tangents: bwd transposes it. `forward`, one per
        output (a hi-primitive's jvp rule's), are its value where it is not transposed."""
        live = [
            instantiate(t, tangent_aval(a))
            for a, t in zip(self.arg_avals, tangents, strict=True)
            if is_differentiable_dtype(a.dtype)
        ]
        if forward:
            forward = [
                instantiate(t, tangent_aval(a))
                for a, t in zip(self.out_avals, forward, strict=True)
            ]
        info = self.with_rules(self.custom, self.nondiff, self.arg_avals, self.out_avals)
        info.num_forward = len(forward)
        return list(dispatch.bind(VJP_LIN, *live, *residuals, *forward, info=info))


class CustomVjp(PrimalCall):
    """The payload of a custom_vjp call of the primal function: when differentiated, fwd runs in
    place of the call and the tangents are a marker that bwd transposes."""

    kind = "custom_vjp"

    def jvp(self, callee, primals, tangents):
        n = self.num_args
        check_no_closed_over_tangents(tangents[n:], "custom_vjp", "VJP")
        args = primals[:n]
        out_leaves, res_leaves, out_tree, res_tree = _run_fwd(
            self.custom, self.nondiff, self.in_tree, args
        )
        info = VjpLin(self.custom, self.nondiff, self.in_tree, out_tree, res_tree, callee, args)
        return out_leaves, info.linear(tangents[:n], res_leaves)


class FwdCall:
    """The payload of a call of a custom_vjp function's fwd, traced in place of the primal in a
    trace about to be differentiated. Its derivative: the same call, plain (later derivatives
    differentiate fwd's body), and the marker for the primal outputs' tangents."""

    kind = "custom_vjp_fwd"

    def __init__(self, info: VjpLin, num_args: int) -> None:
        self.info = info
        self.num_args = num_args

    def jvp(self, callee, primals, tangents):
        n = self.num_args
        check_no_closed_over_tangents(tangents[n:], "custom_vjp", "VJP")
        outs = calls.call(callee, primals)
        num_out = len(outs) - self.info.num_res
        out_tangents = self.info.linear(tangents[:n], outs[num_out:])
        return outs, [*out_tangents, *([None] * self.info.num_res)]


# --- custom_vjp's linear marker ----------------------------------------------------------------

VJP_LIN = "stablehlo.custom_call:stablax.custom_vjp_lin"


def _vjp_lin_rule(*avals: ShapedArray, info: VjpLin) -> tuple[ShapedArray, ...]:
    return tuple(tangent_aval(a) for a in info.out_avals)


_NUM_FORWARD = "stablax.num_forward"  # how many trailing operands forward mode reads


def _vjp_lin_lowering(operands, in_avals, out_avals, *, info):
    key = core.lowering_trace().add_payload("custom_vjp_lin", info)
    parameters = {PAYLOAD_ATTRIBUTE: ir.StringAttr.get(key)}
    if info.num_forward:
        parameters[_NUM_FORWARD] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), info.num_forward
        )
    return emit_marker("stablax.custom_vjp_lin", operands, out_avals, parameters)


def _decode_vjp_lin(op: Any, owner: Any) -> dict[str, Any]:
    return {"info": owner.payloads[ir.StringAttr(op.attributes[PAYLOAD_ATTRIBUTE]).value]}


def _vjp_lin_transpose(ct, *operands, info: VjpLin):
    num_tangents = len(operands) - info.num_res - info.num_forward
    res = operands[num_tangents : num_tangents + info.num_res]
    residuals = tree_util.tree_unflatten(info.res_tree, list(res))
    cts = ct if isinstance(ct, (list, tuple)) else [ct]
    symbolic = getattr(info.custom, "symbolic_zeros", False)
    cts = [
        c
        if c is not None
        else SymbolicZero(tangent_aval(a))
        if symbolic
        else zeros_like_aval(tangent_aval(a))
        for c, a in zip(cts, info.out_avals, strict=True)
    ]
    ct_tree = tree_util.tree_unflatten(info.out_tree, cts)
    in_cts = info.custom.bwd(*info.nondiff, residuals, ct_tree)
    if not isinstance(in_cts, (tuple, list)):
        raise TypeError(
            "Custom VJP bwd rule must produce a tuple of cotangents, one per primal input, got "
            f"{type(in_cts).__name__}"
        )
    arg_trees = tree_util.treedef_children(info.in_tree)
    if len(in_cts) != len(arg_trees):
        raise TypeError(
            "Custom VJP bwd rule must produce a tuple of length equal to the number of "
            f"arguments of the primal function less nondiff_argnums ({len(arg_trees)}), got "
            f"{len(in_cts)}"
        )
    leaves = []
    for c, tree in zip(in_cts, arg_trees, strict=True):
        # None stands for a zero cotangent of a whole argument.
        is_none = lambda x: x is None  # noqa: E731
        ct_leaves = [None] * tree.num_leaves if c is None else tree_util.tree_leaves(c, is_none)
        if len(ct_leaves) != tree.num_leaves:
            raise TypeError(
                f"Custom VJP bwd rule produced a cotangent with {len(ct_leaves)} leaves for an "
                f"argument with structure {tree}"
            )
        leaves += ct_leaves
    differentiable = [is_differentiable_dtype(a.dtype) for a in info.arg_avals]
    leaves = [None if type(c) is SymbolicZero else c for c in leaves]
    kept = [c for c, d in zip(leaves, differentiable, strict=True) if d]
    return [*kept, *([None] * (info.num_res + info.num_forward))]


def _vjp_lin_batch(values, dims, *, axis_size, info: VjpLin):
    # The tangents and residuals of a batched call: its transpose runs the vmapped bwd on
    # residuals batched as they come, the tangents batched like the arguments.
    values, dims = at_front(values, dims)
    num_forward = info.num_forward  # output tangents, batched like the outputs
    if num_forward:
        forward = [
            bdim_at_front(v, d, axis_size)
            for v, d in zip(values[-num_forward:], dims[-num_forward:])
        ]
        values, dims = (
            [*values[:-num_forward], *forward],
            [*dims[:-num_forward], *[0] * num_forward],
        )
    num_tangents = len(values) - info.num_res - num_forward
    tangent_dims = iter(dims[:num_tangents])
    arg_dims = [
        next(tangent_dims) if is_differentiable_dtype(a.dtype) else None for a in info.arg_avals
    ]
    custom = VmappedRules(
        info.custom,
        info.nondiff,
        info.in_tree,
        arg_dims,
        axis_size,
        dims[num_tangents : num_tangents + info.num_res],
    )
    batched = info.with_rules(
        custom,
        (),
        [a if d is None else _stacked(a, axis_size) for a, d in zip(info.arg_avals, arg_dims)],
        [_stacked(a, axis_size) for a in info.out_avals],
    )
    outs = dispatch.bind(VJP_LIN, *values, info=batched)
    return list(outs), [0] * len(outs)


def _stacked(aval: ShapedArray, axis_size: int) -> ShapedArray:
    return ShapedArray((axis_size, *aval.shape), aval.dtype, aval.weak_type)


_FORWARD_MODE_MESSAGE = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


def _expand_vjp_lin(op: Any) -> None:
    # Not transposed: forward mode. Only a hi-primitive's marker has its jvp rule's tangents.
    if _NUM_FORWARD not in op.attributes:
        raise TypeError(_FORWARD_MODE_MESSAGE)
    n = ir.IntegerAttr(op.attributes[_NUM_FORWARD]).value
    for result, tangent in zip(op.results, list(op.operands)[-n:], strict=True):
        result.replace_all_uses_with(tangent)
    op.erase()


def _vjp_lin_jvp(primals, tangents, *, info):
    # Forward mode over a custom_vjp's backward pass (jacfwd of grad): JAX's TypeError. A
    # hi-primitive's marker run forward is its jvp rule's tangents, so theirs are its tangents.
    if not info.num_forward:
        raise TypeError(_FORWARD_MODE_MESSAGE)
    outs = list(dispatch.bind(VJP_LIN, *primals, info=info))
    return outs, list(tangents[-info.num_forward :])


op_rules.def_op(
    VJP_LIN,
    _vjp_lin_rule,
    _vjp_lin_lowering,
    decode=_decode_vjp_lin,
    decode_reads_owner=True,
    cache_eagerly=False,
    jvp=_vjp_lin_jvp,
    transpose=_vjp_lin_transpose,
    batch=_vjp_lin_batch,
    expand=_expand_vjp_lin,
)
