"""`stablax.core`: the public names of `jax.core`, bound to stablax's own machinery.

`Tracer` and `ShapedArray` are the classes stablax traces with (`isinstance(x, core.Tracer)`
is True for a value being traced), `Trace` the class of a trace (one StableHLO function being
built), `AbstractValue` the base of abstract values (`ShapedArray`, a Ref's `AbstractRef`).
The jaxpr classes are those of `make_jaxpr`'s view over the StableHLO stablax traces
(`_src/jaxpr_view.py`); `eval_jaxpr` evaluates them.
"""

from __future__ import annotations

import abc
import contextlib
import operator
from collections.abc import Iterator
from typing import Any

from stablax._src import core as _core
from stablax._src import jaxpr_view as _jaxpr_view
from stablax._src.api_extras import ensure_compile_time_eval
from stablax._src.avals import ShapedArray
from stablax._src.core import FuncTrace as Trace
from stablax._src.core import Tracer
from stablax._src.interpreters import interpret as _interpret
from stablax._src.refs import AbstractRef as _AbstractRef

Atom = _jaxpr_view.Var | _jaxpr_view.Literal  # an operand of a jaxpr equation
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
    """Evaluates a jaxpr (`make_jaxpr(f)(...).jaxpr`) on its `consts` and flat `args`.

    Inside a trace (jit, grad, vmap) the function is inlined, so it can be transformed.

    Args:
      jaxpr: a `Jaxpr` (`closed.jaxpr`); a `ClosedJaxpr` is read as its `.jaxpr`.
      consts: one value per constvar (`closed.consts`: the values the function closed over).
      args: one array per invar.
      propagate_source_info: JAX's flag for the equations' source information; stablax's
        evaluated ops keep the locations of the function they come from either way.

    Returns:
      The list of flat outputs.
    """
    if isinstance(jaxpr, _jaxpr_view.ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    if not isinstance(jaxpr, _jaxpr_view.Jaxpr):
        raise TypeError(f"eval_jaxpr: expected a Jaxpr (make_jaxpr(f)(...).jaxpr), got {jaxpr!r}")
    consts = list(consts)
    if len(consts) != len(jaxpr.constvars) or len(args) != len(jaxpr.invars):
        raise ValueError(
            f"eval_jaxpr: the jaxpr takes {len(jaxpr.constvars)} consts and "
            f"{len(jaxpr.invars)} arguments ({[a.str_short() for a in jaxpr.in_avals]}), got "
            f"{len(consts)} and {len(args)}"
        )
    return _interpret.eval_jaxpr(jaxpr, consts, args)


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
