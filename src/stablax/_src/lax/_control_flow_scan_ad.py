"""Derivative rules of lax.scan, registered with the op in _control_flow_scan.py: jvp (a scan
of the jvp of the body, split in two under linearize: a primal scan stacking residuals and a
linear scan) and transpose (a reverse scan of the transposed body).

The op's operands are (i, carry, ys, xs, consts); the rules read the carry, xs and consts, and
give the step counter and the ys they start from no tangent (every step overwrites its y).
"""

from __future__ import annotations

from typing import Any

from stablax._src import core
from stablax._src.avals import aval_of
from stablax._src.interpreters import ad
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.interpret import interpret
from stablax._src.lax._control_flow_scan_op import bind_scan, op_results, sizes, unstacked

split, scatter_mask = cf.split, cf.scatter_mask

# --- jvp ---------------------------------------------------------------------------------------


def scan_jvp(primals, tangents, *, body, length, reverse, num_carry, num_xs, unroll):
    n_c, n_x = num_carry, num_xs
    n_y, _ = sizes(body, n_c, n_x)
    _, c, _, x, k = split(primals, 1, n_c, n_y, n_x)
    _, ct, _, xt, kt = split(tangents, 1, n_c, n_y, n_x)
    rest_mask = [t is not None for t in [*xt, *kt]]
    carry_mask = [t is not None for t in ct]
    params = dict(length=length, reverse=reverse, unroll=unroll)
    if cf.is_split_mode():
        counter, c_out, y_out, carry_t, ys_t = _scan_linearize(
            body, [*c, *x, *k], [*ct, *xt, *kt], carry_mask, rest_mask, n_c, n_x, params
        )
    else:
        while True:  # which carries have nonzero tangents: grow until the body agrees
            jvp_body, out_mask, y_mask, captured = _jvp_body(body, carry_mask, rest_mask, n_c, n_x)
            if out_mask == carry_mask:
                break
            carry_mask = [a or b for a, b in zip(carry_mask, out_mask, strict=True)]
        live_ct = [
            ad.instantiate(t, ad.tangent_aval(aval_of(p)))
            for p, t, m in zip(c, ct, carry_mask, strict=True)
            if m
        ]
        counter, carry_out, ys_out = bind_scan(
            [*c, *live_ct],
            [*x, *(t for t in xt if t is not None)],
            [*k, *(t for t in kt if t is not None), *captured],
            body=jvp_body,
            **params,
        )
        c_out, ct_out = carry_out[:n_c], carry_out[n_c:]
        y_out, yt_out = ys_out[:n_y], ys_out[n_y:]
        carry_t, ys_t = scatter_mask(ct_out, carry_mask), scatter_mask(yt_out, y_mask)
    outs = op_results(counter, c_out, y_out, x, k)
    return outs, [None, *carry_t, *ys_t, *xt, *kt]


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
        tangents = [
            *scatter_mask(ct, carry_mask),
            *scatter_mask(xt, x_mask),
            *scatter_mask(kt, k_mask),
        ]
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

    new_body, captured = cf.trace_body(jvp_body, in_avals)
    out_mask = [a or b for a, b in zip(box["out_mask"], carry_mask, strict=True)]
    return new_body, out_mask, box["y_mask"], captured


# --- linearize: a primal scan that also stacks residuals, and a linear scan ---------------------


