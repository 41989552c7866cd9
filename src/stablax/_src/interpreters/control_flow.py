"""Shared machinery of structured control flow: bodies as closed traced functions, emitted into
the regions of `stablehlo.case`/`stablehlo.while` ops.

A construct's parameters are its bodies: closed functions (traced ones, or views of the regions
of an op read back from a module, see bodies.py). Values a body captured while being traced
become its trailing inputs, passed by the construct as operands; emitted into a region, a body
reads them from above. The rules build new bodies by tracing functions that call the walkers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import bodies, core, dispatch, dtypes, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters.batching import batch_traced, bdim_at_front
from stablax._src.interpreters.calls import close
from stablax._src.interpreters.interpret import interpret

# --- bodies ------------------------------------------------------------------------------------


def trace_body(fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]):
    """Traces `fun` (flat in, flat out): (closed function, the values it captured)."""
    traced = core.trace_to_func(fun, list(in_avals), name="body")
    return close(traced), list(traced.captured)


def share(traced: Sequence[tuple[Any, list[Any]]], num_args: int) -> tuple[list[Any], list[Any]]:
    """Bodies that take the same operands (branches, a loop's cond and body), from (closed body,
    captured values) pairs: each taking (its `num_args` inputs, every body's captured values),
    and those values, to pass as more operands. Rules that run user code (custom rules) in a
    new body can capture arrays the code closes over; this threads them through."""
    consts, positions = union_consts([captured for _, captured in traced])
    avals = [aval_of(c) for c in consts]
    fns = [widen(fn, num_args, at, avals) for (fn, _), at in zip(traced, positions, strict=True)]
    return fns, consts


def union_consts(captured_lists: Sequence[Sequence[Any]]) -> tuple[list[Any], list[list[int]]]:
    """One list of distinct captured values, and where each body's captures sit in it."""
    consts: list[Any] = []
    index: dict[int, int] = {}
    positions = []
    for captured in captured_lists:
        where = []
        for c in captured:
            if id(c) not in index:
                index[id(c)] = len(consts)
                consts.append(c)
            where.append(index[id(c)])
        positions.append(where)
    return consts, positions


def interpret_weakly_typed(fn: Any, args: Sequence[Any]) -> list[Any]:
    """`interpret(fn, args)` with `fn`'s weakly typed outputs weakly typed (interpreting re-emits
    constants strongly typed, which would make a loop's weak carry strong)."""
    return [
        dispatch.bind("stablehlo.convert", o, new_dtype=a.dtype, weak_type=True)
        if a.weak_type and not aval_of(o).weak_type
        else o
        for o, a in zip(interpret(fn, args), fn.out_avals, strict=True)
    ]


def widen(fn: Any, num_args: int, positions: Sequence[int], consts_avals) -> Any:
    """A closed body taking (args, all consts) instead of (args, its own consts)."""
    if list(positions) == list(range(len(consts_avals))):
        return fn

    def fun(*xs):
        args, consts = xs[:num_args], xs[num_args:]
        return interpret_weakly_typed(fn, [*args, *(consts[p] for p in positions)])

    return core.trace_to_func(fun, [*fn.in_avals[:num_args], *consts_avals], name="body")


def permuted(fn: Any, order: Sequence[int]) -> Any:
    """`fn` taking its inputs in `order` (order[i]: which original input comes i-th)."""
    if list(order) == list(range(len(order))):
        return fn

    def fun(*args):
        original: list[Any] = [None] * len(order)
        for position, j in enumerate(order):
            original[j] = args[position]
        return interpret_weakly_typed(fn, original)

    return core.trace_to_func(fun, [fn.in_avals[j] for j in order], name="body")


def linear_first(fn: Any, linear: Sequence[bool]) -> Any:
    """`fn` with its linear inputs first, for `ad.transpose_traced(..., num_linear=sum(linear))`."""
    order = [*(i for i, m in enumerate(linear) if m), *(i for i, m in enumerate(linear) if not m)]
    return permuted(fn, order)


def batched_body(fn: Any, in_mask, force, axis_size: int) -> tuple[Any, list[bool], list[Any]]:
    """`fn` with inputs batched at 0 where `in_mask`; outputs in `force` or batched come out
    batched at 0. Returns (the closed batched body, which outputs are batched, the values it
    captured: its trailing unbatched inputs)."""
    in_avals = [
        ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type) if m else a
        for a, m in zip(fn.in_avals, in_mask, strict=True)
    ]
    box: dict[str, Any] = {}

    def batched(*args):
        outs, out_dims = batch_traced(fn, args, [0 if m else None for m in in_mask], axis_size)
        box["mask"] = [d is not None or f for d, f in zip(out_dims, force, strict=True)]
        return [
            bdim_at_front(o, d, axis_size) if m else o
            for o, d, m in zip(outs, out_dims, box["mask"], strict=True)
        ]

    new, captured = trace_body(batched, in_avals)
    return new, box["mask"], captured


