"""Derivative rules of lax.scan: jvp (a scan of the jvp of the body, split in two under
linearize: a primal scan stacking residuals and a linear scan) and transpose (a reverse scan of
the transposed body).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stablax._src import core, dispatch
from stablax._src.lax import _control_flow_common as cf
from stablax._src.lax._control_flow_scan import SCAN, bind_scan, split, unstacked
from stablax._src.lax._shapes import aval_of
from stablax._src.transforms import ad
from stablax._src.transforms.interpret import interpret

# --- jvp ---------------------------------------------------------------------------------------


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
    c, x, k = split(primals, n_c, n_x)
    ct, xt, kt = split(tangents, n_c, n_x)
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
    c_out, ct_out, y_out, yt_out = split(outs, n_c, len(ct), n_y)
    ct_iter, yt_iter = iter(ct_out), iter(yt_out)
    carry_t = [next(ct_iter) if m else None for m in carry_mask]
    ys_t = [next(yt_iter) if m else None for m in y_mask]
    return [*c_out, *y_out], [*carry_t, *ys_t]


def _jvp_body(fn, carry_mask, rest_mask, n_c, n_x):
    """The jvp of a scan body laid out as a scan body: (carry, carry tangents, x, x tangents,
    consts, const tangents) -> (carry, carry tangents, y, nonzero y tangents)."""
    c_avals, x_avals, k_avals = split(fn.in_avals, n_c, n_x)
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
        c, ct, x, xt, k, kt = split(
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
        ct, xt, res, tx, kt, tk = split(args, *sizes)
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
    ct, xt, kt = split(tangents, n_c, n_x)
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
    carry, xs, consts = split(operands, n_c, n_x)
    x_lin = [ad.is_undefined(x) for x in xs]
    k_lin = [ad.is_undefined(k) for k in consts]
    cts = list(cts) if isinstance(cts, (list, tuple)) else [cts]
    c_avals, x_avals, k_avals = split(fn.in_avals, n_c, n_x)
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
        ct_c, acc, ct_y, xr, kr = split(args, n_c, len(k_lin_avals), len(ct_ys), len(x_res))
        ct_y_full = _scatter(ct_y, y_mask)
        in_cts = ad.transpose_traced(linear_view, [*xr, *kr], [*ct_c, *ct_y_full])
        avals = [*(ad.tangent_aval(a) for a in c_avals), *lin_x_avals, *k_lin_avals]
        in_cts = [ad.instantiate(c, a) for c, a in zip(in_cts, avals, strict=True)]
        c_in, x_in, k_in = split(in_cts, n_c, len(lin_x_avals))
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
    ct_init, ct_k, ct_x = split(outs, n_c, len(acc0))
    ct_x_iter, ct_k_iter = iter(ct_x), iter(ct_k)
    return [
        *ct_init,
        *(next(ct_x_iter) if m else None for m in x_lin),
        *(next(ct_k_iter) if m else None for m in k_lin),
    ]


dispatch.jvp_rules[SCAN] = _scan_jvp
dispatch.transpose_rules[SCAN] = _scan_transpose
