"""`stablax.core`: the public names of `jax.core`, bound to stablax's own machinery.

`Tracer` and `ShapedArray` are the classes stablax traces with (`isinstance(x, core.Tracer)`
is True for a value being traced), `Trace` the class of a trace (one StableHLO function being
built), `AbstractValue` the base of abstract values (`ShapedArray`, a Ref's `AbstractRef`).
stablax's IR is StableHLO, so an `Atom` (JAX's variable or literal of a jaxpr) is an MLIR value,
and `eval_jaxpr` evaluates what `make_jaxpr` returns.
"""

from __future__ import annotations

import abc
import contextlib
import operator
from collections.abc import Iterator
from typing import Any

from stablax._src import core as _core
from stablax._src.api_extras import ensure_compile_time_eval
from stablax._src.avals import ShapedArray
from stablax._src.core import FuncTrace as Trace
from stablax._src.core import Tracer
from stablax._src.interpreters.interpret import call_traced as _call_traced
from stablax._src.ir import ir as _ir
from stablax._src.refs import AbstractRef as _AbstractRef

Atom = _ir.Value  # a value of the IR: an MLIR SSA value (JAX's jaxpr Var | Literal)
Value = Any  # a value an IR value stands for when evaluated
ParamDict = dict[str, Any]  # an operation's parameters by name


class AbstractValue(abc.ABC):  # noqa: B024 (an abstract base for isinstance checks only)
    """The base of abstract values: `ShapedArray` and a Ref's `AbstractRef` are instances."""


AbstractValue.register(ShapedArray)
AbstractValue.register(_AbstractRef)


@contextlib.contextmanager
def eval_context() -> Iterator[None]:
    """Inside the block no trace is active: operations on concrete values run right away, even
    while a function is being traced (as JAX's `core.eval_context`). Traced values from outside
    the block cannot be used inside it."""
    state = _core.trace_state
    saved = (state.stack, state.target, state.lowering)
    state.stack, state.target, state.lowering = [], None, None
    try:
        yield
    finally:
        state.stack, state.target, state.lowering = saved


def eval_jaxpr(jaxpr: Any, consts: Any, *args: Any, propagate_source_info: bool = True) -> list:
    """Evaluates a function from `make_jaxpr` (or `jit(f).trace(...).jaxpr`) on flat `args`.

    Inside a trace (jit, grad, vmap) the function is inlined, so it can be transformed.

    Args:
      jaxpr: `make_jaxpr(f)(...)` or its `.jaxpr` (a `StableHLOFunction`).
      consts: its `.consts` (empty: stablax keeps constants in the module).
      args: one array per flat input.

    Returns:
      The list of flat outputs.
    """
    traced = getattr(jaxpr, "traced_function", None)
    if traced is None:
        raise TypeError(
            f"eval_jaxpr: expected what make_jaxpr returns (a StableHLOFunction), got "
            f"{type(jaxpr).__name__}"
        )
    if len(list(consts)) != 0:
        raise TypeError(
            f"eval_jaxpr: stablax functions keep their constants in the module; got "
            f"{len(list(consts))} consts (pass `fn.consts`, which is empty)"
        )
    if len(args) != len(traced.in_avals):
        raise TypeError(
            f"eval_jaxpr: the function takes {len(traced.in_avals)} arguments "
            f"({[a.str_short() for a in traced.in_avals]}), got {len(args)}"
        )
    return _call_traced(traced, list(args))


def max_dim(d1: int, d2: int) -> int:
    """The larger of two dimension sizes (stablax's shapes are always concrete integers)."""
    return max(operator.index(d1), operator.index(d2))


def min_dim(d1: int, d2: int) -> int:
    """The smaller of two dimension sizes (stablax's shapes are always concrete integers)."""
    return min(operator.index(d1), operator.index(d2))


__all__ = [
    "AbstractValue",
    "Atom",
    "ParamDict",
    "ShapedArray",
    "Trace",
    "Tracer",
    "Value",
    "ensure_compile_time_eval",
    "eval_context",
    "eval_jaxpr",
    "max_dim",
    "min_dim",
]
