"""lax.scan: the `stablax.scan` construct, a call of a wrapper holding a `stablehlo.while` that
slices xs, calls the body and stacks ys; its jvp (forward, and split in two under linearize),
transpose (a reverse scan of the transposed body) and batching rules.

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
from stablax._src.lax._batch_rules import bdim_at_front, moveaxis
from stablax._src.lax._shapes import aval_of
from stablax._src.transforms import ad
from stablax._src.transforms.batching import batch_traced
from stablax._src.transforms.interpret import interpret

SCAN = "stablax.scan"


def stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def unstacked(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def _split(values: Sequence[Any], *sizes: int) -> list[list[Any]]:
    out, start = [], 0
    for n in sizes:
        out.append(list(values[start : start + n]))
        start += n
    out.append(list(values[start:]))
    return out


# --- the construct -----------------------------------------------------------------------------


def _scan_rule(*avals, body, length, reverse, num_carry, num_xs, unroll):
    fn = cf.body_fn(body)
    carry, xs, consts = _split(avals, num_carry, num_xs)
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
    carry_avals, x_avals, k_avals = _split(fn.in_avals, num_carry, num_xs)
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
        carry, xs, consts = _split(values, num_carry, num_xs)
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
        i, c, y, x, k = _split(list(body_block.arguments), 1, n_c, n_y, n_x)
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


# --- jvp ---------------------------------------------------------------------------------------


def _tangent_zeros(aval: ShapedArray) -> Any:
    return ad.zeros_like_aval(ad.tangent_aval(aval))


def _differentiable(aval: ShapedArray) -> bool:
    return ad.is_differentiable_dtype(aval.dtype)


def _scan_jvp(primals, tangents, *, body, length, reverse, num_carry, num_xs, unroll):
    fn = cf.body_fn(body)
    n_c, n_x = num_carry, num_xs
    rest_mask = [t is not None for t in tangents[n_c:]]
    carry_mask = [t is not None for t in tangents[:n_c]]
    params = dict(length=length, reverse=reverse, unroll=unroll)
    if cf.is_split_mode():
        return _scan_linearize(fn, primals, tangents, carry_mask, rest_mask, n_c, n_x, params)
    while True:  # which carries have nonzero tangents: grow until the body agrees
        jvp_name, out_mask, y_mask = _jvp_body(fn, carry_mask, rest_mask, n_c, n_x)
        if out_mask == carry_mask:
            break
        carry_mask = [a or b for a, b in zip(carry_mask, out_mask, strict=True)]
    c, x, k = _split(primals, n_c, n_x)
    ct, xt, kt = _split(tangents, n_c, n_x)
    ct = [
        ad.instantiate(t, ad.tangent_aval(aval_of(p)))
        for p, t, m in zip(c, ct, carry_mask, strict=True)
        if m
    ]
    xt = [t for t in xt if t is not None]
    kt = [t for t in kt if t is not None]
    outs = bind_scan(
        [*c, *ct, *x, *xt, *k, *kt],
        body=jvp_name,
        num_carry=n_c + len(ct),
        num_xs=n_x + len(xt),
        **params,
    )
    n_y = len(fn.out_avals) - n_c
    c_out, ct_out, y_out, yt_out = _split(outs, n_c, len(ct), n_y)
    ct_iter, yt_iter = iter(ct_out), iter(yt_out)
    carry_t = [next(ct_iter) if m else None for m in carry_mask]
    ys_t = [next(yt_iter) if m else None for m in y_mask]
    return [*c_out, *y_out], [*carry_t, *ys_t]


def _jvp_body(fn, carry_mask, rest_mask, n_c, n_x):
    """The jvp of a scan body laid out as a scan body: (carry, carry tangents, x, x tangents,
    consts, const tangents) -> (carry, carry tangents, y, nonzero y tangents)."""
    c_avals, x_avals, k_avals = _split(fn.in_avals, n_c, n_x)
    x_mask, k_mask = rest_mask[:n_x], rest_mask[n_x:]

    def tangents_of(avals, mask):
        return [ad.tangent_aval(a) for a, m in zip(avals, mask, strict=True) if m]

    in_avals = [
        *c_avals,
        *tangents_of(c_avals, carry_mask),
        *x_avals,
        *tangents_of(x_avals, x_mask),
        *k_avals,
        *tangents_of(k_avals, k_mask),
    ]
    box: dict[str, Any] = {}

    def jvp_body(*args):
        c, ct, x, xt, k, kt = _split(
            args, n_c, sum(carry_mask), len(x_avals), sum(x_mask), len(k_avals)
        )
        tangents = [*_scatter(ct, carry_mask), *_scatter(xt, x_mask), *_scatter(kt, k_mask)]
        outs, touts = ad.jvp_traced(fn, [*c, *x, *k], tangents)
        box["out_mask"] = [t is not None for t in touts[:n_c]]
        box["y_mask"] = [t is not None for t in touts[n_c:]]
        carry_t = [
            ad.instantiate(t, ad.tangent_aval(a))
            for t, a, m in zip(touts[:n_c], c_avals, carry_mask, strict=True)
            if m
        ]
        ys_t = [t for t in touts[n_c:] if t is not None]
        return [*outs[:n_c], *carry_t, *outs[n_c:], *ys_t]

    name = cf.trace_registered(jvp_body, in_avals)
    out_mask = [a or b for a, b in zip(box["out_mask"], carry_mask, strict=True)]
    return name, out_mask, box["y_mask"]


def _scatter(values: Sequence[Any], mask: Sequence[bool]) -> list[Any]:
    it = iter(values)
    return [next(it) if m else None for m in mask]


# --- linearize: a primal scan that also stacks residuals, and a linear scan ---------------------


def _scan_linearize(fn, primals, tangents, carry_mask, rest_mask, n_c, n_x, params):
    linear_trace = core.current_trace()
    while True:
        lin = ad.linearize_traced(fn, [*carry_mask, *rest_mask])
        out_mask = [not z for z in lin.out_tangent_zero[:n_c]]
        grown = [a or b for a, b in zip(carry_mask, out_mask, strict=True)]
        if grown == carry_mask:
            break
        carry_mask = grown
    n_out = len(fn.out_avals)
    k_args = lin.primal_fn.trace.args
    # Each captured value of the linear body: a residual that varies per step (stacked by the
    # primal scan), a body input passed straight through (xs or consts), or a constant.
    stacked_res: list[int] = []  # primal body outputs to stack
    plan: list[tuple[str, int]] = []  # per captured value of L: (kind, index)
    through_x: list[int] = []
    through_k: list[Any] = []
    for slot, value in zip(lin.residual_slots, lin.linear_fn.captured, strict=True):
        arg = next((j for j, a in enumerate(k_args) if a is value), None)
        if slot is None:
            plan.append(("const", len(through_k)))
            through_k.append(value)
        elif arg is not None and n_c <= arg < n_c + n_x:
            plan.append(("x", len(through_x)))
            through_x.append(arg - n_c)
        elif arg is not None and arg >= n_c + n_x:
            plan.append(("const", len(through_k)))
            through_k.append(primals[arg])
        else:
            plan.append(("res", len(stacked_res)))
            stacked_res.append(slot)
    # The primal scan: the primal body returning (carry, ys, stacked residuals).
    primal_body = cf.close(lin.primal_fn)
    keep = [*range(n_out), *stacked_res]

    def forward(*args):
        outs = interpret(primal_body, args)
        return [outs[i] for i in keep]

    fwd_name = cf.trace_registered(forward, fn.in_avals)
    outs = bind_scan(list(primals), body=fwd_name, num_carry=n_c, num_xs=n_x, **params)
    primal_outs, res_stacks = outs[:n_out], outs[n_out:]
    # The linear scan: carry tangents; xs = (x tangents, residual stacks, xs read by the linear
    # body); consts = (const tangents, consts and constants read by the linear body).
    x_mask, k_mask = rest_mask[:n_x], rest_mask[n_x:]
    linear_body = cf.close(lin.linear_fn)
    out_zero = lin.out_tangent_zero
    c_avals = fn.in_avals[:n_c]
    x_avals = fn.in_avals[n_c : n_c + n_x]
    ct_avals = [ad.tangent_aval(a) for a, m in zip(c_avals, carry_mask, strict=True) if m]
    xt_avals = [ad.tangent_aval(a) for a, m in zip(x_avals, x_mask, strict=True) if m]
    kt_avals = [
        ad.tangent_aval(a) for a, m in zip(fn.in_avals[n_c + n_x :], k_mask, strict=True) if m
    ]
    res_avals = [unstacked(aval_of(r)) for r in res_stacks]
    tx_avals = [x_avals[j] for j in through_x]
    tk_avals = [aval_of(v) for v in through_k]
    in_avals = [*ct_avals, *xt_avals, *res_avals, *tx_avals, *kt_avals, *tk_avals]
    sizes = (len(ct_avals), len(xt_avals), len(res_avals), len(tx_avals), len(kt_avals))

    def linear(*args):
        ct, xt, res, tx, kt, tk = _split(args, *sizes)
        captured = [{"res": res, "x": tx, "const": tk}[kind][i] for kind, i in plan]
        outs = iter(interpret(linear_body, [*ct, *xt, *kt, *captured]))
        touts = [None if z else next(outs) for z in out_zero]
        carry_t = [
            ad.instantiate(t, a)
            for t, a, m in zip(touts[:n_c], c_avals, carry_mask, strict=True)
            if m
        ]
        return [*carry_t, *(t for t in touts[n_c:] if t is not None)]

    lin_name = cf.trace_registered(linear, in_avals)
    ct, xt, kt = _split(tangents, n_c, n_x)
    with core.emitting_into(linear_trace):
        ct = [
            ad.instantiate(t, ad.tangent_aval(a))
            for t, a, m in zip(ct, c_avals, carry_mask, strict=True)
            if m
        ]
    xs = primals[n_c : n_c + n_x]
    operands = [
        *ct,
        *(t for t in xt if t is not None),
        *res_stacks,
        *(xs[j] for j in through_x),
        *(t for t in kt if t is not None),
        *through_k,
    ]
    touts = bind_scan(
        operands,
        body=lin_name,
        num_carry=len(ct),
        num_xs=sizes[1] + sizes[2] + sizes[3],
        **params,
    )
    carry_t_out, y_t_out = touts[: len(ct)], iter(touts[len(ct) :])
    carry_iter = iter(carry_t_out)
    carry_t = [next(carry_iter) if m else None for m in carry_mask]
    ys_t = [None if z else next(y_t_out) for z in out_zero[n_c:]]
    return primal_outs, [*carry_t, *ys_t]


# --- transpose: a reverse scan of the transposed body ------------------------------------------


def _scan_transpose(cts, *operands, body, length, reverse, num_carry, num_xs, unroll):
    fn = cf.body_fn(body)
    n_c, n_x = num_carry, num_xs
    carry, xs, consts = _split(operands, n_c, n_x)
    x_lin = [ad.is_undefined(x) for x in xs]
    k_lin = [ad.is_undefined(k) for k in consts]
    cts = list(cts) if isinstance(cts, (list, tuple)) else [cts]
    c_avals, x_avals, k_avals = _split(fn.in_avals, n_c, n_x)
    y_avals = fn.out_avals[n_c:]
    ct_carry = [
        ad.instantiate(c, ad.tangent_aval(a)) for c, a in zip(cts[:n_c], c_avals, strict=True)
    ]
    y_mask = [c is not None for c in cts[n_c:]]
    ct_ys = [c for c in cts[n_c:] if c is not None]
    x_res = [x for x, m in zip(xs, x_lin, strict=True) if not m]
    k_res = [k for k, m in zip(consts, k_lin, strict=True) if not m]
    k_lin_avals = [ad.tangent_aval(a) for a, m in zip(k_avals, k_lin, strict=True) if m]
    # The body with its linear inputs (carry, linear xs, linear consts) first.
    linear_view = cf.linear_first(fn, [*([True] * n_c), *x_lin, *k_lin])
    lin_x_avals = [ad.tangent_aval(a) for a, m in zip(x_avals, x_lin, strict=True) if m]

    def transposed(*args):
        ct_c, acc, ct_y, xr, kr = _split(args, n_c, len(k_lin_avals), len(ct_ys), len(x_res))
        ct_y_full = _scatter(ct_y, y_mask)
        in_cts = ad.transpose_traced(linear_view, [*xr, *kr], [*ct_c, *ct_y_full])
        avals = [*(ad.tangent_aval(a) for a in c_avals), *lin_x_avals, *k_lin_avals]
        in_cts = [ad.instantiate(c, a) for c, a in zip(in_cts, avals, strict=True)]
        c_in, x_in, k_in = _split(in_cts, n_c, len(lin_x_avals))
        acc = [ad.add_tangents(a, k) for a, k in zip(acc, k_in, strict=True)]
        return [*c_in, *acc, *x_in]

    in_avals = [
        *(ad.tangent_aval(a) for a in c_avals),
        *k_lin_avals,
        *(ad.tangent_aval(y) for y, m in zip(y_avals, y_mask, strict=True) if m),
        *(unstacked(aval_of(x)) for x in x_res),
        *(aval_of(k) for k in k_res),
    ]
    name = cf.trace_registered(transposed, in_avals)
    acc0 = [ad.zeros_like_aval(a) for a in k_lin_avals]
    outs = bind_scan(
        [*ct_carry, *acc0, *ct_ys, *x_res, *k_res],
        body=name,
        length=length,
        reverse=not reverse,
        num_carry=n_c + len(acc0),
        num_xs=len(ct_ys) + len(x_res),
        unroll=unroll,
    )
    ct_init, ct_k, ct_x = _split(outs, n_c, len(acc0))
    ct_x_iter, ct_k_iter = iter(ct_x), iter(ct_k)
    return [
        *ct_init,
        *(next(ct_x_iter) if m else None for m in x_lin),
        *(next(ct_k_iter) if m else None for m in k_lin),
    ]


# --- batching ----------------------------------------------------------------------------------


def _scan_batch(values, dims, *, axis_size, body, length, reverse, num_carry, num_xs, unroll):
    fn = cf.body_fn(body)
    n_c, n_x = num_carry, num_xs
    c, x, k = _split(values, n_c, n_x)
    cd, xd, kd = _split(dims, n_c, n_x)
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
    jvp=_scan_jvp,
    transpose=_scan_transpose,
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
