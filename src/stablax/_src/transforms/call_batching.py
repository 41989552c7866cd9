"""Batching rules of calls with rules: custom_jvp, custom_vjp and checkpoint callees (`func.call`),
and custom_vjp's linear marker.

A batched call calls a new callee whose body is the batched body of the old one, every output
batched at axis 0. Its rules are the user's rules under vmap (custom_jvp: the vmapped jvp;
custom_vjp: the vmapped fwd and bwd), and a checkpoint stays a checkpoint with its policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stablax._src import core, dispatch, tree_util
from stablax._src.core import ShapedArray
from stablax._src.lax._batch_rules import aval_of, bdim_at_front, moveaxis
from stablax._src.transforms import calls, custom_derivatives
from stablax._src.transforms.ad import is_differentiable_dtype
from stablax._src.transforms.batching import batch_traced


def _at_front(values: Sequence[Any], dims: Sequence[int | None]):
    """Batched values with their batch dim moved to axis 0; unbatched ones as they are."""
    moved = [x if d is None else moveaxis(x, d, 0) for x, d in zip(values, dims, strict=True)]
    return moved, [None if d is None else 0 for d in dims]


def _batched_body(
    traced: core.TracedFunction, dims: Sequence[int | None], axis_size: int
) -> core.TracedFunction:
    # The callee's captured values are its trailing inputs here, batched or not like the others.
    in_avals = [*traced.in_avals, *(aval_of(c) for c in traced.captured)]
    opened = core.TracedFunction(traced.module, in_avals, traced.out_avals, [], traced.trace)
    batched_avals = [
        a if d is None else ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type)
        for a, d in zip(in_avals, dims, strict=True)
    ]

    def body(*xs):
        outs, out_dims = batch_traced(opened, xs, dims, axis_size)
        return [bdim_at_front(o, d, axis_size) for o, d in zip(outs, out_dims, strict=True)]

    return core.trace_to_func(body, batched_avals)


def batched_callee(
    entry: calls.Callee,
    dims: Sequence[int | None],
    axis_size: int,
    captured: Sequence[Any],
    rule: Any,
    rule_key: Any,
) -> tuple[calls.Callee, list[Any]]:
    """The callee computing `entry`'s body batched along axis 0 of the operands with dims 0
    (args, then `captured`, the call's captured values), and the captured values of a call."""
    new = _batched_body(entry.traced, dims, axis_size)
    n = len(entry.traced.in_avals)
    traced = core.TracedFunction(
        new.module, new.in_avals[:n], new.out_avals, [*captured, *new.captured], new.trace
    )
    return calls.register_callee(entry.kind, traced, rule, ("vmap", entry.name, rule_key))


class VmappedRules:
    """A custom_jvp/custom_vjp function's rules for its batched callee: the user's rules under
    vmap, with every output batched at axis 0 like the batched body's outputs.

    `arg_dims` (0 or None per argument leaf) say which arguments are batched; `res_dims` which
    residuals are (None: all of them, as the vmapped fwd returns them).
    """

    def __init__(self, info: dict[str, Any], arg_dims, axis_size: int, res_dims=None) -> None:
        self.custom = info["rule"]
        self.nondiff = info["nondiff"]
        self.in_tree = info["in_tree"]
        self.arg_dims = list(arg_dims)
        self.axis_size = axis_size
        self.res_dims = res_dims

    def _vmap(self, fun, in_axes):
        from stablax._src.transforms.vmap_api import vmap

        return vmap(fun, in_axes=in_axes, axis_size=self.axis_size)

    def _arg_axes(self) -> tuple:
        return tree_util.tree_unflatten(self.in_tree, self.arg_dims)

    def jvp(self, primals: tuple, tangents: tuple) -> Any:
        def one(p, t):
            return self.custom.jvp(*self.nondiff, p, t)

        axes = self._arg_axes()
        return self._vmap(one, (axes, axes))(primals, tangents)

    def fwd(self, *args: Any) -> Any:
        def one(*a):
            return self.custom.fwd(*self.nondiff, *a)

        return self._vmap(one, self._arg_axes())(*args)

    def bwd(self, residuals: Any, ct: Any) -> Any:
        def one(r, c):
            return self.custom.bwd(*self.nondiff, r, c)

        res_axes = 0
        if self.res_dims is not None:
            res_axes = tree_util.tree_unflatten(tree_util.tree_structure(residuals), self.res_dims)
        return self._sum_unbatched(self._vmap(one, (res_axes, 0))(residuals, ct))

    def _sum_unbatched(self, cts: Any) -> Any:
        # An unbatched argument is shared by the examples: its cotangent is their sum. Malformed
        # outputs pass through for custom_vjp's own error messages.
        from stablax._src import lax

        arg_trees = tree_util.treedef_children(self.in_tree)
        if not isinstance(cts, (tuple, list)) or len(cts) != len(arg_trees):
            return cts
        dims = iter(self.arg_dims)
        out = []
        for ct, tree in zip(cts, arg_trees, strict=True):
            arg_dims = [next(dims) for _ in range(tree.num_leaves)]
            leaves = tree_util.tree_leaves(ct, is_leaf=lambda x: x is None)
            if ct is None or len(leaves) != len(arg_dims):
                out.append(ct)
                continue
            summed = [
                c if c is None or d is not None else lax.reduce_sum(c, (0,))
                for c, d in zip(leaves, arg_dims, strict=True)
            ]
            out.append(tree_util.tree_unflatten(tree, summed))
        return tuple(out)


def _rules_of_batched(entry: calls.Callee, arg_dims, axis_size: int, res_dims=None) -> dict:
    info = entry.rule
    if entry.kind == "remat":
        return dict(info)
    rules = VmappedRules(info, arg_dims, axis_size, res_dims)
    return {"rule": rules, "nondiff": (), "in_tree": info["in_tree"], "out_tree": info["out_tree"]}


def _call_batch(values, dims, *, axis_size, callee):
    entry = calls.callees[callee]
    n = len(entry.traced.in_avals)
    values, dims = _at_front(values, dims)
    if entry.kind != "remat" and any(d is not None for d in dims[n:]):
        raise NotImplementedError(
            f"[vmap] a {entry.kind} function that closes over batched values; pass them to it "
            "as arguments instead"
        )
    rules = _rules_of_batched(entry, dims[:n], axis_size)
    batched, captured = batched_callee(entry, dims, axis_size, values[n:], rules, tuple(dims))
    outs = calls.call(batched, values[:n], captured)
    return outs, [0] * len(outs)


dispatch.batch_rules["func.call"] = _call_batch


def _vjp_lin_batch(values, dims, *, axis_size, callee):
    # The marker of a batched callee whose arguments are batched like the tangents; its
    # transpose runs the vmapped bwd on residuals batched as they come.
    entry = calls.callees[callee]
    res_tree, num_res = custom_derivatives._vjp_calls[callee]
    values, dims = _at_front(values, dims)
    num_tangents = len(values) - num_res
    tangent_dims = iter(dims[:num_tangents])
    arg_dims = [
        next(tangent_dims) if is_differentiable_dtype(a.dtype) else None
        for a in entry.traced.in_avals
    ]
    rules = _rules_of_batched(entry, arg_dims, axis_size, dims[num_tangents:])
    captured = entry.traced.captured  # only their avals matter: the marker's callee is not called
    all_dims = [*arg_dims, *([None] * len(captured))]
    key = (tuple(all_dims), tuple(dims[num_tangents:]))
    batched, _ = batched_callee(entry, all_dims, axis_size, captured, rules, key)
    custom_derivatives._vjp_calls[batched.name] = (res_tree, num_res)
    outs = dispatch.bind(custom_derivatives._VJP_LIN, *values, callee=batched.name)
    return list(outs), [0] * len(outs)


dispatch.batch_rules[custom_derivatives._VJP_LIN] = _vjp_lin_batch
