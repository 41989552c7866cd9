"""custom_jvp and custom_vjp: user-supplied derivative rules.

Each is a `func.call` (transforms/calls.py) whose callee carries a rule object from this file
as its payload. In a trace that autodiff is about to rewrite (`FuncTrace.differentiated`, set by
grad/jvp/vjp), a custom_jvp function traces its jvp rule and a custom_vjp function its fwd, as
JAX's JVP trace does: the user's functions run once each, on concrete values outside jit.
Elsewhere (jit, vmap, loop bodies) the primal function is traced, and the rule is traced when
the call is differentiated. custom_vjp's tangent is a marker op whose transpose runs bwd.
checkpoint.py and custom_gradient.py build on the helpers here.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dispatch, dtypes, op_rules, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.bodies import PAYLOAD_ATTRIBUTE
from stablax._src.concrete import evaluate_prefix
from stablax._src.config import config
from stablax._src.ir import ir
from stablax._src.transforms import calls
from stablax._src.transforms.ad import (
    aval_of,
    instantiate,
    is_differentiable_dtype,
    tangent_aval,
    zeros_like_aval,
)
from stablax._src.transforms.interpret import (
    copy_routed,
    interpret,
    is_flat,
    no_concrete_values,
)

_CLOSED_OVER_MESSAGE = (
    "Detected differentiation of a {kind} function with respect to a closed-over value. That "
    "isn't supported because the custom {rule} rule only specifies how to differentiate the "
    "{kind} function with respect to explicit input parameters. Pass the value as an argument "
    "instead (or use stablax.closure_convert)."
)


def split_args(args: Sequence[Any], nondiff_argnums: Sequence[int]):
    nondiff = tuple(args[i] for i in nondiff_argnums)
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, diff


def merge_args(nondiff: Sequence[Any], diff: Sequence[Any], nondiff_argnums: Sequence[int]):
    out, nd, d = [], iter(nondiff), iter(diff)
    for i in range(len(nondiff) + len(diff)):
        out.append(next(nd) if i in nondiff_argnums else next(d))
    return out


def _bind_kwargs(fun: Callable, args: tuple, kwargs: dict) -> tuple:
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


def _check_no_closed_over_tangents(tangents: Sequence[Any], kind: str, rule: str) -> None:
    if any(t is not None for t in tangents):
        raise TypeError(_CLOSED_OVER_MESSAGE.format(kind=kind, rule=rule))


def trace_callee(fun: Callable, leaves: Sequence[Any], concrete: bool) -> core.TracedFunction:
    """Traces `fun` (flat in, flat out) as a callee. With `concrete`, its inputs stand for the
    call's operands, so Python control flow on values works wherever those are known."""
    avals = [aval_of(x) for x in leaves]
    if not concrete:
        return core.trace_to_func(fun, avals)
    return core.trace_to_func(fun, avals, sources=list(leaves), evaluate=evaluate_prefix)


class SymbolicZero:
    """A zero tangent or cotangent, by its aval: what rules defined with `symbolic_zeros=True`
    receive (and may return) instead of an array of zeros."""

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)

    def instantiate(self) -> Any:
        return zeros_like_aval(self.aval)

    @staticmethod
    def from_primal_value(value: Any) -> SymbolicZero:
        return SymbolicZero(tangent_aval(aval_of(value)))

    def __repr__(self) -> str:
        return "SymbolicZero"


def zero_from_primal(val: Any, symbolic_zeros: bool = False) -> Any:
    """Zero tangents for `val`, a pytree of primal values (SymbolicZeros with `symbolic_zeros`)."""

    def zero(x):
        aval = tangent_aval(aval_of(x))
        return SymbolicZero(aval) if symbolic_zeros else zeros_like_aval(aval)

    return tree_util.tree_map(zero, val)


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


def _instantiate_symbolic(x: Any) -> Any:
    return x.instantiate() if type(x) is SymbolicZero else x


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


# --- custom_jvp --------------------------------------------------------------------------------


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
        self.symbolic_zeros = False
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
        trace = core.current_trace()
        if trace is None:
            return self.fun(*args)
        nondiff, diff = split_args(args, self.nondiff_argnums)
        nondiff = _stop_traced_gradients(nondiff)
        leaves, in_tree = tree_util.tree_flatten(diff)
        if trace.differentiated and not (self.symbolic_zeros or self.rule_at_rewrite):
            try:
                return _call_jvp_rule(self, nondiff, leaves, in_tree)
            except Exception:
                # JAX runs a rule only for arguments with nonzero tangents, and some rules
                # refuse to run at all (betainc's in a and b). Call the primal: the rewrite
                # runs the rule, and raises its error, only if a tangent reaches the call.
                pass
        return _call_primal(self, nondiff, leaves, in_tree, CustomJvp)


