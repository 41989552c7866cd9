"""custom_jvp, custom_vjp and checkpoint (remat): user-supplied derivative behaviour.

Each wraps its function as a `func.call` (transforms/calls.py); the jvp rule of `func.call`
below dispatches on the callee's kind. custom_vjp's tangent is a marker op whose transpose rule
runs the user's bwd; checkpoint recomputes its body in the linear function instead of saving
intermediates, except what its policy saves.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, dispatch, tree_util
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray
from stablax._src.ir import ir
from stablax._src.transforms import calls
from stablax._src.transforms.ad import (
    aval_of,
    instantiate,
    is_differentiable_dtype,
    jvp_traced,
    tangent_aval,
)


def _split_args(args: Sequence[Any], nondiff_argnums: Sequence[int]):
    nondiff = tuple(args[i] for i in nondiff_argnums)
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, diff


def _merge_args(nondiff: Sequence[Any], diff: Sequence[Any], nondiff_argnums: Sequence[int]):
    out, nd, d = [], iter(nondiff), iter(diff)
    for i in range(len(nondiff) + len(diff)):
        out.append(next(nd) if i in nondiff_argnums else next(d))
    return out


def _hashable(values: Sequence[Any]) -> Any:
    try:
        hash(values)
        return values
    except TypeError:
        return tuple(id(v) for v in values)


def _trace_call(
    kind: str,
    fun: Callable,
    nondiff_argnums: Sequence[int],
    args: Sequence[Any],
    rule: Any,
    rule_key: Any,
):
    nondiff, diff = _split_args(args, nondiff_argnums)
    leaves, in_tree = tree_util.tree_flatten(diff)
    boxes: dict[str, Any] = {}

    def flat(*tracers):
        diff_args = tree_util.tree_unflatten(in_tree, list(tracers))
        out = fun(*_merge_args(nondiff, diff_args, nondiff_argnums))
        out_leaves, boxes["out_tree"] = tree_util.tree_flatten(out)
        return out_leaves

    traced = core.trace_to_func(flat, [aval_of(x) for x in leaves])
    info = {"rule": rule, "nondiff": nondiff, "in_tree": in_tree, "out_tree": boxes["out_tree"]}
    callee, captured = calls.register_callee(
        kind, traced, info, (rule_key, _hashable(nondiff), in_tree)
    )
    # The tree structures of this call are the callee's too (same text, same rule).
    callee.rule.update(out_tree=boxes["out_tree"])
    outs = calls.call(callee, leaves, captured)
    return tree_util.tree_unflatten(boxes["out_tree"], outs)


class custom_jvp:  # noqa: N801 (JAX's public name)
    """A function with a user-defined JVP rule (`defjvp` or `defjvps`).

    Example:
      @custom_jvp
      def f(x): return jnp.sin(x)
      @f.defjvp
      def f_jvp(primals, tangents): (x,), (t,) = primals, tangents; return f(x), jnp.cos(x) * t
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One function per argument: `jvp_i(tangent_i, primal_out, *primals)`."""

        def jvp(primals, tangents):
            out = self.fun(*primals)
            total = None
            for rule, t in zip(jvps, tangents, strict=True):
                if rule is None or t is None:
                    continue
                term = rule(t, out, *primals)
                total = (
                    term if total is None else tree_util.tree_map(lambda a, b: a + b, total, term)
                )
            if total is None:
                total = tree_util.tree_map(lambda o: o * 0, out)
            return out, total

        self.defjvp(jvp)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return self if instance is None else functools.partial(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp is None:
            raise AttributeError(
                f"No JVP defined for custom_jvp function {getattr(self.fun, '__name__', '?')} "
                "using defjvp."
            )
        if kwargs:
            args = _bind_kwargs(self.fun, args, kwargs)
        if core.current_trace() is None:
            return self.fun(*args)
        return _trace_call("custom_jvp", self.fun, self.nondiff_argnums, args, self, id(self))


class custom_vjp:  # noqa: N801 (JAX's public name)
    """A function with a user-defined VJP: `defvjp(fwd, bwd)`.

    fwd(*args) returns (output, residuals); bwd(residuals, output_cotangent) returns one
    cotangent per differentiable argument (a tuple).
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
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

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return self if instance is None else functools.partial(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fwd is None:
            raise AttributeError(
                f"No VJP defined for custom_vjp function {getattr(self.fun, '__name__', '?')} "
                "using defvjp."
            )
        if kwargs:
            args = _bind_kwargs(self.fun, args, kwargs)
        if core.current_trace() is None:
            return self.fun(*args)
        return _trace_call("custom_vjp", self.fun, self.nondiff_argnums, args, self, id(self))


def _bind_kwargs(fun: Callable, args: tuple, kwargs: dict) -> tuple:
    import inspect

    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


# --- checkpoint --------------------------------------------------------------------------------


class checkpoint_policies:  # noqa: N801 (JAX's public name)
    """Which intermediates a checkpointed function saves for the backward pass."""

    nothing_saveable = "nothing_saveable"
    everything_saveable = "everything_saveable"
    dots_saveable = "dots_saveable"
    checkpoint_dots = "dots_saveable"
    dots_with_no_batch_dims_saveable = "dots_with_no_batch_dims_saveable"


_POLICIES = {
    None,
    "nothing_saveable",
    "everything_saveable",
    "dots_saveable",
    "dots_with_no_batch_dims_saveable",
}


def checkpoint(
    fun: Callable,
    *,
    prevent_cse: bool = True,
    policy: Any = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable:
    """Rematerialization: under reverse mode, recompute fun's intermediates instead of saving
    them (all of them by default; `policy=checkpoint_policies.dots_saveable` keeps matmuls)."""
    if policy not in _POLICIES:
        raise ValueError(
            f"checkpoint: unknown policy {policy!r}; use a checkpoint_policies attribute"
        )
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun, updated=())
    def remat_fun(*args: Any) -> Any:
        if core.current_trace() is None:
            return fun(*args)
        return _trace_call("remat", fun, static, args, {"policy": policy}, policy)

    return remat_fun


remat = checkpoint


# --- the rules of func.call --------------------------------------------------------------------


def _call_jvp(primals, tangents, *, callee):
    entry = calls.callees[callee]
    info = entry.rule
    n = len(entry.traced.in_avals)
    args, captured = list(primals[:n]), list(primals[n:])
    arg_tangents = list(tangents[:n])
    if entry.kind == "custom_jvp":
        return _custom_jvp_rule(entry, info, args, arg_tangents)
    if entry.kind == "custom_vjp":
        return _custom_vjp_rule(entry, info, args, arg_tangents)
    # A checkpointed body is differentiated w.r.t. the values it closes over too.
    return _remat_rule(entry, info, args, captured, [*arg_tangents, *tangents[n:]])


def _custom_jvp_rule(entry, info, args, arg_tangents):
    custom = info["rule"]
    in_tree = info["in_tree"]
    tangents = [
        instantiate(t, tangent_aval(aval_of(a)))
        if is_differentiable_dtype(aval_of(a).dtype)
        else _float0_like(a)
        for a, t in zip(args, arg_tangents, strict=True)
    ]
    primals_tree = tree_util.tree_unflatten(in_tree, args)
    tangents_tree = tree_util.tree_unflatten(in_tree, tangents)
    nondiff = info["nondiff"]
    out, tangent_out = custom.jvp(*nondiff, tuple(primals_tree), tuple(tangents_tree))
    out_leaves, out_tree = tree_util.tree_flatten(out)
    t_leaves, t_tree = tree_util.tree_flatten(tangent_out)
    if out_tree != t_tree:
        raise TypeError(
            "Custom JVP rule must produce primal and tangent outputs with equal container "
            f"(pytree) structures, but got {out_tree} and {t_tree} respectively."
        )
    for o, t in zip(out_leaves, t_leaves, strict=True):
        if aval_of(o).shape != aval_of(t).shape:
            raise ValueError(
                "Custom JVP rule must produce primal and tangent outputs with equal shapes, "
                f"got {aval_of(o).shape} and {aval_of(t).shape}"
            )
    return out_leaves, t_leaves


def _float0_like(a):
    return None


def _custom_vjp_rule(entry, info, args, arg_tangents):
    custom = info["rule"]
    nondiff = info["nondiff"]
    primals_tree = tree_util.tree_unflatten(info["in_tree"], args)
    out, residuals = custom.fwd(*nondiff, *primals_tree)
    out_leaves, _ = tree_util.tree_flatten(out)
    res_leaves, res_tree = tree_util.tree_flatten(residuals)
    _vjp_calls[entry.name] = (res_tree, len(res_leaves))
    tangents = [
        instantiate(t, tangent_aval(aval_of(a)))
        for a, t in zip(args, arg_tangents, strict=True)
        if is_differentiable_dtype(aval_of(a).dtype)
    ]
    lin = dispatch.bind(_VJP_LIN, *tangents, *res_leaves, callee=entry.name)
    return out_leaves, list(lin)


def _remat_rule(entry, info, args, captured, tangents):
    primal_trace = core.trace_state.target
    linear_trace = core.current_trace()
    traced = entry.traced
    if primal_trace is None or primal_trace is linear_trace:
        # Plain forward mode: nothing to save. This call's captured values, not the callee's.
        return jvp_traced(_without_captures(traced), [*args, *captured], tangents)
    policy = info["rule"]["policy"]
    if policy in ("everything_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable"):
        outs, saved = _saved_values(traced, args, captured, policy)  # the body inlined in K
    else:
        outs, saved = calls.call(entry, args, captured), {}  # the primal values, computed in K
    # Recompute the body inside L from its (lifted) inputs: its intermediates are not residuals.
    lifted = [
        linear_trace.lift(a, aval_of(a)) if isinstance(a, core.Tracer) else a
        for a in [*args, *captured]
    ]
    with core.emitting_into(linear_trace):
        _, out_tangents = jvp_traced(_without_captures(traced), lifted, tangents, saved=saved)
    return outs, out_tangents


def _without_captures(traced: core.TracedFunction) -> core.TracedFunction:
    # The captured values are passed explicitly (lifted into L) as trailing inputs.
    in_avals = [*traced.in_avals, *[aval_of(c) for c in traced.captured]]
    return core.TracedFunction(traced.module, in_avals, traced.out_avals, [], traced.trace)


def _saved_values(traced, args, captured, policy):
    """The body evaluated in K: (its outputs, {value the policy saves: its K value})."""
    from stablax._src.transforms.interpret import body, eval_op

    arguments, ops, returned = body(traced)
    env = dict(zip(arguments, [*args, *captured], strict=True))
    saved = {}
    for op in ops:
        outs = eval_op(op, [env[v] for v in op.operands])
        for r, v in zip(op.results, outs, strict=True):
            env[r] = v
        if policy == "everything_saveable" or (
            op.name == "stablehlo.dot_general"
            and (policy == "dots_saveable" or not _has_batch_dims(op))
        ):
            for r in op.results:
                saved[r] = env[r]
    return [env[v] for v in returned], saved


def _has_batch_dims(op) -> bool:
    dn = mlir.stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    return bool(len(dn.lhs_batching_dimensions))


dispatch.jvp_rules["func.call"] = _call_jvp


# --- custom_vjp's linear marker ----------------------------------------------------------------

_VJP_LIN = "stablehlo.custom_call:stablax.custom_vjp_lin"
_vjp_calls: dict[str, tuple[Any, int]] = {}


def _vjp_lin_rule(*avals: ShapedArray, callee: str) -> tuple[ShapedArray, ...]:
    return tuple(tangent_aval(a) for a in calls.callees[callee].traced.out_avals)


def _vjp_lin_lowering(operands, in_avals, out_avals, *, callee):
    op = mlir.emit(
        "stablehlo.custom_call",
        operands,
        [mlir.aval_type(a) for a in out_avals],
        {
            "call_target_name": ir.StringAttr.get("stablax.custom_vjp_lin"),
            "backend_config": ir.StringAttr.get(callee),
            "has_side_effect": ir.BoolAttr.get(False),
        },
    )
    return list(op.results)


def _decode_vjp_lin(op: Any) -> dict[str, Any]:
    return {"callee": ir.StringAttr(op.attributes["backend_config"]).value}


def _vjp_lin_transpose(ct, *operands, callee):
    entry = calls.callees[callee]
    info = entry.rule
    custom = info["rule"]
    res_tree, num_res = _vjp_calls[callee]
    num_tangents = len(operands) - num_res
    residuals = tree_util.tree_unflatten(res_tree, list(operands[num_tangents:]))
    cts = ct if isinstance(ct, (list, tuple)) else [ct]
    out_avals = entry.traced.out_avals
    cts = [c if c is not None else _zeros(a) for c, a in zip(cts, out_avals, strict=True)]
    ct_tree = tree_util.tree_unflatten(info["out_tree"], cts)
    in_cts = custom.bwd(*info["nondiff"], residuals, ct_tree)
    if not isinstance(in_cts, (tuple, list)):
        raise TypeError(
            "Custom VJP bwd rule must produce a tuple of cotangents, one per primal input, got "
            f"{type(in_cts).__name__}"
        )
    arg_trees = tree_util.treedef_children(info["in_tree"])
    if len(in_cts) != len(arg_trees):
        raise TypeError(
            "Custom VJP bwd rule must produce a tuple of length equal to the number of "
            f"arguments of the primal function less nondiff_argnums ({len(arg_trees)}), got "
            f"{len(in_cts)}"
        )
    leaves = []
    for ct, tree in zip(in_cts, arg_trees, strict=True):
        # None stands for a zero cotangent of a whole argument.
        is_none = lambda x: x is None  # noqa: E731
        ct_leaves = [None] * tree.num_leaves if ct is None else tree_util.tree_leaves(ct, is_none)
        if len(ct_leaves) != tree.num_leaves:
            raise TypeError(
                f"Custom VJP bwd rule produced a cotangent with {len(ct_leaves)} leaves for an "
                f"argument with structure {tree}"
            )
        leaves += ct_leaves
    differentiable = [is_differentiable_dtype(a.dtype) for a in entry.traced.in_avals]
    kept = [c for c, d in zip(leaves, differentiable, strict=True) if d]
    return [*kept, *([None] * num_res)]


def _zeros(aval: ShapedArray) -> Any:
    from stablax._src.transforms.ad import zeros_like_aval

    return zeros_like_aval(tangent_aval(aval))


dispatch.def_op(
    _VJP_LIN, _vjp_lin_rule, _vjp_lin_lowering, decode=_decode_vjp_lin, transpose=_vjp_lin_transpose
)
