"""Programs whose jaxprs are compared, shared by tests/test_jaxpr_view.py (stablax) and
scripts/record_jaxpr_view.py (JAX 0.10.2, recorded once into tests/data/jaxpr_view.json).

Each case takes the library (`jax` or `stablax`) and returns (function, arguments). `describe`
turns a `ClosedJaxpr` into plain data with either library: each equation's primitive name and
params, sub-jaxprs nested, params that are functions or rule objects as "<opaque>".
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import numpy as np

X = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 7
V = np.linspace(-1, 1, 4, dtype=np.float32)


def _custom_vjp_double(lib: Any) -> Callable:
    f = lib.custom_vjp(lambda a: a * a)
    f.defvjp(lambda a: (a * a, a), lambda r, g: (2 * r * g,))
    return f


# name -> (lib -> (function, arguments)); the programs emit the same operations in both
# libraries, so their jaxprs agree equation by equation.
CASES: dict[str, Callable[[Any], tuple[Callable, tuple]]] = {
    "elementwise": lambda lib: (
        lambda x, y: lib.numpy.sign(x) + lib.lax.dot(lib.numpy.cos(y), y.T),
        (X[:, :3], X[:, :3]),
    ),
    "unary_accuracy": lambda lib: (lambda x: lib.lax.tanh(lib.lax.exp(x)), (X,)),
    "reductions": lambda lib: (lambda x: lib.numpy.sum(x, 0).max(), (X,)),
    "argmax": lambda lib: (lambda x: lib.numpy.argmax(x, axis=1), (X,)),
    "shapes": lambda lib: (
        lambda x: lib.lax.rev(lib.lax.transpose(lib.lax.reshape(x, (4, 3)), (1, 0)), (0,)),
        (X,),
    ),
    "slice_pad_concat": lambda lib: (
        lambda x: lib.lax.concatenate(
            [lib.lax.slice(x, (0, 1), (2, 3)), lib.lax.pad(x[:2, :2], 0.0, ((0, 0, 0), (0, 0, 0)))],
            1,
        ),
        (X,),
    ),
    "dot_general": lambda lib: (
        lambda x, y: lib.lax.dot_general(x, y, (((1,), (0,)), ((), ()))),
        (X, X.T),
    ),
    "convolution": lambda lib: (
        lambda x, w: lib.lax.conv_general_dilated(x, w, (1, 1), "VALID"),
        (X[None, None], X[None, None, :2, :2]),
    ),
    "sort_top_k": lambda lib: (lambda x: (lib.lax.sort(x), lib.lax.top_k(x, 2)), (X,)),
    "dynamic_slice": lambda lib: (
        lambda x, i: lib.lax.dynamic_update_slice(
            x, lib.lax.dynamic_slice(x, (i, i), (2, 2)), (i, i)
        ),
        (X, np.int32(1)),
    ),
    "while": lambda lib: (
        lambda x: lib.lax.while_loop(
            lambda c: c[0] < np.int32(3),
            lambda c: (c[0] + np.int32(1), c[1] * c[1]),
            (np.int32(0), x),
        ),
        (V,),
    ),
    "cond_branches": lambda lib: (
        lambda i, x: lib.lax.switch(i, [lib.numpy.sin, lib.numpy.cos], x),
        (np.int32(1), V),
    ),
    "checkpoint": lambda lib: (lambda x: lib.checkpoint(lib.numpy.sin)(x), (V,)),
    "custom_vjp": lambda lib: (_custom_vjp_double(lib), (V,)),
}


def _plain(value: Any) -> Any:
    if hasattr(value, "eqns"):  # a Jaxpr or ClosedJaxpr
        return {"eqns": describe(value)}
    if isinstance(value, enum.IntEnum):
        return int(value)
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # dimension numbers
        return {f: _plain(getattr(value, f)) for f in value._fields}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    try:
        return str(np.dtype(value))
    except TypeError:
        return "<opaque>"


def describe(closed: Any) -> list[list[Any]]:
    """[[primitive name, {param: plain value}], ...] of a (Closed)Jaxpr's equations."""
    return [
        [eqn.primitive.name, {k: _plain(v) for k, v in sorted(eqn.params.items())}]
        for eqn in closed.eqns
    ]