# --- emission ----------------------------------------------------------------------------------


def emit_region_body(region: Any, fn: Any, args: Sequence[Any], block_types=()) -> Any:
    """Fills `region` with one block (arguments of `block_types`) holding `fn` inlined on
    `args(block arguments)` and a `stablehlo.return` of its outputs."""
    block = region.blocks.append(*block_types)
    with mlir.ir.InsertionPoint(block):
        values = args(list(block.arguments)) if callable(args) else list(args)
        emit_return(bodies.inline(fn, values))
    return block


def emit_return(values: Sequence[Any]) -> None:
    mlir.emit("stablehlo.return", list(values), [])


def scalar_i32(value: int) -> Any:
    return mlir.constant(np.asarray(value, np.int32))


def check_body_inputs(what: str, fn: Any, avals: Sequence[ShapedArray]) -> None:
    """Raises TypeError when operand avals do not match a body's inputs (weak types aside)."""
    if [a.strip_weak_type() for a in fn.in_avals] != [a.strip_weak_type() for a in avals]:
        raise TypeError(
            f"{what}: operands {[a.str_short() for a in avals]} do not match the body's inputs "
            f"{[a.str_short() for a in fn.in_avals]}{mlir.where_suffix()}"
        )


# --- user-facing helpers -----------------------------------------------------------------------


def check_leaf_types(opname: str, leaves: Sequence[Any]) -> None:
    """TypeError, JAX's message, for a leaf that is no array: a str, bytes, None or another
    object NumPy only wraps (JAX takes every argument's type before its other checks)."""
    for leaf in leaves:
        if hasattr(leaf, "aval") or hasattr(leaf, "__jax_array__"):
            continue
        if isinstance(leaf, (str, bytes)) or np.asarray(leaf).dtype.kind in "OSUMm":
            raise TypeError(
                f"lax.{opname}: argument {leaf!r} of type {type(leaf).__name__} is not a valid "
                f"JAX type{mlir.where_suffix()}"
            )


def check_avals(
    what: str, expected: Sequence[ShapedArray], got: Sequence[ShapedArray], paths, message: str
) -> None:
    """Raises TypeError naming the first leaf whose shape or dtype differs (weak types aside)."""
    for e, g, path in zip(expected, got, paths, strict=True):
        if e.shape != g.shape or e.dtype != g.dtype:
            kind = "shapes" if e.shape != g.shape else "dtypes"
            raise TypeError(
                message.format(path=path, expected=e.str_short(), got=g.str_short(), kind=kind)
                + mlir.where_suffix()
            )


def leaf_paths(tree: Any, prefix: str) -> list[str]:
    """'c', 'c[0]', "c['a']" ... naming each leaf of `tree` for error messages."""
    paths = []
    for path, _ in tree_util.tree_flatten_with_path(tree)[0]:
        paths.append(prefix + tree_util.keystr(path))
    return paths


