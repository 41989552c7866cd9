"""The function `vjp` returns (`VJP`), and JAX's `jax.ad` markers for `VJP.with_refs`.

`f_vjp(ct)` gives the cotangents of all inputs. `f_vjp.with_refs(*wants)(ct)` says, per input
leaf, what to do with its cotangent: `GradValue()` returns it (the default), `DontWant()` drops
it (the result holds `DidntWant()`), and a `Ref` accumulates it (`ref[...] += ct`; the result
holds `GradRef()`). `GradRef()` and `DidntWant()` are pytrees without leaves, so the result can
be returned from `jit`. stablax computes a dropped cotangent and discards it (the transpose is
not pruned), so `DontWant` saves no work here.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

from stablax._src import tree_util
from stablax._src.avals import ShapedArray


@dataclasses.dataclass(frozen=True, slots=True)
class GradValue:
    """Return this input's cotangent as a value (what `f_vjp(ct)` does for every input)."""


@dataclasses.dataclass(frozen=True, slots=True)
class DontWant:
    """Do not return this input's cotangent: the result holds `DidntWant()` in its place."""


@dataclasses.dataclass(frozen=True, slots=True)
class GradRef:
    """Stands in the result for a cotangent that was accumulated into a `Ref`."""


@dataclasses.dataclass(frozen=True, slots=True)
class DidntWant:
    """Stands in the result for a cotangent asked for with `DontWant()`."""


for _cls in (GradRef, DidntWant):  # no leaves: they cross jit as structure only
    tree_util.register_pytree_node(_cls, lambda _: ((), None), lambda _, __, c=_cls: c())


class VJP(tree_util.Partial):
    """What `vjp` returns: a pytree (its leaves are the residuals) callable on a cotangent."""

    def with_refs(self, *maybe_ct_refs: Any) -> Any:
        """A function of the cotangent that returns or accumulates each input's cotangent as
        `maybe_ct_refs` (one entry per input of the differentiated function) asks."""
        info = self.func.info
        wants, tree = tree_util.tree_flatten(tuple(maybe_ct_refs))
        if tree != info["in_tree"]:
            raise ValueError(
                f"VJP.with_refs: expected one entry per input, with the inputs' structure "
                f"{info['in_tree']}, got {tree}"
            )
        for want, aval in zip(wants, info["in_avals"], strict=True):
            _check_want(want, aval)

        def pull_back(ct: Any) -> Any:
            cts = tree_util.tree_leaves(self(ct))
            out = [_deliver(want, c) for want, c in zip(wants, cts, strict=True)]
            return tree_util.tree_unflatten(info["in_tree"], out)

        return pull_back


def _is_ref(x: Any) -> bool:
    # A Ref (refs.py, built on stablax.numpy above this module) by what delivery uses of it.
    return callable(getattr(x, "addupdate", None)) and hasattr(x, "shape")


def _check_want(want: Any, aval: ShapedArray) -> None:
    if isinstance(want, (GradValue, DontWant)):
        return
    if not _is_ref(want):
        raise TypeError(
            f"VJP.with_refs: each entry is GradValue(), DontWant() or a Ref, got {want!r}"
        )
    if tuple(want.shape) != tuple(aval.shape):
        raise ValueError(
            f"VJP.with_refs: a Ref of shape {tuple(want.shape)} cannot accumulate the cotangent "
            f"of an input of shape {tuple(aval.shape)}"
        )


def _deliver(want: Any, ct: Any) -> Any:
    if isinstance(want, GradValue):
        return ct
    if isinstance(want, DontWant):
        return DidntWant()
    want.addupdate(ct)
    return GradRef()


tree_util.register_pytree_node(
    VJP,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: VJP(func, *children[0], **children[1]),
)

# `stablax.ad`, as JAX 0.10.2's `jax.ad` namespace.
ad = types.SimpleNamespace(
    DontWant=DontWant, DidntWant=DidntWant, GradRef=GradRef, GradValue=GradValue
)
