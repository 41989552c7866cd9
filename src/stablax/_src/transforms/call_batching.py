"""Batching rules of calls (`func.call`) and of custom_vjp's linear marker.

A plain call is batched inline. A batched custom_jvp, custom_vjp or checkpoint call calls a new
callee whose body is the batched body of the old one, every output batched at axis 0; its rule
is the user's rules under vmap (custom_jvp: the vmapped jvp; custom_vjp: the vmapped fwd and
bwd), and a checkpoint stays a checkpoint with its policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stablax._src import core, dispatch, op_rules, tree_util
from stablax._src.avals import ShapedArray
from stablax._src.lax._batch_rules import bdim_at_front, moveaxis
from stablax._src.transforms import calls
from stablax._src.transforms.ad import is_differentiable_dtype
from stablax._src.transforms.batching import batch_traced
from stablax._src.transforms.checkpoint import Remat
from stablax._src.transforms.custom_derivatives import VJP_LIN, CustomJvp, CustomVjp, VjpLin


def _at_front(values: Sequence[Any], dims: Sequence[int | None]):
    """Batched values with their batch dim moved to axis 0; unbatched ones as they are."""
    moved = [x if d is None else moveaxis(x, d, 0) for x, d in zip(values, dims, strict=True)]
    return moved, [None if d is None else 0 for d in dims]


def batched_body(callee: Any, dims: Sequence[int | None], axis_size: int) -> core.TracedFunction:
    """A closed function computing `callee` on inputs batched at 0 where `dims` says so, every
    output batched at 0."""
    batched_avals = [
        a if d is None else ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type)
        for a, d in zip(callee.in_avals, dims, strict=True)
    ]

    def body(*xs):
        outs, out_dims = batch_traced(callee, xs, dims, axis_size)
        return [bdim_at_front(o, d, axis_size) for o, d in zip(outs, out_dims, strict=True)]

    return core.trace_to_func(body, batched_avals)


class VmappedRules:
    """A custom_jvp/custom_vjp function's rules for its batched callee: the user's rules under
    vmap, with every output batched at axis 0 like the batched body's outputs.

    `arg_dims` (0 or None per argument leaf) say which arguments are batched; `res_dims` which
    residuals are (None: all of them, as the vmapped fwd returns them).
    """

    def __init__(self, custom, nondiff, in_tree, arg_dims, axis_size: int, res_dims=None) -> None:
        self.custom = custom
        self.nondiff = nondiff
        self.in_tree = in_tree
        self.arg_dims = list(arg_dims)
        self.axis_size = axis_size
        self.res_dims = res_dims
        self.symbolic_zeros = getattr(custom, "symbolic_zeros", False)

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
        # The user's fwd takes the nondiff arguments in their positions.
        nondiff_argnums = getattr(self.custom, "nondiff_argnums", ())

        def one(*a):
            full, nondiff, diff = [], iter(self.nondiff), iter(a)
            for i in range(len(self.nondiff) + len(a)):
                full.append(next(nondiff) if i in nondiff_argnums else next(diff))
            return self.custom.fwd(*full)

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


def _batched_rule(rule: Any, arg_dims: Sequence[int | None], axis_size: int) -> Any:
    if isinstance(rule, Remat):
        return rule
    custom = VmappedRules(rule.custom, rule.nondiff, rule.in_tree, arg_dims, axis_size)
    return type(rule)(custom, (), rule.in_tree, rule.out_tree, rule.num_args)


def _call_batch(values, dims, *, axis_size, callee, rule):
    if hasattr(rule, "batch"):  # a rule of its own (custom_vmap)
        return rule.batch(values, dims, axis_size)
    if not isinstance(rule, (CustomJvp, CustomVjp, Remat)):
        return batch_traced(callee, values, dims, axis_size)  # plain calls and traced rules
    n = rule.num_args
    values, dims = _at_front(values, dims)
    if not isinstance(rule, Remat) and any(d is not None for d in dims[n:]):
        raise NotImplementedError(
            f"[vmap] a {rule.kind} function that closes over batched values; pass them to it "
            "as arguments instead"
        )
    outs = calls.call(
        batched_body(callee, dims, axis_size), values, _batched_rule(rule, dims[:n], axis_size)
    )
    return outs, [0] * len(outs)


op_rules.batch_rules["func.call"] = _call_batch


def _vjp_lin_batch(values, dims, *, axis_size, info: VjpLin):
    # The tangents and residuals of a batched call: its transpose runs the vmapped bwd on
    # residuals batched as they come, the tangents batched like the arguments.
    values, dims = _at_front(values, dims)
    num_tangents = len(values) - info.num_res
    tangent_dims = iter(dims[:num_tangents])
    arg_dims = [
        next(tangent_dims) if is_differentiable_dtype(a.dtype) else None for a in info.arg_avals
    ]
    custom = VmappedRules(
        info.custom, info.nondiff, info.in_tree, arg_dims, axis_size, dims[num_tangents:]
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


op_rules.batch_rules[VJP_LIN] = _vjp_lin_batch