def weak_join(init: Sequence[Any], out_avals: Sequence[ShapedArray]) -> tuple[list[Any], bool]:
    """JAX's rule for weakly typed loop carries: a weak initial value whose dtype differs from
    the one the body gives it is converted (strongly typed) to the dtype both promote to; one
    that differs only in weak type stays as it is (the loop's result takes the body's weak type).
    Returns the values, whether any changed."""
    changed = False
    out = []
    for x, o in zip(init, out_avals, strict=True):
        a = aval_of(x)
        if a.weak_type and a.shape == o.shape and a.dtype != o.dtype:
            new_dtype = dtypes.result_type(x, o.dtype)
            if dtypes.is_python_scalar(x):
                x = dispatch.weak_scalar(x, a.dtype, weak_type=a.weak_type)
            x = dispatch.bind("stablehlo.convert", x, new_dtype=new_dtype, weak_type=False)
            changed = True
        out.append(x)
    return out, changed


def is_split_mode() -> bool:
    """Inside linearize: primal ops go to the primal trace (target), tangents to the current."""
    target = core.trace_state.target
    return target is not None and target is not core.current_trace()


def bind_construct(key: str, operands: Sequence[Any], **params: Any) -> list[Any]:
    out = dispatch.bind(key, *operands, **params)
    return list(out) if isinstance(out, tuple) else [out]


def split(values: Sequence[Any], *sizes: int) -> list[list[Any]]:
    """`values` cut into consecutive pieces of `sizes`, and the rest."""
    out, start = [], 0
    for n in sizes:
        out.append(list(values[start : start + n]))
        start += n
    out.append(list(values[start:]))
    return out


def scatter_mask(values: Sequence[Any], mask: Sequence[bool]) -> list[Any]:
    """`values` placed where `mask` is True, None elsewhere."""
    it = iter(values)
    return [next(it) if m else None for m in mask]


# --- the order of ordered effects through a construct ------------------------------------------
# An ordered host callback (lax/_host_callback.py) reads its function's `effect_chain` and
# becomes it. A loop or branch whose bodies hold one threads the chain through itself, as JAX
# threads a token: the bodies take it and return it, and the construct's output becomes the
# enclosing function's chain, so the effects after the construct come after those inside.

NO_ORDER = np.zeros((), np.bool_)


def has_ordered_effects(*fns: Any) -> bool:
    """Whether any of these traced bodies ran an ordered effect."""
    return any(getattr(fn, "trace", None) is not None and fn.trace.effect_chain is not None
               for fn in fns)  # fmt: skip


def effect_chain(trace: core.FuncTrace | None = None) -> Any:
    """The value ordered effects of `trace` (the current one by default) must come after: its
    own last one, an enclosing function's (read from above), or a constant when none ran yet."""
    trace = core.current_trace() if trace is None else trace
    if trace is None:
        return NO_ORDER
    stack = core.trace_state.stack
    for t in reversed(stack[: stack.index(trace) + 1] if trace in stack else [trace]):
        if t.effect_chain is not None:
            return t.effect_chain
    return trace.constant(NO_ORDER)


def chained(fun: Callable[..., Sequence[Any]], position: int, out_position: int):
    """`fun` (flat in, flat out) taking the order of effects as input `position` and returning
    it as output `out_position`."""

    def wrapped(*args: Any) -> list[Any]:
        trace = core.current_trace()
        trace.effect_chain = args[position]
        core.trace_state.ordered_effects = True
        outs = list(fun(*args[:position], *args[position + 1 :]))
        outs.insert(out_position, trace.effect_chain)
        return outs

    return wrapped


def end_chain(outs: Sequence[Any], position: int) -> list[Any]:
    """A construct's outputs less the order of effects at `position`, which becomes the current
    function's (nothing is traced eagerly)."""
    outs = list(outs)
    chain = outs.pop(position)
    trace = core.current_trace()
    if trace is not None:
        trace.effect_chain = chain
    return outs