def _scan_linearize(fn, primals, tangents, carry_mask, rest_mask, n_c, n_x, params):
    """Returns (step counter, carry, ys, carry tangents, y tangents)."""
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
    # The primal scan: the primal body returning (carry, ys, stacked residuals). Values the
    # primal body captured (arrays a custom rule closes over) are more loop constants.
    primal_body = cf.close(lin.primal_fn)
    keep = [*range(n_out), *stacked_res]

    def forward(*args):
        outs = interpret(primal_body, args)
        return [outs[i] for i in keep]

    c, x, k = split(primals, n_c, n_x)
    extra = list(lin.primal_fn.captured)
    forward_body, captured = cf.trace_body(forward, [*fn.in_avals, *(aval_of(v) for v in extra)])
    counter, c_out, ys_all = bind_scan(c, x, [*k, *extra, *captured], body=forward_body, **params)
    n_y = n_out - n_c
    y_out, res_stacks = ys_all[:n_y], ys_all[n_y:]
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
    piece_sizes = (len(ct_avals), len(xt_avals), len(res_avals), len(tx_avals), len(kt_avals))

    def linear(*args):
        ct, xt, res, tx, kt, tk = split(args, *piece_sizes)
        captured = [{"res": res, "x": tx, "const": tk}[kind][i] for kind, i in plan]
        outs = iter(interpret(linear_body, [*ct, *xt, *kt, *captured]))
        touts = [None if z else next(outs) for z in out_zero]
        carry_t = [
            ad.instantiate(t, a)
            for t, a, m in zip(touts[:n_c], c_avals, carry_mask, strict=True)
            if m
        ]
        return [*carry_t, *(t for t in touts[n_c:] if t is not None)]

    ct, xt, kt = split(tangents, n_c, n_x)
    with core.emitting_into(linear_trace):
        ct = [
            ad.instantiate(t, ad.tangent_aval(a))
            for t, a, m in zip(ct, c_avals, carry_mask, strict=True)
            if m
        ]
    linear_scan_body, captured = cf.trace_body(linear, in_avals)
    _, carry_t_out, y_t_out = bind_scan(
        ct,
        [*(t for t in xt if t is not None), *res_stacks, *(x[j] for j in through_x)],
        [*(t for t in kt if t is not None), *through_k, *captured],
        body=linear_scan_body,
        **params,
    )
    carry_t = scatter_mask(carry_t_out, carry_mask)
    y_t_iter = iter(y_t_out)
    ys_t = [None if z else next(y_t_iter) for z in out_zero[n_c:]]
    return counter, c_out, y_out, carry_t, ys_t


# --- transpose: a reverse scan of the transposed body ------------------------------------------


def scan_transpose(cts, *operands, body, length, reverse, num_carry, num_xs, unroll):
    fn = body
    n_c, n_x = num_carry, num_xs
    n_y, _ = sizes(fn, n_c, n_x)
    _, _, _, xs, consts = split(operands, 1, n_c, n_y, n_x)
    cts = list(cts) if isinstance(cts, (list, tuple)) else [cts]
    _, ct_c, ct_y, ct_x_through, ct_k_through = split(cts, 1, n_c, n_y, n_x)
    # The carry is transposed as linear even where its initial value is a constant (zeros):
    # transpose_traced keeps only the cotangents of linear operands.
    x_lin = [ad.is_undefined(x) for x in xs]
    k_lin = [ad.is_undefined(k) for k in consts]
    c_avals, x_avals, k_avals = split(fn.in_avals, n_c, n_x)
    y_avals = fn.out_avals[n_c:]
    ct_carry = [ad.instantiate(c, ad.tangent_aval(a)) for c, a in zip(ct_c, c_avals, strict=True)]
    y_mask = [c is not None for c in ct_y]
    ct_ys = [c for c in ct_y if c is not None]
    x_res = [x for x, m in zip(xs, x_lin, strict=True) if not m]
    k_res = [k for k, m in zip(consts, k_lin, strict=True) if not m]
    k_lin_avals = [ad.tangent_aval(a) for a, m in zip(k_avals, k_lin, strict=True) if m]
    # The body with its linear inputs (carry, linear xs, linear consts) first.
    linear = [*([True] * n_c), *x_lin, *k_lin]
    linear_view = cf.linear_first(fn, linear)
    num_linear = sum(linear)
    lin_x_avals = [ad.tangent_aval(a) for a, m in zip(x_avals, x_lin, strict=True) if m]

    def transposed(*args):
        ct_c, acc, ct_y, xr, kr = split(args, n_c, len(k_lin_avals), len(ct_ys), len(x_res))
        in_cts = ad.transpose_traced(
            linear_view, [*xr, *kr], [*ct_c, *scatter_mask(ct_y, y_mask)], num_linear=num_linear
        )
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
    acc0 = [ad.zeros_like_aval(a) for a in k_lin_avals]
    transposed_body, captured = cf.trace_body(transposed, in_avals)
    _, carry_out, ct_x = bind_scan(
        [*ct_carry, *acc0],
        [*ct_ys, *x_res],
        [*k_res, *captured],
        body=transposed_body,
        length=length,
        reverse=not reverse,
        unroll=unroll,
    )
    ct_init, ct_k = carry_out[:n_c], carry_out[n_c:]
    ct_x_iter, ct_k_iter = iter(ct_x), iter(ct_k)
    # The loop also returns its xs and consts: their cotangents add to the ones of the inputs.
    ct_xs = [
        ad.add_tangents(next(ct_x_iter), t) if m else None
        for m, t in zip(x_lin, ct_x_through, strict=True)
    ]
    ct_ks = [
        ad.add_tangents(next(ct_k_iter), t) if m else None
        for m, t in zip(k_lin, ct_k_through, strict=True)
    ]
    return [None, *ct_init, *([None] * n_y), *ct_xs, *ct_ks]
