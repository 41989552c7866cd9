"""Closure conversion: a function's closed-over inexact arrays made explicit trailing arguments,
so that a custom_vjp rule can return cotangents for them (JAX's `closure_convert`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax._src import core, tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters.calls import close
from stablax._src.interpreters.interpret import interpret
from stablax._src.staging import run_staged


def closure_convert(fun: Callable[..., Any], *example_args: Any) -> tuple[Callable, list[Any]]:
    """`(converted, consts)` with converted(*args, *consts) == fun(*args).

    fun is traced once at the shapes and dtypes of `example_args` (pytrees of arrays); the
    float and complex arrays it closes over, outer tracers included, become `consts`. Other
    closed-over values stay inside `converted`.
    """
    leaves, in_tree = tree_util.tree_flatten(example_args)
    box: dict[str, Any] = {}

    def flat(*xs):
        out = fun(*tree_util.tree_unflatten(in_tree, list(xs)))
        out_leaves, box["out_tree"] = tree_util.tree_flatten(out)
        return out_leaves

    traced = core.trace_to_func(flat, [aval_of(x) for x in leaves], name="closure")
    out_tree = box["out_tree"]
    captured = list(traced.captured)
    hoisted = [i for i, c in enumerate(captured) if aval_of(c).dtype.kind in "fc"]
    n_args = len(leaves)

    closed = close(traced)

    def evaluate(*values):
        return interpret(closed, values)

    def converted(*args_and_consts: Any) -> Any:
        args, consts = (
            args_and_consts[: len(args_and_consts) - len(hoisted)],
            args_and_consts[len(args_and_consts) - len(hoisted) :],
        )
        arg_leaves = tree_util.tree_leaves(args)
        if len(arg_leaves) != n_args:
            raise TypeError(
                f"closure_convert: the converted function takes {n_args} array arguments and "
                f"{len(hoisted)} constants, got {len(arg_leaves)} and {len(consts)}"
            )
        values = list(captured)
        for i, c in zip(hoisted, consts, strict=True):
            values[i] = c
        return tree_util.tree_unflatten(out_tree, run_staged(evaluate, [*arg_leaves, *values]))

    return converted, [captured[i] for i in hoisted]
