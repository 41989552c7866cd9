"""checkpoint (remat): a call whose body reverse mode recomputes instead of saving.

The body is a `func.call` (transforms/calls.py) carrying a `Remat` payload. Its jvp recomputes
the body inside the linear function from its inputs, so none of its intermediates become
residuals, except the values its policy (remat_policies.py) saves.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from stablax._src import core, tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters import calls, remat_policies
from stablax._src.interpreters.ad import jvp_traced
from stablax._src.interpreters.custom_calls import merge_args, split_args, trace_callee
from stablax._src.interpreters.interpret import eval_op, operand_values


class _Deprecated:
    """The default of JAX's removed `concrete` option: anything else passed raises."""

    def __repr__(self) -> str:
        return "Deprecated"


_DEPRECATED = _Deprecated()
_CONCRETE_REMOVED = (
    "The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2, and removed in JAX "
    "v0.10.0. In its place please use `static_argnums`; for details refer to "
    "https://docs.jax.dev/en/latest/jep/11830-new-remat-checkpoint.html."
)


def checkpoint(
    fun: Callable,
    *,
    prevent_cse: bool = True,
    policy: Any = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Iterable[str] = (),
    concrete: Any = _DEPRECATED,
) -> Callable:
    """Rematerialization: under reverse mode, recompute fun's intermediates instead of saving
    them (all of them by default; `policy=checkpoint_policies.dots_saveable` keeps matmuls).

    Arguments at `static_argnums` and keyword arguments named in `static_argnames` are Python
    values closed over rather than traced. `concrete` was removed from JAX: passing it raises
    NotImplementedError, as there.
    """
    if not isinstance(concrete, _Deprecated):
        raise NotImplementedError(_CONCRETE_REMOVED)
    if isinstance(policy, str):
        policy = remat_policies.LEGACY_NAMES.get(policy, policy)
    if policy is not None and not callable(policy):
        raise ValueError(
            f"checkpoint: unknown policy {policy!r}; use a checkpoint_policies attribute"
        )
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    static_names = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)

    @functools.wraps(fun, updated=())
    def remat_fun(*args: Any, **kwargs: Any) -> Any:
        if core.current_trace() is None:
            return fun(*args, **kwargs)
        nondiff, diff = split_args(args, static)
        static_kwargs = {k: v for k, v in kwargs.items() if k in static_names}
        traced_kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
        leaves, in_tree = tree_util.tree_flatten((diff, traced_kwargs))
        box: dict[str, Any] = {}

        def body(*xs):
            diff_xs, kwargs_xs = tree_util.tree_unflatten(in_tree, list(xs))
            out = fun(*merge_args(nondiff, diff_xs, static), **static_kwargs, **kwargs_xs)
            out_leaves, box["out_tree"] = tree_util.tree_flatten(out)
            return out_leaves

        # As in JAX, the body is traced abstractly: it is recomputed from its inputs.
        traced = trace_callee(body, leaves, concrete=False)
        outs = calls.call_traced_closed(traced, leaves, Remat(policy, len(leaves)))
        return tree_util.tree_unflatten(box["out_tree"], outs)

    return remat_fun


remat = checkpoint


class Remat:
    """The payload of a checkpointed call: the policy naming what the backward pass may save."""

    kind = "remat"

    def __init__(self, policy: Any, num_args: int) -> None:
        self.policy = policy
        self.num_args = num_args

    # Batched, a checkpoint stays a checkpoint with its policy, whatever it closes over.
    batches_closed_over = True

    def batched(self, arg_dims: Sequence[Any], axis_size: int) -> Remat:
        return self

    def jvp(self, callee, primals, tangents):
        # A checkpointed body is differentiated w.r.t. the values it closes over too.
        primal_trace = core.trace_state.target
        linear_trace = core.current_trace()
        if primal_trace is None or primal_trace is linear_trace:
            return jvp_traced(callee, primals, tangents)  # plain forward mode: nothing to save
        if self.policy is remat_policies.everything_saveable:
            return jvp_traced(callee, primals, tangents)  # as if not checkpointed
        if self.policy is not None and self.policy is not remat_policies.nothing_saveable:
            outs, saved = _saved_values(callee, primals, self.policy)  # the body inlined in K
        else:
            outs, saved = calls.call(callee, primals, self), {}  # the primal values, computed in K
        # Recompute the body inside L from its (lifted) inputs: its intermediates are not residuals.
        lifted = [
            linear_trace.lift(a, aval_of(a)) if isinstance(a, core.Tracer) else a for a in primals
        ]
        # Saved values enter L as residuals, so what is computed from them is recomputed in L.
        saved = {
            k: linear_trace.lift(v, aval_of(v)) if isinstance(v, core.Tracer) else v
            for k, v in saved.items()
        }
        with core.emitting_into(linear_trace):
            _, out_tangents = jvp_traced(callee, lifted, tangents, saved=saved)
        return outs, out_tangents


def _saved_values(callee, args, policy):
    """The body evaluated in K: (its outputs, {value the policy saves: its K value})."""
    arguments, ops, returned = callee.parts()
    env = dict(zip(arguments, args, strict=True))
    saved = {}
    for op in ops:
        outs = eval_op(op, [env[v] for v in operand_values(op)], callee.owner)
        for r, v in zip(op.results, outs, strict=True):
            env[r] = v
        if remat_policies.decide(policy, op, callee.owner) is not remat_policies.Recompute:
            for r in op.results:
                saved[r] = env[r]
    return [env[v] for v in returned], saved
