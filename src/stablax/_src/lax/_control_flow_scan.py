"""lax.scan: the `stablax.scan` construct, a call of a wrapper holding a `stablehlo.while` that
slices xs, calls the body and stacks ys; its batching rule; and the user-facing `scan`. Its jvp
and transpose rules are in _control_flow_scan_ad.py.

Operands are (carry..., xs..., consts...); the body callee maps (carry, x, consts) to (carry, y).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dispatch, tree_util
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray, Tracer
from stablax._src.ir import ir
from stablax._src.lax import _control_flow_common as cf
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._batch_rules import bdim_at_front, moveaxis
from stablax._src.lax._shapes import aval_of
from stablax._src.transforms.batching import batch_traced

SCAN = "stablax.scan"


def stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def unstacked(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def split(values: Sequence[Any], *sizes: int) -> list[list[Any]]:
    out, start = [], 0
    for n in sizes:
        out.append(list(values[start : start + n]))
        start += n
    out.append(list(values[start:]))
    return out


# --- the construct -----------------------------------------------------------------------------


def _scan_rule(*avals, body, length, reverse, num_carry, num_xs, unroll):
    fn = cf.body_fn(body)
    carry, xs, consts = split(avals, num_carry, num_xs)
    where = mlir.where_suffix()
    expected = [a.strip_weak_type() for a in fn.in_avals]
    got = [a.strip_weak_type() for a in [*carry, *(unstacked(x) for x in xs), *consts]]
    if any(x.ndim == 0 or x.shape[0] != length for x in xs) or got != expected:
        raise TypeError(
            f"lax.scan: operands {[a.str_short() for a in avals]} do not match a body of "
            f"{[a.str_short() for a in fn.in_avals]} over {length} steps{where}"
        )
    return (*carry, *(stacked(y, length) for y in fn.out_avals[num_carry:]))


def _build_scan(*, body, length, reverse, num_carry, num_xs, unroll):
    fn = cf.body_fn(body)
    carry_avals, x_avals, k_avals = split(fn.in_avals, num_carry, num_xs)
    y_avals = fn.out_avals[num_carry:]
    in_avals = [*carry_avals, *(stacked(a, length) for a in x_avals), *k_avals]
    out_avals = [*carry_avals, *(stacked(a, length) for a in y_avals)]

    def step(i, carry, ys, xs, consts):
        # i: the step number (tensor<i32>); reverse scans visit index length - 1 - i.
        idx = _sub(cf.scalar_i32(length - 1), i) if reverse else i
        zero = cf.scalar_i32(0)
        slices = []
        for x, a in zip(xs, x_avals, strict=True):
            sizes = [1, *a.shape]
            piece = mlir.emit(
                "stablehlo.dynamic_slice",
                [x, idx, *([zero] * a.ndim)],
                [mlir.tensor_type(sizes, a.dtype)],
                {"slice_sizes": mlir.i64_array(sizes)},
            ).result
            slices.append(_reshape(piece, a.shape, a.dtype))
        outs = cf.emit_call(body, [*carry, *slices, *consts])
        new_ys = []
        for y_stack, y, a in zip(ys, outs[num_carry:], y_avals, strict=True):
            update = _reshape(y, (1, *a.shape), a.dtype)
            new_ys.append(
                mlir.emit(
                    "stablehlo.dynamic_update_slice",
                    [y_stack, update, idx, *([zero] * a.ndim)],
                    [y_stack.type],
                ).result
            )
        return outs[:num_carry], new_ys

    def emit_body(values):
        carry, xs, consts = split(values, num_carry, num_xs)
        ys = [_zeros(stacked(a, length)) for a in y_avals]
        if length == 0:
            return [*carry, *ys], out_avals
        per_trip = length if unroll is True else max(1, min(int(unroll), length))
        trips = length // per_trip
        done = 0
        if trips > 1:
            carry, ys = _emit_loop(step, carry, ys, xs, consts, trips, per_trip)
            done = trips * per_trip
        for s in range(done, length):  # straight-line steps: a short scan or the remainder
            carry, ys = step(cf.scalar_i32(s), carry, ys, xs, consts)
        return [*carry, *ys], out_avals

    return cf.build_wrapper(in_avals, emit_body, [body])


def _emit_loop(step, carry, ys, xs, consts, trips: int, per_trip: int):
    """A `stablehlo.while` over `trips` iterations of `per_trip` steps; everything it reads is
    threaded through the loop state, as XLA wants."""
    state = [cf.scalar_i32(0), *carry, *ys, *xs, *consts]
    types = [v.type for v in state]
    loop = mlir.emit("stablehlo.while", state, types, regions=2)
    cond_block = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        limit = cf.scalar_i32(trips * per_trip)
        cf.emit_return([_compare(cond_block.arguments[0], limit, "LT")])
    body_block = loop.regions[1].blocks.append(*types)
    n_c, n_y, n_x = len(carry), len(ys), len(xs)
    with ir.InsertionPoint(body_block):
        i, c, y, x, k = split(list(body_block.arguments), 1, n_c, n_y, n_x)
        i = i[0]
        for s in range(per_trip):
            c, y = step(i if s == 0 else _add(i, cf.scalar_i32(s)), c, y, x, k)
        cf.emit_return([_add(i, cf.scalar_i32(per_trip)), *c, *y, *x, *k])
    results = list(loop.results)
    return results[1 : 1 + n_c], results[1 + n_c : 1 + n_c + n_y]


def _zeros(aval: ShapedArray) -> Any:
    scalar = mlir.constant(np.zeros((), aval.dtype))
    if not aval.shape:
        return scalar
    return mlir.emit(
        "stablehlo.broadcast_in_dim",
        [scalar],
        [mlir.aval_type(aval)],
        {"broadcast_dimensions": mlir.i64_array([])},
    ).result


def _reshape(value, shape, dtype):
    return mlir.emit("stablehlo.reshape", [value], [mlir.tensor_type(shape, dtype)]).result


def _add(a, b):
    return mlir.emit("stablehlo.add", [a, b], [a.type]).result


def _sub(a, b):
    return mlir.emit("stablehlo.subtract", [a, b], [a.type]).result


def _compare(a, b, direction: str):
    attrs = {"comparison_direction": mlir.stablehlo.ComparisonDirectionAttr.get(direction)}
    return mlir.emit(
        "stablehlo.compare", [a, b], [mlir.tensor_type((), np.dtype(bool))], attrs
    ).result


def bind_scan(operands, *, body, length, reverse, num_carry, num_xs, unroll) -> list[Any]:
    return cf.bind_construct(
        SCAN,
        operands,
        body=body,
        length=length,
        reverse=reverse,
        num_carry=num_carry,
        num_xs=num_xs,
        unroll=unroll,
    )


# --- batching ----------------------------------------------------------------------------------


def _scan_batch(values, dims, *, axis_size, body, length, reverse, num_carry, num_xs, unroll):
    fn = cf.body_fn(body)
    n_c, n_x = num_carry, num_xs
    c, x, k = split(values, n_c, n_x)
    cd, xd, kd = split(dims, n_c, n_x)
    # Batched xs carry their batch dimension at 1 (0 is the scanned axis); the rest at 0.
    x = [v if d is None else moveaxis(v, d, 1) for v, d in zip(x, xd, strict=True)]
    k = [v if d is None else moveaxis(v, d, 0) for v, d in zip(k, kd, strict=True)]
    x_mask = [d is not None for d in xd]
    k_mask = [d is not None for d in kd]
    carry_mask = [d is not None for d in cd]
    while True:
        name, out_mask, y_mask = _batched_body(fn, carry_mask, x_mask, k_mask, n_c, axis_size)
        if out_mask == carry_mask:
            break
        carry_mask = [a or b for a, b in zip(carry_mask, out_mask, strict=True)]
    c = [
        bdim_at_front(v, d, axis_size) if m else v
        for v, d, m in zip(c, cd, carry_mask, strict=True)
    ]
    outs = bind_scan(
        [*c, *x, *k],
        body=name,
        length=length,
        reverse=reverse,
        num_carry=n_c,
        num_xs=n_x,
        unroll=unroll,
    )
    out_dims = [0 if m else None for m in carry_mask] + [1 if m else None for m in y_mask]
    return outs, out_dims


def _batched_body(fn, carry_mask, x_mask, k_mask, n_c, axis_size):
    """The body with batched inputs at axis 0; carries in `carry_mask` come out batched at 0,
    ys batched at 0 where the body batches them."""
    masks = [*carry_mask, *x_mask, *k_mask]
    in_avals = [
        ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type) if m else a
        for a, m in zip(fn.in_avals, masks, strict=True)
    ]
    box: dict[str, Any] = {}

    def batched(*args):
        outs, out_dims = batch_traced(fn, args, [0 if m else None for m in masks], axis_size)
        box["out_mask"] = [d is not None for d in out_dims[:n_c]]
        box["y_mask"] = [d is not None for d in out_dims[n_c:]]
        result = []
        for i, (o, d) in enumerate(zip(outs, out_dims, strict=True)):
            force = i < n_c and carry_mask[i]
            result.append(bdim_at_front(o, d, axis_size) if d is not None or force else o)
        return result

    name = cf.trace_registered(batched, in_avals)
    out_mask = [a or b for a, b in zip(box["out_mask"], carry_mask, strict=True)]
    return name, out_mask, box["y_mask"]


dispatch.def_op(
    SCAN,
    _scan_rule,
    cf.construct_lowering(SCAN, _build_scan),
    decode=cf.decode_construct,
)
dispatch.batch_rules[SCAN] = _scan_batch


# --- the user-facing function ------------------------------------------------------------------


def scan(
    f: Callable,
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
    _split_transpose: bool = False,
) -> tuple[Any, Any]:
    """Loops `carry, y = f(carry, x)` over the leading axis of `xs`, stacking the ys.

    Lowers to a `stablehlo.while` (inside a private function that XLA inlines); differentiable
    in both modes: reverse mode stacks the body's residuals and runs the transposed body
    backwards. Example: `lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))`.

    Args:
      f: (carry, x) -> (carry, y), carry keeping its pytree structure, shapes and dtypes.
      init: the initial carry (a pytree of arrays).
      xs: a pytree of arrays scanned along axis 0, or None (then `length` is required).
      length: the number of steps, when xs is None (or as a check).
      reverse: scan from the end; ys keep the input order.
      unroll: steps per loop iteration (True: the whole loop unrolled).

    Returns:
      (final carry, stacked ys).
    """
    check_callable("lax.scan", f, "f")
    x_leaves, x_tree = tree_util.tree_flatten(xs)
    x_avals = [aval_of(x) for x in x_leaves]
    for a in x_avals:
        if a.ndim == 0:
            raise ValueError(
                "scan got value with no leading axis to scan over: "
                f"{a.str_short()}{mlir.where_suffix()}"
            )
    lengths = [a.shape[0] for a in x_avals]
    if length is not None:
        length = _static_length(length)
        if any(n != length for n in lengths):
            raise ValueError(
                f"scan got `length` argument of {length} which disagrees with leading axis "
                f"sizes {lengths}."
            )
    elif not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    elif len(set(lengths)) > 1:
        raise ValueError(
            f"scan got values with different leading axis sizes: {', '.join(map(str, lengths))}."
        )
    else:
        length = lengths[0]
    init_leaves, init_tree = tree_util.tree_flatten(init)
    n_c = len(init_leaves)
    box: dict[str, Any] = {}

    def flat_body(*args):
        carry = tree_util.tree_unflatten(init_tree, list(args[:n_c]))
        x = tree_util.tree_unflatten(x_tree, list(args[n_c:]))
        out = f(carry, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"scan body output must be a pair, got {_describe(out)}.")
        carry_out, y = out
        c_leaves, c_tree = tree_util.tree_flatten(carry_out)
        if c_tree != init_tree:
            raise TypeError(
                "scan body function carry input and carry output must have the same pytree "
                f"structure, but they differ: the input carry has structure {init_tree} but "
                f"the output carry has structure {c_tree}{mlir.where_suffix()}."
            )
        y_leaves, box["y_tree"] = tree_util.tree_flatten(y)
        return [*c_leaves, *y_leaves]

    def trace(carry):
        return cf.trace_body(flat_body, [*map(aval_of, carry), *map(unstacked, x_avals)])

    traced, captured = trace(init_leaves)
    init_leaves, changed = cf.weak_join(init_leaves, traced.out_avals[:n_c])
    if changed:
        traced, captured = trace(init_leaves)
    cf.check_avals(
        "scan",
        [aval_of(c) for c in init_leaves],
        traced.out_avals[:n_c],
        cf.leaf_paths(init, "c"),
        "scan body function carry input and carry output must have equal types, but they "
        "differ: the body returned {got} where the carry {path} is {expected}, so the {kind} "
        "do not match. Revise the function so that all output types match the corresponding "
        "input types",
    )
    name = cf.register_body(traced)
    unroll_param = (
        True
        if unroll is True or (unroll is not False and int(unroll) >= length)
        else (max(1, int(unroll)))
    )
    outs = bind_scan(
        [*init_leaves, *x_leaves, *captured],
        body=name,
        length=length,
        reverse=bool(reverse),
        num_carry=n_c,
        num_xs=len(x_leaves),
        unroll=unroll_param if length else 1,
    )
    carry = tree_util.tree_unflatten(init_tree, outs[:n_c])
    ys = tree_util.tree_unflatten(box["y_tree"], outs[n_c:])
    return carry, ys


def _static_length(length: Any) -> int:
    if isinstance(length, Tracer):
        raise core.ConcretizationTypeError(
            f"scan: `length` must be a static Python int, got a traced value{mlir.where_suffix()}"
        )
    return int(length)


def _describe(out: Any) -> str:
    leaves = tree_util.tree_leaves(out)
    if len(leaves) == 1 and not isinstance(out, (tuple, list)):
        return f"~{aval_of(leaves[0]).str_short()}"
    return type(out).__name__
