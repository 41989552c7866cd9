"""What custom_jvp and custom_vjp calls share: splitting their arguments, symbolic zeros, the
payload of a call of their primal function, and their rules under vmap.

Each custom function is a `func.call` (calls.py) whose callee carries a rule object as its
payload, so the module holds everything the rewrites need (custom_jvp.py, custom_vjp.py).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, dispatch, tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.concrete import evaluate_prefix
from stablax._src.interpreters import calls
from stablax._src.interpreters.ad import stop_gradient, tangent_aval, zeros_like_aval

CLOSED_OVER_MESSAGE = (
    "Detected differentiation of a {kind} function with respect to a closed-over value. That "
    "isn't supported because the custom {rule} rule only specifies how to differentiate the "
    "{kind} function with respect to explicit input parameters. Pass the value as an argument "
    "instead (or use stablax.closure_convert)."
)


class CustomFunction:
    """What custom_jvp and custom_vjp share: the wrapped function, its nondiff_argnums, method
    binding, and a call that runs `fun` on concrete values and otherwise hands the traced call
    its flattened differentiable arguments (`_traced_call`)."""

    kind = ""  # "custom_jvp"
    rule = ""  # "JVP", as JAX's error names it
    definer = ""  # "defjvp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.symbolic_zeros = False

    def _has_rules(self) -> bool:
        raise NotImplementedError

    def _nondiff_arguments(self, nondiff: tuple) -> tuple:
        return nondiff

    def _traced_call(self, trace: core.FuncTrace, nondiff: tuple, leaves, in_tree) -> Any:
        raise NotImplementedError

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return self if instance is None else functools.partial(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._has_rules():
            raise AttributeError(
                f"No {self.rule} defined for {self.kind} function "
                f"{getattr(self.fun, '__name__', '?')} using {self.definer}."
            )
        if kwargs:
            args = bind_kwargs(self.fun, args, kwargs)
        trace = core.current_trace()
        if trace is None:
            return self.fun(*args)
        nondiff, diff = split_args(args, self.nondiff_argnums)
        nondiff = self._nondiff_arguments(nondiff)
        leaves, in_tree = tree_util.tree_flatten(diff)
        return self._traced_call(trace, nondiff, leaves, in_tree)


def split_args(args: Sequence[Any], nondiff_argnums: Sequence[int]):
    nondiff = tuple(args[i] for i in nondiff_argnums)
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, diff


def merge_args(nondiff: Sequence[Any], diff: Sequence[Any], nondiff_argnums: Sequence[int]):
    out, nd, d = [], iter(nondiff), iter(diff)
    for i in range(len(nondiff) + len(diff)):
        out.append(next(nd) if i in nondiff_argnums else next(d))
    return out


def bind_kwargs(fun: Callable, args: tuple, kwargs: dict) -> tuple:
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


def check_no_closed_over_tangents(tangents: Sequence[Any], kind: str, rule: str) -> None:
    if any(t is not None for t in tangents):
        raise TypeError(CLOSED_OVER_MESSAGE.format(kind=kind, rule=rule))


def trace_callee(
    fun: Callable, leaves: Sequence[Any], concrete: bool, differentiated: int = 0
) -> core.TracedFunction:
    """Traces `fun` (flat in, flat out) as a callee. With `concrete`, its inputs stand for the
    call's operands, so Python control flow on values works wherever those are known;
    `differentiated` is the number of derivatives still to be taken of it (see FuncTrace)."""
    avals = [aval_of(x) for x in leaves]
    if not concrete:
        return core.trace_to_func(fun, avals, differentiated=differentiated)
    return core.trace_to_func(
        fun, avals, sources=list(leaves), differentiated=differentiated, evaluate=evaluate_prefix
    )


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


def instantiate_symbolic(x: Any) -> Any:
    return x.instantiate() if type(x) is SymbolicZero else x


class PrimalCall:
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

    # A batched call: the user's rules under vmap (custom functions take no batched closure).
    batches_closed_over = False

    def batched(self, arg_dims: Sequence[int | None], axis_size: int) -> PrimalCall:
        custom = VmappedRules(self.custom, self.nondiff, self.in_tree, arg_dims, axis_size)
        return type(self)(custom, (), self.in_tree, self.out_tree, self.num_args)

    def nondiff_values(self, primals: Sequence[Any]) -> tuple:
        """The nondiff arguments, their traced leaves taken from this call's operands."""
        if not self.nondiff_slots:
            return self.nondiff
        slots = iter(self.nondiff_slots)
        leaves, tree = tree_util.tree_flatten(self.nondiff)
        leaves = [
            stop_gradient(primals[self.num_args + next(slots)]) if isinstance(x, core.Tracer) else x
            for x in leaves
        ]
        return tuple(tree_util.tree_unflatten(tree, leaves))


def call_primal(custom, nondiff, leaves, in_tree, payload_type) -> Any:
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


# --- rules under vmap ---------------------------------------------------------------------


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
                c if c is None or d is not None else _sum_batch(c)
                for c, d in zip(leaves, arg_dims, strict=True)
            ]
            out.append(tree_util.tree_unflatten(tree, summed))
        return tuple(out)


def _sum_batch(x: Any) -> Any:
    dtype = aval_of(x).dtype
    zero = dispatch.weak_scalar(0, dtype, weak_type=False)
    return dispatch.bind("stablehlo.reduce", x, zero, computation="add", axes=(0,))
