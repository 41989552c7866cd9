"""`print_saved_residuals`: what reverse mode keeps from the forward pass, as JAX prints it.

The function is linearized as `vjp` does; the residuals are the values its primal function
returns after the outputs (what the linear function reads). Each is described by where it comes
from: an argument (with its path inside the argument's pytree), a `checkpoint_name`, or the
operation that computed it. Unlike JAX's, the lines name no source line: the primal function
is a rewrite of the traced one, and its ops carry the line of the call that rewrote them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import tree_util
from stablax._src.interpreters.remat_policies import name_of, primitive_name
from stablax._src.ir import ir
from stablax._src.transforms.ad_trace import linearize_and_run


def saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> list[tuple[Any, str]]:
    """The residuals `vjp(f, *args)` keeps: a list of (abstract value, where it comes from)."""
    if kwargs:
        args = (*args, kwargs)  # as JAX: keyword arguments become a trailing dict argument
        fun = lambda *a: f(*a[:-1], **a[-1])  # noqa: E731
    else:
        fun = f
    lin, _, _, _ = linearize_and_run(fun, args, False)
    arguments, _, returned = lin.primal_fn.parts()
    arg_names = _argument_names(f, args)
    results = []
    for value in returned[lin.num_outputs :]:
        if isinstance(value, ir.OpResult) and value.owner.name == "stablehlo.constant":
            continue  # a constant the backward pass reads, as JAX's literals: nothing is saved
        aval = lin.primal_fn.out_avals[returned.index(value)]
        results.append((aval, _source(value, arguments, arg_names, lin.primal_fn)))
    return results


def print_saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> None:
    """Prints, one a line, each value that reverse mode saves when differentiating `f` at `args`.

    Lines read as JAX's, without its source lines: `f32[3,3] from the argument w`,
    `f32[3] named 'h'`, `f32[3] output of tanh`. Use it to see what a checkpoint policy keeps.

    Args:
      f: the function (of arrays and pytrees of arrays).
      args: the point at which it is differentiated (`kwargs` too).
    """
    for aval, source in saved_residuals(f, *args, **kwargs):
        print(f"{_short_type(aval)} {source}")


def _argument_names(f: Callable, args: tuple) -> list[str]:
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i, arg in enumerate(args):
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        if i < len(params) and params[i].kind in positional:
            base = params[i].name
        else:
            base = f"args[{i}]"
        for path, _ in tree_util.tree_flatten_with_path(arg)[0]:
            names.append(base + tree_util.keystr(path))
    return names


_PLAIN = ("float", "int", "uint", "complex")


def _short_type(aval: Any) -> str:
    """JAX's short form of an abstract value: f32[3,3], i32[], bool[2], bf16[4]."""
    dtype = np.dtype(aval.dtype)
    bits = dtype.itemsize * 8
    kinds = {"f": "f", "i": "i", "u": "u", "c": "c"}
    if dtype.name == "bfloat16":
        name = "bf16"
    elif dtype.kind == "b":
        name = "bool"
    elif dtype.kind in kinds and dtype.name.rstrip("0123456789") in _PLAIN:
        name = f"{kinds[dtype.kind]}{bits}"
    else:
        name = dtype.name
    return f"{name}[{','.join(map(str, aval.shape))}]"


def _source(value: Any, arguments: list[Any], arg_names: list[str], owner: Any) -> str:
    if isinstance(value, ir.BlockArgument):
        index = arguments.index(value)
        if index < len(arg_names):
            return f"from the argument {arg_names[index]}"
        return "from a value the function closes over"
    op = value.owner
    name = name_of(op)
    if name is not None:
        return f"named {name!r}"
    return f"output of {primitive_name(op, owner)}"
