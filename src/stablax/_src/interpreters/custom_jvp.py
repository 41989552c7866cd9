"""custom_jvp: a function with a user-supplied JVP rule.

In a trace that autodiff is about to rewrite (`FuncTrace.differentiated`, set by grad/jvp/vjp),
the call traces the user's rule, as JAX's JVP trace does: it runs once, on concrete values
outside jit. Elsewhere (jit, vmap, loop bodies) the primal function is traced (a `CustomJvp`
call), and the rule is traced when the call is differentiated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dtypes, tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.config import config
from stablax._src.interpreters import calls
from stablax._src.interpreters.ad import (
    instantiate,
    is_differentiable_dtype,
    stop_gradient,
    tangent_aval,
    zeros_like_aval,
)
from stablax._src.interpreters.custom_calls import (
    CustomFunction,
    PrimalCall,
    SymbolicZero,
    call_primal,
    check_no_closed_over_tangents,
    instantiate_symbolic,
    trace_callee,
)
from stablax._src.interpreters.interpret import interpret
from stablax._src.staging import copy_routed, is_flat, no_concrete_values


class custom_jvp(CustomFunction):  # noqa: N801 (JAX's public name)
    """A function with a user-defined JVP rule (`defjvp` or `defjvps`).

    Example:
      @custom_jvp
      def f(x): return jnp.sin(x)
      @f.defjvp
      def f_jvp(primals, tangents): (x,), (t,) = primals, tangents; return f(x), jnp.cos(x) * t
    """

    kind, rule, definer = "custom_jvp", "JVP", "defjvp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.jvp: Callable | None = None
        # Internal: run the rule when the call is differentiated, on tracers, rather than on the
        # call's values in the trace (rules that must know forward from reverse mode).
        self.rule_at_rewrite = False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
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

    def _has_rules(self) -> bool:
        return self.jvp is not None

    def _nondiff_arguments(self, nondiff: tuple) -> tuple:
        return _stop_traced_gradients(nondiff)

    def _traced_call(self, trace: core.FuncTrace, nondiff: tuple, leaves, in_tree) -> Any:
        if trace.differentiated and not (self.symbolic_zeros or self.rule_at_rewrite):
            try:
                return _call_jvp_rule(self, nondiff, leaves, in_tree, trace.differentiated - 1)
            except Exception:
                # JAX runs a rule only for arguments with nonzero tangents, and some rules
                # refuse to run at all (betainc's in a and b). Call the primal: the rewrite
                # runs the rule, and raises its error, only if a tangent reaches the call.
                pass
        return call_primal(self, nondiff, leaves, in_tree, CustomJvp)


def _stop_traced_gradients(nondiff: tuple) -> tuple:
    """Traced values among nondiff arguments, with their derivatives stopped (JAX's rule)."""
    return tree_util.tree_map(
        lambda x: stop_gradient(x) if isinstance(x, core.Tracer) else x, nondiff
    )


def _rule_tangents(custom, args, arg_tangents):
    """The tangents a user's jvp rule receives: zeros for None (SymbolicZeros if the rule asked
    for them), float0 zeros for integers."""
    symbolic = getattr(custom, "symbolic_zeros", False)
    out = []
    for a, t in zip(args, arg_tangents, strict=True):
        aval = aval_of(a)
        if not is_differentiable_dtype(aval.dtype):
            out.append(np.zeros(aval.shape, dtypes.float0))
        elif t is None and symbolic:
            out.append(SymbolicZero(tangent_aval(aval)))
        else:
            out.append(instantiate(t, tangent_aval(aval)))
    return out


def _apply_jvp_rule(custom, nondiff, in_tree, args, tangents):
    """Runs the user's rule; checks and flattens its (primal out, tangent out)."""
    primals_tree = tree_util.tree_unflatten(in_tree, list(args))
    tangents_tree = tree_util.tree_unflatten(in_tree, list(tangents))
    out, tangent_out = custom.jvp(*nondiff, tuple(primals_tree), tuple(tangents_tree))
    out_leaves, out_tree = tree_util.tree_flatten(out)
    t_leaves, t_tree = tree_util.tree_flatten(tangent_out)
    t_leaves = [instantiate_symbolic(t) for t in t_leaves]
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
    return out_leaves, t_leaves, out_tree


def _call_jvp_rule(custom, nondiff, leaves, in_tree, depth: int):
    """In a trace about to be differentiated: a call of the user's rule, traced once on the
    arguments and zero tangents; its primal outputs are the call's values (see JvpRuleCall).

    The rule is traced `depth` derivatives deep (one fewer than the call's trace): where an
    outer derivative is pending (`grad(grad(f))`), a call of `f` inside the rule runs the rule
    again, as the outer level of JAX's JVP trace runs it.
    """
    avals = [aval_of(x) for x in leaves]
    mask = [is_differentiable_dtype(a.dtype) for a in avals]
    zeros = [zeros_like_aval(tangent_aval(a)) for a, m in zip(avals, mask) if m]
    n = len(leaves)
    box: dict[str, Any] = {}

    def rule(*xs):
        slots = iter(xs[n:])
        tangents = [next(slots) if m else None for m in mask]
        tangents = _rule_tangents(custom, xs[:n], tangents)
        out_leaves, t_leaves, box["out_tree"] = _apply_jvp_rule(
            custom, nondiff, in_tree, xs[:n], tangents
        )
        box["out_mask"] = [is_differentiable_dtype(aval_of(o).dtype) for o in out_leaves]
        kept = [t for t, m in zip(t_leaves, box["out_mask"], strict=True) if m]
        return [*out_leaves, *kept]

    traced = trace_callee(rule, [*leaves, *zeros], concrete=True, differentiated=depth)
    num_out = len(box["out_mask"])
    payload = JvpRuleCall(n, mask, num_out, box["out_mask"])
    outs = calls.call_traced_closed(traced, [*leaves, *zeros], payload)
    return tree_util.tree_unflatten(box["out_tree"], outs[:num_out])


class CustomJvp(PrimalCall):
    """The payload of a custom_jvp call of the primal function: the user's rule, applied when
    the call is differentiated."""

    kind = "custom_jvp"

    def jvp(self, callee, primals, tangents):
        n = self.num_args
        closed_over = [t for j, t in enumerate(tangents[n:]) if j not in self.nondiff_slots]
        check_no_closed_over_tangents(closed_over, "custom_jvp", "JVP")
        args = primals[:n]
        rule_tangents = _rule_tangents(self.custom, args, tangents[:n])
        traced = self._traced_rule([*args, *rule_tangents])
        if traced is not None:  # the rule traced once, its ops re-emitted here
            rule, num_out, flat = traced
            operands = [*args, *rule_tangents]
            outs = copy_routed(rule, operands) if flat else interpret(rule, operands)
            return outs[:num_out], outs[num_out:]
        out_leaves, t_leaves, _ = _apply_jvp_rule(
            self.custom, self.nondiff_values(primals), self.in_tree, args, rule_tangents
        )
        return out_leaves, t_leaves

    def _traced_rule(self, operands: list[Any]) -> tuple[core.TracedFunction, int, bool] | None:
        # Under jit, the copies of a jitted function share this payload (softplus on 100 slices
        # of a batch calls logaddexp's rule 100 times): the rule is traced once per signature
        # for the outermost trace, as JAX traces a jitted function's JVP once. Not where values
        # may be concrete, nor for rules that see symbolic zeros, traced nondiff arguments or
        # the rewrite they run in, nor for rules vmap made (`custom` is then not a custom_jvp).
        custom = self.custom
        if (
            not isinstance(custom, custom_jvp)
            or custom.symbolic_zeros
            or custom.rule_at_rewrite
            or self.nondiff_slots
            or not all(isinstance(x, core.Tracer) for x in operands)
            or not no_concrete_values()
        ):
            return None
        key = ("custom_jvp rule", self, tuple(x.aval for x in operands), config.epoch)
        cache = core.trace_state.stack[0].inline_cache
        if key not in cache:
            cache[key] = self._trace_rule([x.aval for x in operands])
        return cache[key]

    def _trace_rule(self, avals: list[ShapedArray]) -> tuple[core.TracedFunction, int, bool] | None:
        n, box = self.num_args, {}

        def rule(*xs):
            out_leaves, t_leaves, _ = _apply_jvp_rule(
                self.custom, self.nondiff, self.in_tree, xs[:n], xs[n:]
            )
            box["num_out"] = len(out_leaves)
            outs = [*out_leaves, *t_leaves]
            if not all(isinstance(o, core.Tracer) for o in outs):
                raise TypeError("a rule output that is not traced")
            return outs

        try:
            traced = core.trace_to_func(rule, avals, name="custom_jvp_rule")
        except Exception:  # applied at each call instead, where its error surfaces as before
            return None
        return None if traced.captured else (traced, box["num_out"], is_flat(traced))


class JvpRuleCall:
    """The payload of a call of a custom_jvp rule, traced as (args, arg tangents) -> (outs,
    out tangents) and called with zero tangents. Differentiated, the rule is evaluated on the
    actual tangents, as JAX evaluates it: under linearize its primal part lands in the primal
    function and its tangent part, linear in the tangents, in the linear one."""

    kind = "custom_jvp_rule"

    def __init__(self, num_args: int, arg_mask, num_out: int, out_mask) -> None:
        self.num_args = num_args
        self.arg_mask = list(arg_mask)
        self.num_out = num_out
        self.out_mask = list(out_mask)

    def jvp(self, callee, primals, tangents):
        n, n_t = self.num_args, sum(self.arg_mask)
        check_no_closed_over_tangents(tangents[n + n_t :], "custom_jvp", "JVP")
        args = primals[:n]
        slots = [
            instantiate(t, tangent_aval(aval_of(a)))
            for a, t, m in zip(args, tangents[:n], self.arg_mask, strict=True)
            if m
        ]
        outs = interpret(callee, [*args, *slots, *primals[n + n_t :]])
        primal_outs, rule_tangents = outs[: self.num_out], iter(outs[self.num_out :])
        out_tangents = [next(rule_tangents) if m else None for m in self.out_mask]
        # The call's other results, the rule's tangents at zero tangents, are zeros.
        zeros = [zeros_like_aval(aval_of(t)) for t in outs[self.num_out :]]
        return [*primal_outs, *zeros], [*out_tangents, *([None] * len(zeros))]
