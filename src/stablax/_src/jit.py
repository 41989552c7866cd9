"""`jit`: trace a Python function of pytrees to StableHLO once per signature, then just execute.

The cache key is (tree structure, avals with weak types, static argument values, config epoch).
A hit builds the key, looks it up and calls the executable: no tracing, no MLIR. Under an active
trace a jitted function is inlined into the enclosing function.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import (
    caches,
    core,
    jit_explain,
    jit_hit_keys,
    pytree_fast,
    runtime,
    transfer_guard,
    tree_util,
)
from stablax._src import ir as mlir
from stablax._src.array import Array, raise_if_deleted
from stablax._src.avals import ShapedArray
from stablax._src.config import config
from stablax._src.core import trace_state
from stablax._src.dispatch import compile_traced, to_array
from stablax._src.jaxpr_view import ClosedJaxpr
from stablax._src.jit_arguments import (
    SCALAR_TYPES,
    as_tuple,
    check_argnums,
    check_python_ints,
    donated_leaf_indices,
    keywords_by_position,
    leaf_aval,
    leaf_buffer,
    positional_names,
    resolve_static,
    signature_or_none,
)
from stablax._src.jit_inline import inline_call
from stablax._src.jit_stages import Entry, Lowered, run, wrap_outputs
from stablax._src.nan_checks import checked_kinds
from stablax._src.nan_locator import CheckedProgram
from stablax._src.shape_dtype_struct import ShapeDtypeStruct
from stablax._src.traceback_util import api_boundary
from stablax._src.traced import Traced


class Jitted:
    """The callable `jit(f)` returns."""

    argument_aval = staticmethod(leaf_aval)  # for jit_inline.py

    def __init__(
        self,
        fun: Callable,
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
        donate_argnums: Sequence[int] = (),
        inline: bool = False,
        keep_unused: bool = False,
    ) -> None:
        self.fun = fun
        self.keep_unused = keep_unused
        self._signature = signature_or_none(fun)
        check_argnums(self._signature, as_tuple(static_argnums), "static_argnums")
        static_argnums, static_argnames = resolve_static(
            self._signature, static_argnums, static_argnames
        )
        self.static_argnums = frozenset(static_argnums)
        self.static_argnames = frozenset(static_argnames)
        self.donate_argnums = frozenset(donate_argnums)
        check_argnums(self._signature, self.donate_argnums, "donate_argnums")
        self.inline = inline
        # Keyword arguments a hit may pass by position (a donated one keeps the general path).
        self.positional_names = None if donate_argnums else positional_names(fun)
        options = (self.static_argnums, self.static_argnames, self.donate_argnums, keep_unused)
        self._cache = _trace_cache(fun, options)
        self._hits: dict[tuple[ShapedArray, ...], Entry] = {}  # one or two Arrays
        self._mixed_hits: dict[tuple, Entry] = {}  # other arities, or Python scalars
        self._tree_hits: dict[tuple, Entry] = {}  # pytree arguments, by C++ treedef and avals
        self._dict_hits: dict[tuple, tuple] = {}  # Arrays, scalars, dicts of them (jit_hit_keys)
        _live_jitted.add(self)
        self.fast_call = _make_fast_call(self)
        functools.update_wrapper(self, fun, updated=())

    # --- the call path -------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fast_call(*args, **kwargs)

    def _call_general(self, args: tuple, kwargs: dict) -> Any:
        dyn_args, dyn_kwargs, static_key = self._split_static(args, kwargs)
        leaves, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
        # One pass: each leaf's aval, and an Array's buffer; other leaves are converted after
        # the lookup (and any trace and compile), by their positions in `others`.
        avals: list = []
        buffers, others = jit_hit_keys.leaves_signature(avals, leaves, leaf_aval)
        avals = tuple(avals)
        key = (in_tree, avals, static_key, config.epoch)
        try:
            entry = self._cache.get(key)
        except TypeError:
            raise ValueError(
                f"jit: static arguments must be hashable (non-array values), got {static_key!r}"
            ) from None
        if entry is None:  # the miss traces with this call's treedef and avals
            if config.jax_explain_cache_misses or config.jax_log_compiles:
                entry = self._compile_explained(key, args, kwargs)
            else:
                entry = self._compile(args, kwargs, in_tree, avals)
            self._cache[key] = entry
        if config.jax_no_execution:  # before the hit tables learn this call
            raise RuntimeError(
                f"stablax tried to execute function {entry.name}, but the no_execution config "
                "option is set"
            )
        if not kwargs:
            self._remember_hit(args, entry, leaves)
        for i in others:
            buffers[i] = leaf_buffer(buffers[i], avals[i])
        return run(entry, buffers, leaves)

    def _remember_hit(self, args: tuple, entry: Entry, leaves: list) -> None:
        """Files `entry` in a hit table if `call` can find it again from `args` alone (a program
        that calls back into Python, or checks for NaNs, always runs through `run`)."""
        if entry.executable.effects or entry.checking is not None:
            return
        statics = self.static_argnums
        if not all(type(a) in _HIT_TYPES for i, a in enumerate(args) if i not in statics):
            if not statics:
                self._remember_tree_hit(args, entry, leaves)
            return
        arrays_only = all(type(a) is Array for a in args) and len(args) <= min(statics, default=2)
        table = self._hits if arrays_only and len(args) in (1, 2) else self._mixed_hits
        table[_hit_key(args, statics)] = entry

    def _remember_tree_hit(self, args: tuple, entry: Entry, leaves: list) -> None:
        # Pytree arguments: keyed by the C++ treedef and the leaves' avals (a scalar's type),
        # filed only where jaxlib's registry and stablax's agree on this call (pytree_fast).
        if not all(type(x) in _HIT_TYPES for x in leaves):
            return
        pytree_fast.sync()
        fast_leaves, tree = pytree_fast.flatten(args)
        if not pytree_fast.same_leaves(fast_leaves, leaves):
            return
        if not entry.single and entry.out_fast is None:
            entry.out_fast = pytree_fast.output_treedef(entry.out_tree)
            if entry.out_fast is None:
                return
            entry.tree_plain = not entry.donated
        key = [tree]
        jit_hit_keys.leaves_signature(key, leaves)
        self._tree_hits[tuple(key)] = entry
        jit_hit_keys.remember(self._dict_hits, args, entry)

    def _split_static(self, args: tuple, kwargs: dict):
        if self.static_argnums:
            # Static positions past the call's arguments take their defaults.
            dyn_args = tuple(a for i, a in enumerate(args) if i not in self.static_argnums)
            static = tuple((i, args[i]) for i in sorted(self.static_argnums) if i < len(args))
        else:
            dyn_args, static = args, ()
        if kwargs and self.static_argnames:
            dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
            static += tuple(sorted((k, v) for k, v in kwargs.items() if k in self.static_argnames))
        else:
            dyn_kwargs = kwargs
        return dyn_args, dyn_kwargs, static

    # --- tracing and compiling -----------------------------------------------------------------

    def _flat_fun(self, args: tuple, kwargs: dict, in_tree: Any):
        """A function of flat tracers for `trace_to_func`, re-inserting the static arguments."""
        out_tree_box: list[Any] = []

        def flat(*tracers):
            dyn_args, dyn_kwargs = tree_util.tree_unflatten(in_tree, list(tracers))
            full_args = list(dyn_args)
            for i in sorted(self.static_argnums):
                if i < len(args):
                    full_args.insert(i, args[i])
            full_kwargs = dict(dyn_kwargs)
            full_kwargs.update({k: v for k, v in kwargs.items() if k in self.static_argnames})
            out = self.fun(*full_args, **full_kwargs)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            out_tree_box.append(out_tree)
            return out_leaves

        return flat, out_tree_box

    def _trace(
        self, args: tuple, kwargs: dict, in_tree: Any = None, avals: Sequence[ShapedArray] = ()
    ) -> tuple[core.TracedFunction, Any, Any, list[int]]:
        """Traces `fun` for a call: (traced function, out treedef, in treedef, donated leaves).

        A miss passes the treedef and avals `_call_general` computed; `trace`, `lower` and
        `eval_shape` pass none, and the call is flattened here, after the checks.
        """
        if config.jax_no_tracing:
            raise RuntimeError(
                f"re-tracing function {getattr(self.fun, '__name__', self.fun)} for `jit`, but "
                "'no_tracing' is set"
            )
        if not trace_state.stack:
            mlir.start_top_level_trace()
        if in_tree is None:
            dyn_args, dyn_kwargs, _ = self._split_static(args, kwargs)
            leaves, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
            avals = [leaf_aval(x) for x in leaves]
        flat, out_tree_box = self._flat_fun(args, kwargs, in_tree)
        donated = donated_leaf_indices(args, in_tree, self.static_argnums, self.donate_argnums)
        traced = core.trace_to_func(flat, list(avals), name="main", donated=donated)
        return traced, out_tree_box[0], in_tree, donated

    def _compile(self, args: tuple, kwargs: dict, in_tree: Any, avals: tuple) -> Entry:
        traced, out_tree, _, donated = self._trace(args, kwargs, in_tree, avals)
        return self._make_entry(traced, out_tree, donated)

    def _compile_explained(self, key: tuple, args: tuple, kwargs: dict) -> Entry:
        # jax_explain_cache_misses / jax_log_compiles: say why this call traces (and compiles).
        reason = jit_explain.explain(self, key, args, kwargs)
        if config.jax_explain_cache_misses:
            runtime.logger.warning(jit_explain.cache_miss_message(self, reason))
        name = f"jit({jit_explain.where_defined(self.fun)})"
        in_tree, avals, _, _ = key
        with runtime.compile_note(name, reason):
            return self._compile(args, kwargs, in_tree, avals)

    def _make_entry(self, traced: core.TracedFunction, out_tree: Any, donated) -> Entry:
        # A checked program keeps every input: the tested copy that finds a NaN runs on them all.
        keep = self.keep_unused or bool(checked_kinds())
        executable, kept = compile_traced(traced, keep_unused=keep)
        captured = [to_array(c)._buf for c in traced.captured]
        single = out_tree == _SINGLE_LEAF_TREE
        entry = Entry(
            executable,
            out_tree,
            tuple(traced.out_avals),
            single,
            captured,
            tuple(donated),
            list(traced.in_avals),
            kept,
        )
        entry.name = f"jit({getattr(self.fun, '__name__', 'fun')})"
        if checked_kinds():  # errors name the user's jitted functions, not stablax's own
            internal = getattr(self.fun, "__module__", None) or ""
            shown = None if internal.startswith("stablax.") else entry.name
            entry.checking = CheckedProgram(shown, traced)
        return entry

    # --- staging API ---------------------------------------------------------------------------

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        return self.trace(*args, **kwargs).lower()

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """The `Traced` stage: `fun` traced for these arguments (`.lower()`, `.jaxpr`, ...)."""
        traced, out_tree, in_tree, donated = self._trace(args, kwargs)
        return Traced(
            traced,
            getattr(self.fun, "__name__", "fun"),
            in_tree,
            out_tree,
            donated,
            lambda: Lowered(self, traced, out_tree, donated, in_tree),
            lambda: ClosedJaxpr(None, traced=traced),
        )

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        dyn_args, dyn_kwargs, _ = self._split_static(args, kwargs)
        leaves, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
        # Only avals are needed: a tracer of any enclosing transformation (jit, grad, vmap, a
        # loop body) stands for its own, as JAX's eval_shape takes it.
        avals = [x.aval if isinstance(x, core.Tracer) else leaf_aval(x) for x in leaves]
        traced, out_tree, _, _ = self._trace(args, kwargs, in_tree, avals)
        structs = [
            ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in traced.out_avals
        ]
        return tree_util.tree_unflatten(out_tree, structs)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._hits.clear()
        self._mixed_hits.clear()
        self._tree_hits.clear()
        self._dict_hits.clear()

    def _cache_size(self) -> int:
        return len(self._cache)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        # Jitted methods bind like functions.
        if instance is None:
            return self
        return functools.partial(self, instance)

    def __repr__(self) -> str:
        return f"<jitted function {getattr(self.fun, '__name__', repr(self.fun))}>"


_HIT_TYPES = frozenset({Array, *SCALAR_TYPES, type(None)})


def _hit_key(args: tuple, statics: frozenset[int]) -> tuple:
    """A static argument keys by value, an Array by aval, a Python scalar or None by type."""
    return tuple(
        [a if i in statics else a.aval if type(a) is Array else type(a) for i, a in enumerate(args)]
    )


# The device buffers of the Python scalar objects hits met last, by identity: a float object
# never changes and the entry keeps it alive, so its id names it while it is here, and a hit
# skips `to_array`'s value key (300 ns). Filled only while no transfer guard is set (each
# guarded scalar is checked); emptied with the hit tables on every flag change, and by
# `clear_caches`, which empties the scalar arrays these buffers belong to.
_scalar_buffers: dict[int, tuple[Any, runtime.Buffer]] = {}
_SCALAR_BUFFERS_LIMIT = 64
caches.on_clear(_scalar_buffers.clear)


def _scalar_buffer(x: Any) -> runtime.Buffer:
    """The device buffer of Python scalar `x`, an argument of a jit hit."""
    known = _scalar_buffers.get(id(x))
    if known is not None and known[0] is x:
        return known[1]
    buf = to_array(x)._buf
    if not transfer_guard.active["host_to_device"]:
        if len(_scalar_buffers) >= _SCALAR_BUFFERS_LIMIT:
            _scalar_buffers.clear()
        _scalar_buffers[id(x)] = (x, buf)
    return buf


# Every Jitted, so that a flag change can empty their hit tables (keyed by avals alone).
_live_jitted: weakref.WeakSet[Jitted] = weakref.WeakSet()


def _clear_hit_tables() -> None:
    for jitted in list(_live_jitted):
        jitted._hits.clear()
        jitted._mixed_hits.clear()
        jitted._tree_hits.clear()
        jitted._dict_hits.clear()
    _scalar_buffers.clear()


config.on_change(_clear_hit_tables)

# The compiled signatures of each function, shared by every `jit` of it with the same options
# (as in JAX, a second `jit(f)` does not retrace). Keyed weakly by the function; an eviction
# empties the hit tables, which only ever point into these caches.
_trace_caches: weakref.WeakKeyDictionary[Any, dict[tuple, caches.LRUCache]] = (
    weakref.WeakKeyDictionary()
)


def _trace_cache(fun: Callable, options: tuple) -> caches.LRUCache:
    try:
        per_function = _trace_caches.get(fun)
        if per_function is None:
            per_function = _trace_caches[fun] = {}
    except TypeError:  # not weakly referenceable or not hashable: a cache of its own
        return caches.LRUCache("stablax_jit_cache_size", on_evict=_clear_hit_tables)
    cache = per_function.get(options)
    if cache is None:
        cache = per_function[options] = caches.LRUCache(
            "stablax_jit_cache_size", on_evict=_clear_hit_tables
        )
    return cache


def _make_fast_call(jitted: Jitted) -> Callable:
    """The function `jit` returns: a closure, so a cache hit costs no attribute lookups on self.

    Positional calls look up `hits` (one or two Arrays) or `mixed` (the rest, looked up only
    when it is not empty): tables keyed by the arguments' interned avals, a Python scalar or
    None by its type (which with the flags fixes its aval), a static argument by its value.
    `_call_general` fills them only while no trace is active and jit is enabled, and any flag
    change empties them, so a hit reads neither the config epoch nor `jax_disable_jit`. The
    common arities are unpacked by hand: a comprehension costs 250 ns where unpacking two
    arguments costs 50. Arguments that are Arrays, scalars and plain dicts of them look up
    `dicts` first (jit_hit_keys: keyed by each dict's keys in insertion order, so the C++
    flatten's sorting of them is skipped). Pytree arguments look up `trees`, keyed by jaxlib's
    C++ treedef and the leaves' avals or scalar types; a hit's Python scalars get their buffers
    from `_scalar_buffers`. Keywords that name the parameters after the positional arguments are
    moved to their positions first. Other calls (other keywords, NumPy inputs, static arguments
    with pytrees) take `_call_general`.
    """
    fun, hits, mixed, general = jitted.fun, jitted._hits, jitted._mixed_hits, jitted._call_general
    trees, fast_flatten = jitted._tree_hits, pytree_fast.flatten
    dicts, dict_lookup = jitted._dict_hits, jit_hit_keys.lookup
    leaves_signature = jit_hit_keys.leaves_signature
    fun, general = api_boundary(fun), api_boundary(general)  # the miss paths filter tracebacks
    statics, hit_key = jitted.static_argnums, _hit_key
    scalar_buffer, names = _scalar_buffer, jitted.positional_names

    def call(*args, **kwargs):
        if kwargs and names and not trace_state.stack:
            positional = keywords_by_position(args, kwargs, names)
            if positional is not None:
                args, kwargs = positional, {}
        if not kwargs and not trace_state.stack:
            entry = None
            if len(args) == 2:
                a, b = args
                if type(a) is Array is type(b):
                    entry, buffers = hits.get((a.aval, b.aval)), [a._buf, b._buf]
            elif len(args) == 1:
                (a,) = args
                if type(a) is Array:
                    entry, buffers = hits.get((a.aval,)), [a._buf]
            if entry is None and mixed:  # other arities, scalars, None or static arguments
                try:
                    entry = mixed.get(hit_key(args, statics))
                except TypeError:  # an unhashable static argument: _call_general explains
                    entry = None
                if entry is not None:
                    args = [a for i, a in enumerate(args) if a is not None and i not in statics]
                    buffers = [a._buf if type(a) is Array else scalar_buffer(a) for a in args]
            if entry is None and dicts:  # Arrays, scalars, dicts of them: no flatten
                found = dict_lookup(dicts, args, scalar_buffer)
                if found is not None:
                    entry, buffers, args = found
            if entry is None and trees:  # pytree arguments (no static ones)
                leaves, tree = fast_flatten(args)
                key = [tree]
                buffers, scalars = leaves_signature(key, leaves)
                entry = trees.get(tuple(key))
                if entry is not None:
                    args = leaves
                    for i in scalars:  # Python scalars (the key holds their types)
                        buffers[i] = scalar_buffer(buffers[i])
            if entry is not None:
                if entry.gather is not None:  # unused inputs dropped, captured values added
                    buffers = entry.gather(buffers)
                try:
                    outs = entry.execute_sharded(buffers).consume_with_handlers(entry.handlers)
                except runtime.XlaRuntimeError:
                    raise_if_deleted(args)  # a clear error for a deleted or donated argument
                    raise
                if entry.single_plain:
                    return Array(outs[0], entry.out_avals[0])
                if entry.tree_plain:
                    return entry.out_fast.unflatten(map(Array, outs, entry.out_avals))
                return wrap_outputs(entry, outs, args)
        if trace_state.stack:
            check_python_ints(args, statics)
            return inline_call(jitted, fun, args, kwargs)
        if config.jax_disable_jit:
            return fun(*args, **kwargs)
        return general(args, kwargs)

    return call


_SINGLE_LEAF_TREE = tree_util.tree_structure(0)


def jit(
    fun: Callable | None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    keep_unused: bool = False,
    **unused: Any,
) -> Any:
    """Compiles `fun` with XLA: traced once per argument signature, then a cached executable.

    Args:
      fun: a function of arrays, scalars and pytrees of them.
      static_argnums / static_argnames: arguments passed by value (hashable) rather than traced;
        each new value re-traces.
      donate_argnums: arguments whose buffers the computation may reuse for its outputs.
      keep_unused: compile the inputs `fun` never reads too (by default, as in JAX, they are
        dropped from the executable: a call checks their signature but passes no buffer, and
        does not consume a donated one).

    Returns:
      A callable with `.lower(*args)`, `.eval_shape(*args)` and `.clear_cache()`.
    """
    # None means "not given", as in JAX (flax passes static_argnums=None).
    static_argnums = () if static_argnums is None else static_argnums
    static_argnames = () if static_argnames is None else static_argnames
    donate_argnums = () if donate_argnums is None else donate_argnums
    if isinstance(donate_argnums, int):
        donate_argnums = (donate_argnums,)
    if fun is None:
        return functools.partial(
            jit,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
            donate_argnums=donate_argnums,
            keep_unused=keep_unused,
        )
    jitted = Jitted(fun, static_argnums, static_argnames, donate_argnums, keep_unused=keep_unused)
    call = jitted.fast_call
    functools.update_wrapper(call, fun, updated=())
    call._jitted = jitted
    call.lower = jitted.lower
    call.eval_shape = jitted.eval_shape
    call.trace = jitted.trace
    call.clear_cache = jitted.clear_cache
    call._cache_size = jitted._cache_size
    return call


def as_jitted(fun: Callable, **options: Any) -> Jitted:
    """The Jitted object behind `fun` if it is a `jit` result, else a new one."""
    jitted = getattr(fun, "_jitted", None)
    # A wrapper that copied `_jitted` from a jitted function is not that function: check.
    if isinstance(jitted, Jitted) and jitted.fast_call is fun:
        return jitted
    return Jitted(fun, **options)
