"""User-defined primitives (`jax.extend.core.Primitive`) and the rule tables libraries fill.

equinox defines its own primitives at import time and registers an implementation, a JVP rule,
a batching rule and a lowering for each in `jax.interpreters.{ad,batching,mlir}`'s tables. Here
`bind` runs the lowering (or implementation) as ordinary stablax code, wrapped in
`stablax.custom_vmap` when a batching rule is registered and `stablax.custom_jvp` when a JVP rule
is, so each rule takes effect where JAX would apply it. Transpose rules are recorded but unused
(reverse mode differentiates the JVP rule's output).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, MutableMapping
from typing import Any

import numpy as np

import stablax.numpy as jnp
from stablax._src import tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.transforms.custom_batching import custom_vmap

# Keyed weakly by the primitive objects: a rule lives as long as its primitive, so the tables
# hold nothing of a library once its primitives are gone.
primitive_jvps: MutableMapping[Any, Callable] = weakref.WeakKeyDictionary()  # jax.interpreters.ad
primitive_transposes: MutableMapping[Any, Callable] = weakref.WeakKeyDictionary()  # (equinox)
primitive_batchers: MutableMapping[Any, Callable] = (
    weakref.WeakKeyDictionary()
)  # .batching (equinox)
# jax.interpreters.batching: rules that also get the axis (`rule(axis_data, args, dims, ...)`)
axis_primitive_batchers: MutableMapping[Any, Callable] = weakref.WeakKeyDictionary()
lowerings: MutableMapping[Any, Callable] = weakref.WeakKeyDictionary()  # .mlir.register_lowering

not_mapped = None  # jax.interpreters.batching.not_mapped


class Primitive:
    """A named operation defined outside stablax, with JAX's registration interface."""

    multiple_results = False

    def __init__(self, name: str) -> None:
        self.name = name
        self.impl: Callable | None = None
        self.abstract_eval: Callable | None = None

    def def_impl(self, impl: Callable) -> Callable:
        self.impl = impl
        return impl

    def def_abstract_eval(self, rule: Callable) -> Callable:
        self.abstract_eval = rule
        return rule

    def def_effectful_abstract_eval(self, rule: Callable) -> Callable:
        self.abstract_eval = lambda *a, **p: rule(*a, **p)[0]
        return rule

    def _runner(self) -> Callable:
        rule = lowerings.get(self)
        if getattr(rule, "lowers_by_tracing", False):
            return rule
        if self.impl is not None:
            return self.impl
        raise NotImplementedError(
            f"Primitive {self.name} (stablax alias): bound with neither an implementation nor a "
            "lowering made by mlir.lower_fun (stablax cannot run hand-written MLIR lowerings)"
        )

    def bind(self, *args: Any, **params: Any) -> Any:
        """Applies the primitive to `args` (see the module docstring for the rules used)."""
        run = self._runner()

        def apply(*xs: Any) -> Any:
            out = run(*xs, **params)
            return list(out) if self.multiple_results else out

        fn = apply
        batcher = primitive_batchers.get(self)
        if batcher is not None:
            fn = _with_batcher(fn, lambda size, *a, **p: batcher(*a, **p), params)
        axis_batcher = axis_primitive_batchers.get(self)
        if axis_batcher is not None:
            fn = _with_batcher(
                fn, lambda size, *a, **p: axis_batcher(AxisData(size), *a, **p), params
            )
        jvp = primitive_jvps.get(self)
        if jvp is not None:
            fn = _with_jvp(fn, jvp, params)
        return fn(*args)

    def __repr__(self) -> str:
        return self.name


def _with_batcher(fn: Callable, batcher: Callable, params: dict) -> Callable:
    wrapped = custom_vmap(fn)

    @wrapped.def_vmap
    def rule(axis_size: int, in_batched: Any, *args: Any) -> Any:
        dims = [0 if b else not_mapped for b in in_batched]
        out, out_dims = batcher(axis_size, list(args), dims, **params)

        def to_front(x: Any, d: Any) -> Any:
            return x if d is None else jnp.moveaxis(x, d, 0)

        if isinstance(out_dims, (list, tuple)):
            out = [to_front(o, d) for o, d in zip(out, out_dims)]
            return out, [d is not None for d in out_dims]
        return to_front(out, out_dims), out_dims is not None

    return wrapped


def _with_jvp(fn: Callable, jvp: Callable, params: dict) -> Callable:
    wrapped = custom_jvp(fn)

    @wrapped.defjvp
    def rule(primals: Any, tangents: Any) -> Any:
        out, tangent_out = jvp(list(primals), list(tangents), **params)
        return out, tree_util.tree_map(_materialize, tangent_out, out)

    return wrapped


def _materialize(t: Any, like: Any) -> Any:
    """A symbolic zero (`ad.Zero`) as an array of zeros shaped like `like`."""
    if isinstance(t, Zero):
        return jnp.zeros(np.shape(like), jnp.result_type(like))
    return t


class AxisData:
    """The mapped axis a batching rule is told about (`axis_data.size`, `.name`)."""

    def __init__(self, size: int, name: Any = None, spmd_name: Any = None) -> None:
        self.size = size
        self.name = name
        self.spmd_name = spmd_name


class Zero:
    """A symbolic zero tangent (`jax.interpreters.ad.Zero`): has only an aval."""

    def __init__(self, aval: Any) -> None:
        self.aval = aval

    @staticmethod
    def from_primal_value(x: Any) -> Zero:
        return Zero(aval_of(x))


class UndefinedPrimal:
    """A linear input of a transpose rule (`jax.interpreters.ad.UndefinedPrimal`)."""

    def __init__(self, aval: Any) -> None:
        self.aval = aval


def is_undefined_primal(x: Any) -> bool:
    return isinstance(x, UndefinedPrimal)


def instantiate_zeros(t: Any) -> Any:
    if isinstance(t, Zero):
        return jnp.zeros(t.aval.shape, t.aval.dtype)
    return t
