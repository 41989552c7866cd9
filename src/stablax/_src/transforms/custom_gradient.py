"""custom_gradient and linear_call: derivative rules given as functions of the cotangent,
built on custom_vjp (custom_gradient) and on a `func.call` payload (linear_call)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters import calls
from stablax._src.interpreters.ad import instantiate, tangent_aval, zeros_like_aval
from stablax._src.interpreters.custom_vjp import custom_vjp
from stablax._src.interpreters.interpret import interpret


class _TracedRule:
    """A residual holding a traced function of cotangents: the arrays it closed over are the
    pytree's children (stored like any residual), the traced function and the structures of
    its inputs and outputs its static part."""

    def __init__(self, traced, captured: Sequence[Any], in_tree: Any, out_tree: Any) -> None:
        self.traced = traced
        self.captured = list(captured)
        self.in_tree = in_tree
        self.out_tree = out_tree

    def __call__(self, ct: Any) -> Any:
        ct_leaves, ct_tree = tree_util.tree_flatten(ct)
        if ct_tree != self.in_tree:
            raise TypeError(f"custom_gradient: cotangent structure {ct_tree} != {self.in_tree}")
        outs = interpret(self.traced, [*ct_leaves, *self.captured])
        return tree_util.tree_unflatten(self.out_tree, outs)


tree_util.register_pytree_node(
    _TracedRule,
    lambda r: (r.captured, (r.traced, r.in_tree, r.out_tree)),
    lambda aux, captured: _TracedRule(aux[0], captured, aux[1], aux[2]),
)


def custom_gradient(fun: Callable) -> Callable:
    """A function whose gradient its own body defines: `fun(*args)` returns `(output, vjp)`
    where `vjp(output cotangent)` returns the cotangents of the arguments (JAX's
    `jax.custom_gradient`, after TensorFlow's).

    Example: `@custom_gradient def f(x): return x ** 2, lambda g: (3 * g * x,)`.
    """

    @custom_vjp
    def wrapped(*args: Any) -> Any:
        out, _ = fun(*args)
        return out

    def fwd(*args: Any) -> Any:
        out, vjp_rule = fun(*args)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        box: dict[str, Any] = {}

        def rule(*cts):
            in_cts = vjp_rule(tree_util.tree_unflatten(out_tree, list(cts)))
            leaves, box["tree"] = tree_util.tree_flatten(in_cts)
            return leaves

        # The rule, traced once: the arrays it closes over become residuals.
        traced = core.trace_to_func(rule, [tangent_aval(aval_of(o)) for o in out_leaves])
        in_avals = [*traced.in_avals, *(aval_of(c) for c in traced.captured)]
        closed = traced.with_signature(in_avals, [])
        return out, _TracedRule(closed, traced.captured, out_tree, box["tree"])

    def bwd(rule: _TracedRule, ct: Any) -> Any:
        cts = rule(ct)
        return cts if isinstance(cts, tuple) else (cts,)

    wrapped.defvjp(fwd, bwd)
    functools.update_wrapper(wrapped, fun, updated=())
    return wrapped


def linear_call(fun: Callable, fun_transpose: Callable, residual_args: Any, linear_args: Any):
    """`fun(residual_args, linear_args)`, a function linear in `linear_args`, whose transpose is
    `fun_transpose(residual_args, cotangent)` instead of the transpose of fun's body (JAX's
    `custom_derivatives.linear_call`). Forward mode applies `fun` to the tangents of
    `linear_args`; `residual_args` are not differentiated."""
    if core.current_trace() is None:
        return fun(residual_args, linear_args)
    res_leaves, res_tree = tree_util.tree_flatten(residual_args)
    lin_leaves, lin_tree = tree_util.tree_flatten(linear_args)
    n_res = len(res_leaves)
    box: dict[str, Any] = {}

    def flat(*xs):
        res = tree_util.tree_unflatten(res_tree, list(xs[:n_res]))
        out = fun(res, tree_util.tree_unflatten(lin_tree, list(xs[n_res:])))
        out_leaves, box["out_tree"] = tree_util.tree_flatten(out)
        return out_leaves

    traced = core.trace_to_func(flat, [aval_of(x) for x in [*res_leaves, *lin_leaves]])
    payload = LinearCall(fun_transpose, res_tree, lin_tree, box["out_tree"], traced.out_avals)
    outs = calls.call_traced_closed(traced, [*res_leaves, *lin_leaves], payload)
    return tree_util.tree_unflatten(box["out_tree"], outs)


class LinearCall:
    """The payload of a `linear_call`: its tangent is the call on the tangents of the linear
    arguments; its transpose is the user's `fun_transpose`."""

    kind = "linear_call"

    def __init__(self, fun_transpose, res_tree, lin_tree, out_tree, out_avals) -> None:
        self.fun_transpose = fun_transpose
        self.res_tree = res_tree
        self.lin_tree = lin_tree
        self.out_tree = out_tree
        self.out_avals = list(out_avals)
        self.num_res = res_tree.num_leaves
        self.num_lin = lin_tree.num_leaves

    def jvp(self, callee, primals, tangents):
        outs = calls.call(callee, primals, self)
        r, n = self.num_res, self.num_lin
        if all(t is None for t in tangents[r : r + n]):
            return outs, [None] * len(outs)
        lin = [
            instantiate(t, tangent_aval(aval_of(p)))
            for p, t in zip(primals[r : r + n], tangents[r : r + n], strict=True)
        ]
        return outs, calls.call(callee, [*primals[:r], *lin, *primals[r + n :]], self)

    def transpose(self, cts, operands):
        r, n = self.num_res, self.num_lin
        cts = [
            c if c is not None else zeros_like_aval(tangent_aval(a))
            for c, a in zip(cts, self.out_avals, strict=True)
        ]
        res = tree_util.tree_unflatten(self.res_tree, list(operands[:r]))
        in_ct = self.fun_transpose(res, tree_util.tree_unflatten(self.out_tree, cts))
        lin_cts = tree_util.tree_leaves(in_ct, is_leaf=lambda x: x is None)
        if len(lin_cts) != n:
            raise TypeError(
                f"linear_call: the transpose returned {len(lin_cts)} cotangents for {n} linear "
                "arguments"
            )
        return [*([None] * r), *lin_cts, *([None] * (len(operands) - r - n))]
