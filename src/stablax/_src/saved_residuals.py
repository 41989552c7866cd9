"""`print_saved_residuals`: what reverse mode keeps from the forward pass, as JAX prints it.

The function is linearized as `vjp` does; the residuals are what the linear function reads: the
values the primal function returns after its outputs, and the arrays both close over. They are
listed in JAX's order (constants, arguments in argument order, computed values in
program order), each described by where it comes from: an argument (with its path in the
argument's pytree), a `checkpoint_name`, or the operation that computed it and the user's call
(`from file:line:column (function)`; a checkpointed function's call is looked into).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from stablax._src import ir as mlir
from stablax._src import tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters.remat_policies import name_of, primitive_name
from stablax._src.ir import ir
from stablax._src.transforms.ad_trace import linearize_and_run


def saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> list[tuple[Any, str]]:
    """The residuals `vjp(f, *args, **kwargs)` keeps: a list of (abstract value, where it comes
    from), in the order JAX lists them."""
    if kwargs:
        flat_args = (*args, kwargs)  # keyword arguments are a trailing dict argument
        fun = lambda *a: f(*a[:-1], **a[-1])  # noqa: E731
    else:
        flat_args, fun = args, f
    lin, _, _, _ = linearize_and_run(fun, flat_args, False)
    arguments, ops, returned = lin.primal_fn.parts()
    residuals = returned[lin.num_outputs :]
    avals = dict(zip(residuals, lin.primal_fn.out_avals[lin.num_outputs :], strict=True))
    arg_names = _argument_names(f, args, kwargs)
    # The arrays the linear function closes over besides K's residuals (JAX's constants). A
    # Python scalar the linear function multiplies by is copied into it, so that, where JAX lists
    # `f32[] from a literal` (nothing saved at run time either), stablax lists nothing.
    constants = [
        (aval_of(value), "from a constant")
        for value, slot in zip(lin.linear_fn.captured, lin.residual_slots, strict=True)
        if slot is None
    ]
    from_arguments, computed = [], []
    for value in dict.fromkeys(residuals):  # each value once, as JAX's set of residuals
        if isinstance(value, ir.BlockArgument):  # K's own inputs (what it closes over L does too)
            index = arguments.index(value)
            from_arguments.append((index, (avals[value], f"from the argument {arg_names[index]}")))
        else:
            position = ops.index(value.owner.operation)
            computed.append((position, (avals[value], _computed_by(value, lin.primal_fn))))
    return [
        *constants,
        *(entry for _, entry in sorted(from_arguments, key=lambda e: e[0])),
        *(entry for _, entry in sorted(computed, key=lambda e: e[0])),
    ]


def print_saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> None:
    """Prints, one a line, each value that reverse mode saves when differentiating `f` at `args`.

    Lines read as JAX's: `f32[3,3] from the argument w`, `f32[3] named 'h' from
    model.py:12:8 (layer)`, `f32[3] output of tanh from model.py:13:11 (layer)`. Use it to see
    what a checkpoint policy keeps.

    Args:
      f: the function (of arrays and pytrees of arrays).
      args: the point at which it is differentiated (`kwargs` too).
    """
    for aval, source in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {source}")


def _argument_names(f: Callable, args: tuple, kwargs: dict) -> list[str]:
    """One name per leaf of (args, kwargs), as JAX names them: the parameter a value binds to
    (`x`, `args[1]` for varargs, `kw['z']` for keyword varargs), then its path in the pytree."""
    try:
        parameters = inspect.signature(f).parameters
        bound = inspect.signature(f).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        parameters, bound = {}, {}
    positional = []
    for name, value in bound.items():
        kind = parameters[name].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            positional.extend(f"{name}[{i}]" for i in range(len(value)))
        elif kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            positional.append(name)
    var_keyword = next(
        (n for n, p in parameters.items() if p.kind == inspect.Parameter.VAR_KEYWORD), None
    )
    names = []
    for i, arg in enumerate(args):
        base = positional[i] if i < len(positional) else f"args[{i}]"
        names.extend(base + tree_util.keystr(path) for path, _ in _leaves(arg))
    for key in sorted(kwargs):  # a dict's leaves, in the order it flattens
        named = key in parameters and parameters[key].kind != inspect.Parameter.VAR_KEYWORD
        base = key if named or var_keyword is None else f"{var_keyword}[{key!r}]"
        names.extend(base + tree_util.keystr(path) for path, _ in _leaves(kwargs[key]))
    return names


def _leaves(tree: Any) -> list[tuple[Any, Any]]:
    return tree_util.tree_flatten_with_path(tree)[0]


def _computed_by(value: Any, fn: Any) -> str:
    """`named 'h' from ...` or `output of sin from ...`: the op that made `value`, looked for
    inside the functions it calls (a checkpointed function's body)."""
    op = _producer(value, fn)
    name = name_of(op)
    what = f"named {name!r}" if name is not None else f"output of {primitive_name(op, fn)}"
    source = mlir.source_of(op.location)
    where = "" if source is None else f"{source[0]}:{source[1]}:{source[2]} ({source[3]})"
    return f"{what} from {where}"


def _producer(value: Any, fn: Any) -> Any:
    """The op that computes `value`, through `func.call`s into their callees' bodies."""
    op = value.owner.operation
    while op.name == "func.call":
        callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        func = next(
            f
            for f in fn.module.body.operations
            if ir.StringAttr(f.attributes["sym_name"]).value == callee
        )
        block = func.regions[0].blocks[0]
        inner = list(block.operations)[-1].operands[list(op.results).index(value)]
        if isinstance(inner, ir.BlockArgument):
            break  # the callee returns one of its inputs: the call itself is named
        value, op = inner, inner.owner.operation
    return op