def _stop_traced_gradients(nondiff: tuple) -> tuple:
    """Traced values among nondiff arguments, with their derivatives stopped (JAX's rule)."""
    from stablax._src.lax._custom import stop_gradient

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
    t_leaves = [_instantiate_symbolic(t) for t in t_leaves]
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


def _call_jvp_rule(custom, nondiff, leaves, in_tree):
    """In a trace about to be differentiated: a call of the user's rule, traced once on the
    arguments and zero tangents; its primal outputs are the call's values (see JvpRuleCall)."""
    from stablax._src import lax

    avals = [aval_of(x) for x in leaves]
    mask = [is_differentiable_dtype(a.dtype) for a in avals]
    zeros = [lax.full(a.shape, 0, tangent_aval(a).dtype) for a, m in zip(avals, mask) if m]
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

    traced = trace_callee(rule, [*leaves, *zeros], concrete=True)
    num_out = len(box["out_mask"])
    payload = JvpRuleCall(n, mask, num_out, box["out_mask"])
    outs = calls.call_traced_closed(traced, [*leaves, *zeros], payload)
    return tree_util.tree_unflatten(box["out_tree"], outs[:num_out])


class _PrimalCall:
    """The payload of a call of a custom function's primal: the user's object and the call's
    static part (nondiff arguments, argument and output structures, number of argument leaves;
    the callee's further inputs are values it closed over)."""

    kind = ""

    def __init__(self, custom: Any, nondiff: tuple, in_tree: Any, out_tree: Any, num_args: int):
        self.custom = custom
        self.nondiff = nondiff
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.num_args = num_args
        self.nondiff_slots: list[int] = []  # captured operand of each traced nondiff leaf

    def nondiff_values(self, primals: Sequence[Any]) -> tuple:
        """The nondiff arguments, their traced leaves taken from this call's operands."""
        if not self.nondiff_slots:
            return self.nondiff
        from stablax._src.lax._custom import stop_gradient

        slots = iter(self.nondiff_slots)
        leaves, tree = tree_util.tree_flatten(self.nondiff)
        leaves = [
            stop_gradient(primals[self.num_args + next(slots)]) if isinstance(x, core.Tracer) else x
            for x in leaves
        ]
        return tuple(tree_util.tree_unflatten(tree, leaves))


def _call_primal(custom, nondiff, leaves, in_tree, payload_type) -> Any:
    """Traces the primal function of `custom` as a callee and calls it with `payload_type`.

    Traced values among the nondiff arguments are values the callee reads: they become operands
    of the call, and the rule sees their values there, with a stopped gradient, as in JAX."""
    box: dict[str, Any] = {}
    traced_nondiff = [x for x in tree_util.tree_leaves(nondiff) if isinstance(x, core.Tracer)]

    def primal(*xs):
        for x in traced_nondiff:  # read them in the callee, so that they are its operands
            core.to_tracer(core.current_trace(), x)
        diff_args = tree_util.tree_unflatten(in_tree, list(xs))
        out = custom.fun(*merge_args(nondiff, diff_args, custom.nondiff_argnums))
        out_leaves, box["out_tree"] = tree_util.tree_flatten(out)
        return out_leaves

    traced = trace_callee(primal, leaves, concrete=True)
    payload = payload_type(custom, nondiff, in_tree, box["out_tree"], len(leaves))
    if traced_nondiff:
        payload.nondiff_slots = [
            next(j for j, c in enumerate(traced.captured) if c is x) for x in traced_nondiff
        ]
    outs = calls.call_traced_closed(traced, leaves, payload)
    return tree_util.tree_unflatten(box["out_tree"], outs)


class CustomJvp(_PrimalCall):
    """The payload of a custom_jvp call of the primal function: the user's rule, applied when
    the call is differentiated."""

    kind = "custom_jvp"

    def jvp(self, callee, primals, tangents):
        n = self.num_args
        closed_over = [t for j, t in enumerate(tangents[n:]) if j not in self.nondiff_slots]
        _check_no_closed_over_tangents(closed_over, "custom_jvp", "JVP")
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
        _check_no_closed_over_tangents(tangents[n + n_t :], "custom_jvp", "JVP")
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


