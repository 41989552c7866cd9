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

from stablax._src import core, tree_util
from stablax._src.config import config
from stablax._src.core import Tracer, trace_state
from stablax._src.staging import all_abstract, copy_in

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
    # Not in a rewrite's rule or a lowering (trace as the caller does), nor where values may be
    # concrete (Python control flow on them must work).
    if not all_abstract():
        return _UNCACHEABLE
    try:
        dyn_args, dyn_kwargs, static_key = jitted._split_static(args, kwargs)
        leaves, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple(x.aval if isinstance(x, Tracer) else jitted.argument_aval(x) for x in leaves)
        key = (jitted, in_tree, avals, static_key, config.epoch)
        cache = trace_state.stack[0].inline_cache
        first = cache.get(key)
    except Exception:  # an unhashable static argument, a leaf that is not an array: as before
        return _UNCACHEABLE
    if first is None:
        first = cache[key] = _trace_once(jitted, args, kwargs, in_tree, avals)
    if first is _UNCACHEABLE:
        return _UNCACHEABLE
    traced, out_tree = first
    return tree_util.tree_unflatten(out_tree, copy_in(traced, leaves))


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
