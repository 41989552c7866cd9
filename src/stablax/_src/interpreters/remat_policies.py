"""Checkpoint policies: which values of a checkpointed function the backward pass may keep.

A policy is JAX's kind of callable, `policy(prim, *in_avals, **params)`, asked about each
operation of the checkpointed body: `prim` is the `lax.*_p` object standing for the StableHLO
op (`lax.dot_general_p` for `stablehlo.dot_general`, `name_p` for a `checkpoint_name` marker,
with `params["name"]`), `in_avals` its operands' abstract values. It answers True/`Saveable`
(keep the op's results as residuals), False/`Recompute` (recompute them in the backward pass) or
`Offloadable(src, dst)` (keep them in another memory space). stablax keeps offloadable values
like saved ones, in device memory: the CPU backend has no separate host memory space to move
them to, so offloading saves the recomputation but not the memory.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any

from stablax._src import jaxpr_view
from stablax._src.bodies import aval_of_value
from stablax._src.ir import ir
from stablax._src.op_rules import op_key


class _Decision:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


Saveable = _Decision("Saveable")  # keep the value for the backward pass
Recompute = _Decision("Recompute")  # recompute it in the backward pass


@dataclasses.dataclass(frozen=True)
class Offloadable:
    """Keep the value, moved from memory space `src` to `dst` (e.g. "device" -> "pinned_host")."""

    src: str
    dst: str


# The `checkpoint_name` marker (lax/_checkpoint_name.py): the identity, carrying a name for the
# policies in its backend_config. Its JAX primitive is `name_p`, named "name".
NAME = "stablehlo.custom_call:stablax.name"


def name_of(op: Any) -> str | None:
    """The name a `checkpoint_name` marker gives its value, or None for any other op."""
    if op_key(op) != NAME:
        return None
    return ir.StringAttr(op.attributes["backend_config"]).value


def _primitive_and_params(op: Any, owner: Any) -> tuple[Any, dict[str, Any], list[Any]]:
    """JAX's primitive for `op`, its params and its operands in JAX's order, as the jaxpr view
    shows them (jaxpr_view.equation_of)."""
    prim, eq = jaxpr_view.primitive_of(op, owner)
    return prim, eq.params, list(eq.inputs)


def primitive_name(op: Any, owner: Any = None) -> str:
    """JAX's name for the primitive of `op` ("sin" for `stablehlo.sine`, "name" for a marker);
    ops whose params are read from their function need its `owner`."""
    try:
        return jaxpr_view.equation_of(op, owner).name
    except AttributeError:  # no owner to read the op's function or payload from
        return op_key(op)


def decide(policy: Callable, op: Any, owner: Any) -> Any:
    """`Saveable`, `Recompute` or an `Offloadable`: what `policy` says of `op`'s results (`op`
    of a function of `owner`'s module). Constants are literals in JAX, never saved."""
    if op.name == "stablehlo.constant":
        return Recompute
    prim, params, inputs = _primitive_and_params(op, owner)
    answer = policy(prim, *(aval_of_value(v) for v in inputs), **params)
    if isinstance(answer, bool):
        return Saveable if answer else Recompute
    if answer is Saveable or answer is Recompute or isinstance(answer, Offloadable):
        return answer
    raise TypeError(
        f"checkpoint: the policy {policy!r} returned {answer!r} for {prim.name}; a policy returns "
        "a bool, Saveable, Recompute or Offloadable"
    )


# --- the policies of jax.checkpoint_policies ---------------------------------------------------


class _Constant:
    """A policy with one answer for every value (printed by its name, as a function would be)."""

    def __init__(self, answer: bool, name: str, doc: str) -> None:
        self._answer = answer
        self.__name__ = name
        self.__doc__ = doc

    def __call__(self, *_: Any, **__: Any) -> bool:
        return self._answer

    def __repr__(self) -> str:
        return self.__name__


everything_saveable = _Constant(
    True, "everything_saveable", "Save every intermediate: the residuals of no checkpoint."
)
nothing_saveable = _Constant(
    False, "nothing_saveable", "Save nothing: recompute every intermediate (the default)."
)


@dataclasses.dataclass(frozen=True)
class _DotsSaveable:
    only_if_no_batch_dims: bool

    def __call__(self, prim: Any, *avals: Any, **params: Any) -> bool:
        if prim.name == "dot_general":
            if not self.only_if_no_batch_dims:
                return True
            (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
            return not lhs_b and not rhs_b
        return prim.name == "conv_general_dilated" and not self.only_if_no_batch_dims


dots_saveable = _DotsSaveable(False)
dots_with_no_batch_dims_saveable = _DotsSaveable(True)


def offload_dot_with_no_batch_dims(offload_src: str, offload_dst: str) -> Callable:
    """As `dots_with_no_batch_dims_saveable`, but those dots are offloaded to `offload_dst`."""

    def policy(prim: Any, *_: Any, **params: Any) -> Any:
        if dots_with_no_batch_dims_saveable(prim, **params):
            return Offloadable(offload_src, offload_dst)
        return Recompute

    return policy


@dataclasses.dataclass(frozen=True)
class _SaveNames:
    names: frozenset
    keep_listed: bool  # True: save only these names; False: save every name but these

    def __call__(self, prim: Any, *_: Any, **params: Any) -> bool:
        if prim.name == "name":
            return (params["name"] in self.names) == self.keep_listed
        return False


def save_only_these_names(*names: str) -> Callable:
    """Save only the values named (by `checkpoint_name`) with one of `names`."""
    return _SaveNames(frozenset(names), True)


def save_any_names_but_these(*names: str) -> Callable:
    """Save every named value except those named with one of `names`; nothing unnamed."""
    return _SaveNames(frozenset(names), False)


def save_anything_except_these_names(*names_not_to_save: str) -> Callable:
    """Save everything. JAX 0.10.2's policy of this name ignores its names and saves every value
    (named ones included); stablax does the same so that both save the same residuals."""
    return everything_saveable


def save_and_offload_only_these_names(
    *,
    names_which_can_be_saved: Any,
    names_which_can_be_offloaded: Any,
    offload_src: str,
    offload_dst: str,
) -> Callable:
    """Save the values with the first names, offload those with the second, recompute the rest."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ValueError(
            "The names should be exclusive and should not intersect in "
            "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
            f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} and the "
            f"intersection={saved & offloaded}"
        )

    def policy(prim: Any, *_: Any, **params: Any) -> Any:
        if prim.name == "name" and params["name"] in saved:
            return Saveable
        if prim.name == "name" and params["name"] in offloaded:
            return Offloadable(offload_src, offload_dst)
        return Recompute

    return policy


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
    """A value is saved when either policy saves it (both must answer with bools)."""

    def policy(prim: Any, *args: Any, **params: Any) -> bool:
        out1 = policy_1(prim, *args, **params)
        out2 = policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "The return value of the policies should be a boolean. Got: "
                f"{out1} and {out2}. Please write a custom policy function directly, rather than "
                "using this helper function."
            )
        return out1 or out2

    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
)

# The policies stablax once named by string.
LEGACY_NAMES = {
    "nothing_saveable": nothing_saveable,
    "everything_saveable": everything_saveable,
    "dots_saveable": dots_saveable,
    "dots_with_no_batch_dims_saveable": dots_with_no_batch_dims_saveable,
}
