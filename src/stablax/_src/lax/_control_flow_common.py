"""Shared machinery of structured control flow: traced bodies as callees, constructs as calls.

Each construct (cond, while, scan) is a `func.call` to a private wrapper function that holds the
`stablehlo.case`/`stablehlo.while`, whose regions call the traced bodies. The wrapper's name maps
to the construct's rule-table key (`calls.op_keys`), so rewrites see one op with operands and
decoded params; XLA inlines the calls. Bodies are "closed": values they capture become explicit
trailing inputs, so every construct passes them as operands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablax._src import core, dispatch, tree_util
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray, Tracer
from stablax._src.ir import ir
from stablax._src.lax._batch_rules import bdim_at_front
from stablax._src.lax._shapes import aval_of
from stablax._src.transforms import calls
from stablax._src.transforms.batching import batch_traced
from stablax._src.transforms.interpret import interpret

# --- bodies ------------------------------------------------------------------------------------


def close(traced: core.TracedFunction) -> core.TracedFunction:
    """The same function with its captured values as ordinary trailing inputs."""
    if not traced.captured:
        return traced
    in_avals = [*traced.in_avals, *(aval_of(c) for c in traced.captured)]
    return core.TracedFunction(traced.module, in_avals, traced.out_avals, [], traced.trace)


def trace_body(fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]):
    """Traces `fun` (flat in, flat out): (closed function, the values it captured)."""
    traced = core.trace_to_func(fun, list(in_avals), name="body")
    return close(traced), list(traced.captured)


def register_body(traced: core.TracedFunction) -> str:
    """A name under which a closed body can be called from a wrapper (shared by content)."""
    callee, _ = calls.register_callee("body", traced, None, None)
    return callee.name


def body_fn(name: str) -> core.TracedFunction:
    return calls.callees[name].traced


def trace_registered(fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]) -> str:
    """Traces a body that must not capture traced values (rules build them from closed parts);
    captured concrete constants are not expected either."""
    traced, captured = trace_body(fun, in_avals)
    if captured:
        raise RuntimeError("stablax: internal error, a rewritten control-flow body captured values")
    return register_body(traced)


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


def widen(traced: core.TracedFunction, num_args: int, positions: Sequence[int], consts_avals):
    """A closed body taking (args, all consts) instead of (args, its own consts)."""
    if list(positions) == list(range(len(consts_avals))):
        return traced

    def fun(*xs):
        args, consts = xs[:num_args], xs[num_args:]
        return interpret(traced, [*args, *(consts[p] for p in positions)])

    return core.trace_to_func(fun, [*traced.in_avals[:num_args], *consts_avals], name="body")


def permuted(fn: core.TracedFunction, order: Sequence[int]) -> core.TracedFunction:
    """`fn` taking its inputs in `order` (order[i]: which original input comes i-th)."""
    if list(order) == list(range(len(order))):
        return fn

    def fun(*args):
        original: list[Any] = [None] * len(order)
        for position, j in enumerate(order):
            original[j] = args[position]
        return interpret(fn, original)

    return core.trace_to_func(fun, [fn.in_avals[j] for j in order], name="body")


def linear_first(fn: core.TracedFunction, linear: Sequence[bool]) -> core.TracedFunction:
    """A view of `fn` for `ad.transpose_traced`: its linear inputs first, as its only inputs;
    the others become the values passed as captured."""
    order = [*(i for i, m in enumerate(linear) if m), *(i for i, m in enumerate(linear) if not m)]
    moved = permuted(fn, order)
    n = sum(linear)
    return core.TracedFunction(moved.module, moved.in_avals[:n], moved.out_avals, [], moved.trace)


# --- wrappers: a construct as a call -----------------------------------------------------------

_wrappers: dict[tuple, calls.Callee] = {}


def wrapper_callee(key: str, params: dict[str, Any], build: Callable[[], Any]) -> calls.Callee:
    """The wrapper function of construct `key` with `params` (built once, then cached)."""
    cache_key = (key, tuple(params.items()))
    callee = _wrappers.get(cache_key)
    if callee is None:
        traced = build()
        # Named "scan_3" etc.: a "stablax." prefix in a module would mark it for marker stripping.
        kind = key.rsplit(".", 1)[-1]
        callee, _ = calls.register_callee(kind, traced, dict(params), cache_key)
        calls.op_keys[callee.name] = key
        _wrappers[cache_key] = callee
    return callee


def construct_lowering(key: str, build: Callable[..., Any]):
    """The lowering of a construct: a call of its wrapper built by `build(**params)`."""

    def lower(operands, in_avals, out_avals, **params):
        callee = wrapper_callee(key, params, lambda: build(**params))
        return calls._call_lowering(operands, in_avals, out_avals, callee=callee.name)

    return lower


def decode_construct(op: Any) -> dict[str, Any]:
    return dict(calls.callees[ir.FlatSymbolRefAttr(op.attributes["callee"]).value].rule)


def build_wrapper(in_avals: Sequence[ShapedArray], emit_body: Callable, bodies: Sequence[str]):
    """Traces a wrapper function: `emit_body(values)` emits raw MLIR at the function's insertion
    point and returns (result values, their avals). The bodies it calls are cloned into it."""

    def fun(*args):
        trace = core.current_trace()
        for name in bodies:
            calls._ensure_callee_in_module(trace, calls.callees[name])
        values, avals = emit_body([a.value for a in args])
        return [Tracer(trace, a, v) for a, v in zip(avals, values, strict=True)]

    return core.trace_to_func(fun, list(in_avals), name="construct")


def emit_call(name: str, operands: Sequence[Any]) -> list[Any]:
    traced = body_fn(name)
    op = mlir.emit(
        "func.call",
        list(operands),
        [mlir.aval_type(a) for a in traced.out_avals],
        {"callee": ir.FlatSymbolRefAttr.get(name)},
    )
    return list(op.results)


def emit_inlined_call(name: str, operands: Sequence[Any]) -> list[Any]:
    return list(
        mlir._jax_mlir_ext.inlined_func_call(body_fn(name).func_op.operation, list(operands))
    )


def emit_return(values: Sequence[Any]) -> None:
    mlir.emit("stablehlo.return", list(values), [])


def scalar_i32(value: int) -> Any:
    import numpy as np

    return mlir.constant(np.asarray(value, np.int32))


# --- user-facing helpers -----------------------------------------------------------------------


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
    """JAX's rule for weakly typed loop carries: a weak initial value takes the dtype (and
    strength) the body gives it when it promotes to it. Returns the values, whether any changed."""
    from stablax._src import dtypes
    from stablax._src.lax._shapes import convert_element_type

    changed = False
    out = []
    for x, o in zip(init, out_avals, strict=True):
        a = aval_of(x)
        promotes = a.dtype == o.dtype or dtypes.result_type(x, o.dtype) == o.dtype
        if (
            a.weak_type
            and a.shape == o.shape
            and promotes
            and (a.dtype != o.dtype or not o.weak_type)
        ):
            x = convert_element_type(x, o.dtype, weak_type=o.weak_type)
            changed = True
        out.append(x)
    return out, changed


def operand_values(leaves: Sequence[Any]) -> list[Any]:
    """Leaves as values bind accepts (NumPy and Python scalars stay as they are)."""
    return list(leaves)


def is_split_mode() -> bool:
    """Inside linearize: primal ops go to the primal trace (target), tangents to the current."""
    target = core.trace_state.target
    return target is not None and target is not core.current_trace()


def bind_construct(key: str, operands: Sequence[Any], **params: Any) -> list[Any]:
    out = dispatch.bind(key, *operands, **params)
    return list(out) if isinstance(out, tuple) else [out]


def batched_callee(fn, in_mask, force, axis_size):
    """`fn` with inputs batched at 0 where `in_mask`; outputs in `force` or batched come out
    batched at 0. Returns (name, which outputs are batched)."""
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

    return trace_registered(batched, in_avals), box["mask"]
