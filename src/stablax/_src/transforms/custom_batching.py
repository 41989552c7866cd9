"""custom_vmap and sequential_vmap: functions with a user-defined batching rule.

A custom_vmap function traced in a program is a `func.call` of its body whose payload (a
`CustomVmap`, owned by the traced function like every rule) holds the user's rule; batching the
call runs the rule on the batched arguments instead of batching the body. Differentiating the
call differentiates the body.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from stablax._src import core, tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters import calls
from stablax._src.interpreters.ad import jvp_traced
from stablax._src.interpreters.batching import moveaxis
from stablax._src.transforms.lax_map import map as lax_map


class custom_vmap:  # noqa: N801 (JAX's public name)
    """A function whose behaviour under `vmap` is the rule given to `def_vmap`.

    The rule is called as `rule(axis_size, in_batched, *args)`: `in_batched` has the structure
    of `args` with a bool per leaf, batched leaves carry the batch at axis 0; it returns
    `(out, out_batched)`, `out_batched` a bool or a tree of bools (a prefix of `out`).

    Example:
      @custom_vmap
      def f(x): return jnp.sin(x)
      @f.def_vmap
      def rule(axis_size, in_batched, xs): return jnp.sin(xs), in_batched[0]
    """

    def __init__(self, fun: Callable) -> None:
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.vmap_rule: Callable | None = None

    def def_vmap(self, rule: Callable) -> Callable:
        self.vmap_rule = rule
        return rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"custom_vmap function {self.fun.__name__} takes no keyword arguments")
        if self.vmap_rule is None:
            raise AttributeError(
                f"No batching rule defined for custom_vmap function {self.fun.__name__} using "
                "def_vmap."
            )
        if core.current_trace() is None:
            return self.fun(*args)
        leaves, in_tree = tree_util.tree_flatten(args)
        box: dict[str, Any] = {}

        def body(*xs):
            out_leaves, box["out_tree"] = tree_util.tree_flatten(
                self.fun(*tree_util.tree_unflatten(in_tree, list(xs)))
            )
            return out_leaves

        traced = core.trace_to_func(body, [aval_of(x) for x in leaves])
        payload = CustomVmap(self.vmap_rule, in_tree, box["out_tree"], len(leaves))
        outs = calls.call_traced_closed(traced, leaves, payload)
        return tree_util.tree_unflatten(box["out_tree"], outs)


class CustomVmap:
    """The payload of a custom_vmap call: the user's batching rule and the call's structures."""

    kind = "custom_vmap"

    def __init__(self, rule: Callable, in_tree: Any, out_tree: Any, num_args: int) -> None:
        self.rule = rule
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.num_args = num_args

    def jvp(self, callee, primals, tangents):
        return jvp_traced(callee, primals, tangents)

    def batch(self, values, dims, axis_size):
        n = self.num_args
        if any(d is not None for d in dims[n:]):
            raise NotImplementedError(
                "[vmap] a custom_vmap function that closes over batched values; pass them to it "
                "as arguments instead"
            )
        args = [x if d is None else moveaxis(x, d, 0) for x, d in zip(values[:n], dims[:n])]
        in_batched = tree_util.tree_unflatten(self.in_tree, [d is not None for d in dims[:n]])
        result = self.rule(axis_size, in_batched, *tree_util.tree_unflatten(self.in_tree, args))
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(
                "custom_vmap rule must return a pair (output, output batched), got "
                f"{type(result).__name__}"
            )
        out, out_batched = result
        out_leaves, out_tree = tree_util.tree_flatten(out)
        if out_tree != self.out_tree:
            raise ValueError(
                f"structure of output returned by custom vmap rule ({out_tree}) does not match "
                f"that of the original custom-vmapped function ({self.out_tree})"
            )
        batched = _broadcast_prefix(out_batched, out)
        for leaf, b in zip(out_leaves, batched, strict=True):
            shape = aval_of(leaf).shape
            if b and (not shape or shape[0] != axis_size):
                raise ValueError(
                    f"custom_vmap rule returned an output of shape {shape} marked batched, but "
                    f"the axis size is {axis_size}"
                )
        return out_leaves, [0 if b else None for b in batched]


def _broadcast_prefix(prefix: Any, tree: Any) -> list[bool]:
    leaves = tree_util.tree_leaves(tree)
    if isinstance(prefix, bool):
        return [prefix] * len(leaves)
    spec_leaves, spec_tree = tree_util.tree_flatten(prefix)
    subtrees = spec_tree.flatten_up_to(tree)
    out: list[bool] = []
    for b, sub in zip(spec_leaves, subtrees, strict=True):
        out += [bool(b)] * len(tree_util.tree_leaves(sub))
    return out


def sequential_vmap(f: Callable) -> custom_vmap:
    """`f` batched by a loop: under vmap, each example runs through `f` in turn (a
    `lax.map` over the batched arguments)."""
    fun = f
    batched = custom_vmap(fun)

    @batched.def_vmap
    def rule(axis_size: int, in_batched: Any, *args: Any) -> Any:
        flags = tree_util.tree_leaves(in_batched)
        leaves, tree = tree_util.tree_flatten(args)
        mapped = [x for x, b in zip(leaves, flags, strict=True) if b]

        def one(xs):
            it = iter(xs)
            full = [next(it) if b else x for x, b in zip(leaves, flags, strict=True)]
            return fun(*tree_util.tree_unflatten(tree, full))

        out = lax_map(one, mapped)
        return out, True

    return batched
