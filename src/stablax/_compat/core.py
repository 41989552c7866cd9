"""`jax.core` (and `jax._src.core`, `jax.extend.core`) under the alias.

stablax traces to StableHLO; the jaxpr classes are those of `make_jaxpr`'s view over it
(`_src/jaxpr_view.py`), which haiku's jaxpr_info and equinox walk. The tracer, abstract-value
and trace-state parts are stablax's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from stablax._compat.primitives import Primitive
from stablax._src import core as _core
from stablax._src.api_extras import ensure_compile_time_eval  # noqa: F401 (jax.core name)
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import Tracer  # every library: isinstance checks
from stablax._src.dtypes import float0
from stablax._src.interpreters.interpret import jaxpr_as_fun  # noqa: F401 (haiku's to_dot)
from stablax._src.jaxpr_view import (  # noqa: F401 (haiku's jaxpr_info, equinox)
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    new_jaxpr_eqn,
)
from stablax.core import AbstractValue, eval_context, eval_jaxpr  # noqa: F401 (stablax.core's own)
from stablax.errors import ConcretizationTypeError

_NO_JAXPRS = "stablax traces to StableHLO and has no jaxprs"

Value = Any
ParamDict = dict


def get_aval(x: Any) -> Any:
    """The abstract value (`ShapedArray`) of an array, tracer or scalar (equinox)."""
    if isinstance(x, ShapedArray):
        return x
    return aval_of(x)


def raise_to_shaped(aval: Any, weak_type: Any = None) -> Any:
    """`aval` itself: every stablax abstract value is already shaped (equinox, older JAX)."""
    if weak_type is not None and isinstance(aval, ShapedArray):
        return aval.update(weak_type=weak_type)
    return aval


def mapped_aval(size: int, axis: int | None, aval: Any) -> Any:
    """`aval` with dimension `axis` removed (equinox's vmap rules)."""
    if axis is None:
        return aval
    shape = list(aval.shape)
    del shape[axis]
    return aval.update(shape=tuple(shape))


def unmapped_aval(size: int, axis: int | None, aval: Any, *unused: Any) -> Any:
    """`aval` with a dimension of `size` inserted at `axis` (equinox's vmap rules)."""
    if axis is None:
        return aval
    shape = list(aval.shape)
    shape.insert(axis, size)
    return aval.update(shape=tuple(shape))


class OpaqueTraceState:
    """Which trace is current, comparable for equality only (flax nnx, haiku).

    flax and haiku record it when a module or variable is made and refuse mutation from inside
    a different transformation (`jit`, `grad`, `vmap`), as with JAX.
    """

    __slots__ = ("_trace",)

    def __init__(self, trace: Any) -> None:
        self._trace = trace

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, OpaqueTraceState) and self._trace is other._trace

    def __hash__(self) -> int:
        return id(self._trace)

    def __repr__(self) -> str:
        return f"OpaqueTraceState({'eval' if self._trace is None else id(self._trace)})"


def get_opaque_trace_state(convention: Any = None) -> OpaqueTraceState:
    """The current trace as an opaque value (flax nnx and haiku call this while training)."""
    return OpaqueTraceState(_core.current_trace())


def find_top_trace(xs: Any) -> Any:
    """The innermost trace among the tracers in `xs`, or None if none is traced (equinox)."""
    top = None
    for x in xs:
        if isinstance(x, Tracer):
            trace = x._trace
            if top is None or _depth(trace) > _depth(top):
                top = trace
    return top


def _depth(trace: Any) -> int:
    """How deep `trace` is on stablax's trace stack (-1: not on it)."""
    stack = _core.trace_state.stack
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is trace:
            return i
    return -1


def _unsupported(name: str, needed_by: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"jax.core.{name} (stablax alias; {needed_by}): {_NO_JAXPRS}")

    fn.__name__ = name
    return fn


Atom = Var | Literal  # haiku jaxpr_info: annotation


def subjaxprs(jaxpr: Jaxpr) -> Iterator[Jaxpr]:
    """The jaxprs in the params of `jaxpr`'s equations (cond branches, loop bodies, calls)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


def jaxprs_in_params(params: dict[str, Any]) -> list[Jaxpr]:
    """The jaxprs among an equation's params (a ClosedJaxpr counts as its `.jaxpr`)."""
    found = []
    for value in params.values():
        for v in value if isinstance(value, (tuple, list)) else [value]:
            if isinstance(v, ClosedJaxpr):
                found.append(v.jaxpr)
            elif isinstance(v, Jaxpr):
                found.append(v)
    return found


class Trace:
    """Base class of JAX's interpreters (haiku's to_dot subclasses it at import).

    stablax's transformations are rewrites of StableHLO functions, not interpreters, so a
    subclass can be defined but not run.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"jax.core.Trace (stablax alias; haiku.experimental.to_dot): {_NO_JAXPRS}"
        )


class TraceTag:
    """An identity token of a trace (haiku's to_dot)."""

    def __eq__(self, other: Any) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


class Effect:  # equinox: jax.extend.core.Effect subclassed for its own effects
    """A side effect a primitive has."""


take_current_trace = _unsupported("take_current_trace", "haiku's to_dot")
set_current_trace = _unsupported("set_current_trace", "haiku's to_dot")


def max_dim(d1: Any, d2: Any) -> Any:
    """`max` of two dimension sizes (static sizes only in stablax)."""
    return max(d1, d2)


def min_dim(d1: Any, d2: Any) -> Any:
    """`min` of two dimension sizes (static sizes only in stablax)."""
    return min(d1, d2)


class _Primitives:
    """`jax.extend.core.primitives`: the call primitives haiku compares by identity."""

    def __init__(self) -> None:
        self.jit_p = Primitive("jit")  # haiku to_dot: `primitive is primitives.jit_p`
        self.pjit_p = self.jit_p
        self.call_p = Primitive("call")


primitives = _Primitives()
no_effects: frozenset = frozenset()  # equinox: effect sets
Effects = set


def concrete_or_error(force: Any, val: Any, context: str = "") -> Any:
    """`force(val)` for a concrete `val`; a traced one raises ConcretizationTypeError (equinox)."""
    if isinstance(val, Tracer):
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: {context}"
        )
    return val if force is None else force(val)


def valid_jaxtype(x: Any) -> bool:
    """Whether `x` is a value stablax can trace (an array or a scalar of an array dtype)."""
    try:
        aval_of(x)
    except TypeError:
        return False
    return True


def primal_dtype_to_tangent_dtype(dtype: Any) -> Any:
    """The tangent dtype of a primal dtype: itself if inexact, float0 otherwise (equinox)."""
    dtype = np.dtype(dtype)
    return dtype if np.issubdtype(dtype, np.inexact) else float0
