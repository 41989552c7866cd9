"""A jitted function called while tracing: its ops join the enclosing function.

Under abstract tracing (inside `jit`, including the rewrites' traces) a jitted function called
again with arguments of the same types is not traced again: its first trace, a function of its
own, is copied in op by op (MLIR clones, no Python), as JAX reuses a jitted function's jaxpr. A
model calling `nn.softplus` on 100 slices traces it once. The traces live on the outermost trace
and go with it. Where tracing may see concrete values (grad outside jit, vmap's trace of one
example), where the function closes over traced values, returns something not computed from its
arguments (a Python value, a constant), or fails, it is traced inline at every call, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax._src import bodies, core, tree_util
from stablax._src.config import config
from stablax._src.core import Tracer, trace_state
from stablax._src.dispatch import compile_time_eval

_UNCACHEABLE = object()


def inline_call(jitted: Any, fun: Callable, args: tuple, kwargs: dict) -> Any:
    """Calls jitted `fun` inside the current trace. As in JAX, it is staged on its own:
    custom_jvp/custom_vjp functions in it trace their primal functions even when the enclosing
    function is about to be differentiated."""
    out = _from_first_trace(jitted, args, kwargs)
    if out is not _UNCACHEABLE:
        return out
    trace = trace_state.stack[-1]
    if not trace.differentiated:
        return fun(*args, **kwargs)
    trace.differentiated = False
    try:
        return fun(*args, **kwargs)
    finally:
        trace.differentiated = True


def _from_first_trace(jitted: Any, args: tuple, kwargs: dict) -> Any:
    stack = trace_state.stack
    if trace_state.target is not None or trace_state.lowering is not None:
        return _UNCACHEABLE  # a rewrite's rule, or a lowering: trace as the caller does
    if compile_time_eval.active or not all(_abstract(t) for t in stack):
        return _UNCACHEABLE  # values may be concrete: Python control flow on them must work
    try:
        dyn_args, dyn_kwargs, static_key = jitted._split_static(args, kwargs)
        leaves, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple(x.aval if isinstance(x, Tracer) else jitted.argument_aval(x) for x in leaves)
        key = (jitted, in_tree, avals, static_key, config.epoch)
        cache = stack[0].inline_cache
        first = cache.get(key)
    except Exception:  # an unhashable static argument, a leaf that is not an array: as before
        return _UNCACHEABLE
    if first is None:
        first = cache[key] = _trace_once(jitted, args, kwargs, in_tree, avals)
    if first is _UNCACHEABLE:
        return _UNCACHEABLE
    traced, out_tree = first
    current = stack[-1]
    trace = core.operand_trace(leaves, current)
    tracers = [core.to_tracer(trace, x) for x in leaves]
    saved, trace_state.lowering = trace_state.lowering, trace
    try:
        if trace is current:
            values = bodies.inline(traced, [t.value for t in tracers])
        else:
            with trace.insertion_point():
                values = bodies.inline(traced, [t.value for t in tracers])
    finally:
        trace_state.lowering = saved
    outs = [Tracer(trace, a, v) for a, v in zip(traced.out_avals, values, strict=True)]
    return tree_util.tree_unflatten(out_tree, outs)


def _abstract(trace: core.FuncTrace) -> bool:
    """Whether no value in `trace` can be concrete: its inputs stand for no values, or for
    tracers of traces like it (grad inside jit), never for arrays (grad outside jit)."""
    sources = trace.sources
    return sources is None or all(isinstance(s, Tracer) and _abstract(s._trace) for s in sources)


class _NotComputedError(Exception):
    pass


def _trace_once(jitted: Any, args: tuple, kwargs: dict, in_tree: Any, avals: tuple) -> Any:
    flat, out_tree_box = jitted._flat_fun(args, kwargs, in_tree)

    def checked(*tracers):
        outs = flat(*tracers)
        if not all(isinstance(o, Tracer) for o in outs):  # Python values stay Python values
            raise _NotComputedError
        return outs

    try:
        traced = core.trace_to_func(checked, list(avals), name="inlined")
    except Exception:  # traced inline instead, where the user's error surfaces as it would
        return _UNCACHEABLE
    if traced.captured:
        return _UNCACHEABLE
    return traced, out_tree_box[0]