# --- custom_vjp --------------------------------------------------------------------------------


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
        self.symbolic_zeros = False

    def defvjp(
        self,
        fwd: Callable,
        bwd: Callable,
        symbolic_zeros: bool = False,
        optimize_remat: bool = False,
    ) -> None:
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros = symbolic_zeros

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
        trace = core.current_trace()
        if trace is None:
            return self.fun(*args)
        nondiff, diff = split_args(args, self.nondiff_argnums)
        _check_for_tracers(nondiff)
        leaves, in_tree = tree_util.tree_flatten(diff)
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
        return _call_primal(self, nondiff, leaves, in_tree, CustomVjp)


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

    def with_rules(self, custom, nondiff, arg_avals, out_avals, res_tree=None) -> VjpLin:
        new = object.__new__(VjpLin)
        new.__dict__.update(self.__dict__)
        new.custom, new.nondiff = custom, nondiff
        new.arg_avals, new.out_avals = list(arg_avals), list(out_avals)
        if res_tree is not None:
            new.res_tree, new.num_res = res_tree, res_tree.num_leaves
        return new

    def linear(self, tangents: Sequence[Any], residuals: Sequence[Any]) -> list[Any]:
        """The marker standing for the output tangents: bwd transposes it."""
        live = [
            instantiate(t, tangent_aval(a))
            for a, t in zip(self.arg_avals, tangents, strict=True)
            if is_differentiable_dtype(a.dtype)
        ]
        return list(dispatch.bind(VJP_LIN, *live, *residuals, info=self))


class CustomVjp(_PrimalCall):
    """The payload of a custom_vjp call of the primal function: when differentiated, fwd runs in
    place of the call and the tangents are a marker that bwd transposes."""

    kind = "custom_vjp"

    def jvp(self, callee, primals, tangents):
        n = self.num_args
        _check_no_closed_over_tangents(tangents[n:], "custom_vjp", "VJP")
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
        _check_no_closed_over_tangents(tangents[n:], "custom_vjp", "VJP")
        outs = calls.call(callee, primals)
        num_out = len(outs) - self.info.num_res
        out_tangents = self.info.linear(tangents[:n], outs[num_out:])
        return outs, [*out_tangents, *([None] * self.info.num_res)]


# --- custom_vjp's linear marker ----------------------------------------------------------------

VJP_LIN = "stablehlo.custom_call:stablax.custom_vjp_lin"


def _vjp_lin_rule(*avals: ShapedArray, info: VjpLin) -> tuple[ShapedArray, ...]:
    return tuple(tangent_aval(a) for a in info.out_avals)


def _vjp_lin_lowering(operands, in_avals, out_avals, *, info):
    key = core.lowering_trace().add_payload("custom_vjp_lin", info)
    op = mlir.emit(
        "stablehlo.custom_call",
        operands,
        [mlir.aval_type(a) for a in out_avals],
        {
            "call_target_name": ir.StringAttr.get("stablax.custom_vjp_lin"),
            "has_side_effect": ir.BoolAttr.get(False),
            PAYLOAD_ATTRIBUTE: ir.StringAttr.get(key),
        },
    )
    return list(op.results)


def _decode_vjp_lin(op: Any, owner: Any) -> dict[str, Any]:
    return {"info": owner.payloads[ir.StringAttr(op.attributes[PAYLOAD_ATTRIBUTE]).value]}


def _vjp_lin_transpose(ct, *operands, info: VjpLin):
    num_tangents = len(operands) - info.num_res
    residuals = tree_util.tree_unflatten(info.res_tree, list(operands[num_tangents:]))
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
    return [*kept, *([None] * info.num_res)]


def _refuse_forward_mode(op: Any) -> None:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


op_rules.def_op(
    VJP_LIN,
    _vjp_lin_rule,
    _vjp_lin_lowering,
    decode=_decode_vjp_lin,
    decode_reads_owner=True,
    cache_eagerly=False,
    transpose=_vjp_lin_transpose,
    expand=_refuse_forward_mode,
)


__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "custom_jvp",
    "custom_vjp",
    "custom_vjp_primal_tree_values",
    "zero_from_primal",
]
