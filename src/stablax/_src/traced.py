"""The traced stage of `jit` (`jit(f).trace(*args)`).

`Traced` holds the StableHLO function a trace produced, with its argument and output structure;
`.lower()` makes the `Lowered` stage from it without tracing again, and `.jaxpr` its jaxpr view
(jaxpr_view.ClosedJaxpr, what `make_jaxpr` returns), which prints the module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from stablax._src import core, tree_util
from stablax._src.shape_dtype_struct import ShapeDtypeStruct


@dataclasses.dataclass(frozen=True, slots=True)
class ArgInfo:
    """The abstract value of one argument of a traced or lowered function, and whether it is
    donated."""

    _aval: Any
    donated: bool

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape

    @property
    def dtype(self) -> Any:
        return self._aval.dtype


def args_info(in_tree: Any, in_avals: list[Any], donated: list[int]) -> Any:
    """The pytree (positional arguments, keyword arguments) of `ArgInfo`s."""
    infos = [ArgInfo(a, i in set(donated)) for i, a in enumerate(in_avals)]
    return tree_util.tree_unflatten(in_tree, infos)


def out_info(out_tree: Any, out_avals: list[Any]) -> Any:
    """The outputs' pytree of `ShapeDtypeStruct`s."""
    structs = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in out_avals]
    return tree_util.tree_unflatten(out_tree, structs)


class Traced:
    """`jit(f).trace(*args, **kwargs)`: `f` traced for those argument types, ready to lower.

    Attributes:
      jaxpr: the traced function's jaxpr view (a `ClosedJaxpr` over its StableHLO).
      fun_name: the traced function's name.
      args_info: the pytree `(args, kwargs)` of `ArgInfo` for the traced (non-static) arguments.
      out_info: the outputs' pytree of `ShapeDtypeStruct`s.
      in_tree / out_tree: the pytree structures of the arguments and outputs.
    """

    def __init__(
        self,
        traced: core.TracedFunction,
        fun_name: str,
        in_tree: Any,
        out_tree: Any,
        donated: list[int],
        lower: Callable[[], Any],
        closed_jaxpr: Callable[[], Any],
    ) -> None:
        self._traced = traced
        self.fun_name = fun_name
        self.in_tree = in_tree
        self.out_tree = out_tree
        self._donated = donated
        self._lower = lower
        self._closed_jaxpr = closed_jaxpr

    def lower(self, *, lowering_platforms: tuple[str, ...] | None = None, **_: Any) -> Any:
        """The `Lowered` stage (the StableHLO module), without tracing again."""
        return self._lower()

    @property
    def jaxpr(self) -> Any:
        return self._closed_jaxpr()

    @property
    def args_info(self) -> Any:
        return args_info(self.in_tree, self._traced.in_avals, self._donated)

    @property
    def in_avals(self) -> Any:
        return tree_util.tree_unflatten(self.in_tree, list(self._traced.in_avals))

    @property
    def out_avals(self) -> Any:
        return tree_util.tree_unflatten(self.out_tree, list(self._traced.out_avals))

    @property
    def out_info(self) -> Any:
        return out_info(self.out_tree, self._traced.out_avals)

    @property
    def donate_argnums(self) -> tuple[int, ...]:
        return tuple(self._donated)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the traced function on arguments of the traced types (compiling it)."""
        return self._lower().compile()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Traced({self.fun_name})"
