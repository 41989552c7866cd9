"""lax.while_loop and lax.fori_loop: `stablehlo.while`, whose cond and body regions read the
loop-invariant values from above; its jvp and batching rules, and the bounded loops that become
scans so that reverse mode works (static fori_loop, `max_steps`).

For the rewrites the op's operands are (carry..., values its regions read...), and `cond` and
`body` are functions of (carry..., those values...) (traced functions, or regions read back).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import bodies, core, dtypes, op_rules, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.core import Tracer
from stablax._src.interpreters import ad
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.batching import bdim_at_front, moveaxis
from stablax._src.interpreters.interpret import interpret
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._control_flow_scan import scan
from stablax._src.lax._elementwise import add, lt, select
from stablax._src.lax._reduce_monoids import reduce_or
from stablax._src.lax._shapes import broadcast_in_dim, convert_element_type, full
from stablax._src.staging import run_staged

WHILE = "stablehlo.while"
_split = cf.split

_REVERSE_MODE_MESSAGE = (
    "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic "
    "start/stop values. Try using lax.scan, or using fori_loop with static start/stop."
)

# --- the construct -----------------------------------------------------------------------------


def _while_rule(*avals, cond, body, num_carry):
    carry = avals[:num_carry]
    got = [a.strip_weak_type() for a in avals]
    ok = (
        [a.strip_weak_type() for a in cond.in_avals] == got
        and [a.strip_weak_type() for a in body.in_avals] == got
        and [a.strip_weak_type() for a in body.out_avals] == got[:num_carry]
        and [(a.shape, a.dtype) for a in cond.out_avals] == [((), np.dtype(np.bool_))]
    )
    if not ok:
        raise TypeError(
            f"lax.while_loop: operands {[a.str_short() for a in avals]} do not match the loop's "
            f"cond and body{mlir.where_suffix()}"
        )
    # The results are typed as the body's results (a weak initial value the body makes strong
    # gives a strong result, as in JAX).
    return tuple(c.update(weak_type=o.weak_type) for c, o in zip(carry, body.out_avals))


def _while_lowering(operands, in_avals, out_avals, *, cond, body, num_carry):
    carry, consts = operands[:num_carry], operands[num_carry:]
    types = [v.type for v in carry]
    loop = mlir.emit("stablehlo.while", carry, types, regions=2)
    cf.emit_region_body(loop.regions[0], cond, lambda args: [*args, *consts], types)
    cf.emit_region_body(loop.regions[1], body, lambda args: [*args, *consts], types)
    return list(loop.results)


def _decode_while(op: Any, owner: Any) -> dict[str, Any]:
    free = bodies.free_values(op)
    return {
        "cond": bodies.Region(owner, op.regions[0], free),
        "body": bodies.Region(owner, op.regions[1], free),
        "num_carry": len(op.operands),
    }


def bind_while(operands, *, cond, body, num_carry) -> list[Any]:
    return cf.bind_construct(WHILE, operands, cond=cond, body=body, num_carry=num_carry)


# --- jvp ---------------------------------------------------------------------------------------


def _while_jvp(primals, tangents, *, cond, body, num_carry):
    n_c = num_carry
    carry_mask = [t is not None for t in tangents[:n_c]]
    k_mask = [t is not None for t in tangents[n_c:]]
    while True:
        jvp_body, out_mask, captured = _jvp_body(body, carry_mask, k_mask, n_c)
        if out_mask == carry_mask:
            break
        carry_mask = [a or b for a, b in zip(carry_mask, out_mask, strict=True)]
    n_t = sum(carry_mask)
    c_avals, k_avals = cond.in_avals[:n_c], cond.in_avals[n_c:]
    t_avals = [ad.tangent_aval(a) for a, m in zip(c_avals, carry_mask, strict=True) if m]
    kt_avals = [ad.tangent_aval(a) for a, m in zip(k_avals, k_mask, strict=True) if m]
    jvp_cond = cf.trace_body(
        lambda *a: interpret(cond, [*a[:n_c], *a[n_c + n_t : n_c + n_t + len(k_avals)]]),
        [*c_avals, *t_avals, *k_avals, *kt_avals],
    )
    num_in = len(c_avals) + n_t + len(k_avals) + len(kt_avals)
    (jvp_cond, jvp_body), consts = cf.share([jvp_cond, (jvp_body, captured)], num_in)
    carry, consts_in = primals[:n_c], primals[n_c:]
    ct, kt = tangents[:n_c], tangents[n_c:]
    if cf.is_split_mode():
        # Under linearize the primal loop runs in the primal function, and the loop with
        # tangents in the linear one (recomputing the primal): forward mode works there, but it
        # is not linear in a form that can be transposed; its transpose rule says so.
        outs = bind_while(primals, cond=cond, body=body, num_carry=n_c)
        with core.emitting_into(core.current_trace()):
            ct = [ad.instantiate(t, a) for t, a in zip(ct, _tangent_avals(carry), strict=True)]
    else:
        outs = None
        ct = [ad.instantiate(t, a) for t, a in zip(ct, _tangent_avals(carry), strict=True)]
    ct = [t for t, m in zip(ct, carry_mask, strict=True) if m]
    results = bind_while(
        [*carry, *ct, *consts_in, *(t for t in kt if t is not None), *consts],
        cond=jvp_cond,
        body=jvp_body,
        num_carry=n_c + n_t,
    )
    touts = iter(results[n_c:])
    out_tangents = [next(touts) if m else None for m in carry_mask]
    return (results[:n_c] if outs is None else outs), out_tangents


def _tangent_avals(values):
    return [ad.tangent_aval(aval_of(v)) for v in values]


def _jvp_body(fn, carry_mask, k_mask, n_c):
    """(carry, carry tangents, consts, const tangents) -> (carry, carry tangents)."""
    c_avals, k_avals = fn.in_avals[:n_c], fn.in_avals[n_c:]

    def tangents_of(avals, mask):
        return [ad.tangent_aval(a) for a, m in zip(avals, mask, strict=True) if m]

    in_avals = [
        *c_avals,
        *tangents_of(c_avals, carry_mask),
        *k_avals,
        *tangents_of(k_avals, k_mask),
    ]
    box: dict[str, Any] = {}

    def jvp_body(*args):
        c, ct, k, kt = _split(args, n_c, sum(carry_mask), len(k_avals))
        tangents = [*cf.scatter_mask(ct, carry_mask), *cf.scatter_mask(kt, k_mask)]
        outs, touts = ad.jvp_traced(fn, [*c, *k], tangents)
        box["mask"] = [t is not None or m for t, m in zip(touts, carry_mask, strict=True)]
        live = [
            ad.instantiate(t, ad.tangent_aval(a))
            for t, a, m in zip(touts, c_avals, carry_mask, strict=True)
            if m
        ]
        return [*outs, *live]

    new, captured = cf.trace_body(jvp_body, in_avals)
    return new, box["mask"], captured


def _while_transpose(cts, *operands, cond, body, num_carry):
    raise ValueError(_REVERSE_MODE_MESSAGE)


# --- batching ----------------------------------------------------------------------------------


def _while_batch(values, dims, *, axis_size, cond, body, num_carry):
    n_c = num_carry
    values = [v if d is None else moveaxis(v, d, 0) for v, d in zip(values, dims, strict=True)]
    masks = [d is not None for d in dims]
    carry_mask, k_mask = masks[:n_c], masks[n_c:]
    while True:
        _, pred_batched, _ = cf.batched_body(cond, [*carry_mask, *k_mask], [False], axis_size)
        if pred_batched[0]:
            carry_mask = [True] * n_c
        _, out_mask, _ = cf.batched_body(body, [*carry_mask, *k_mask], carry_mask, axis_size)
        if out_mask == carry_mask:
            break
        carry_mask = [a or b for a, b in zip(carry_mask, out_mask, strict=True)]
    carry, consts = values[:n_c], values[n_c:]
    carry = [
        bdim_at_front(v, d, axis_size) if m else v
        for v, d, m in zip(carry, dims[:n_c], carry_mask, strict=True)
    ]
    in_mask = [*carry_mask, *k_mask]
    c_fn, _, c_captured = cf.batched_body(cond, in_mask, [False], axis_size)
    b_fn, _, b_captured = cf.batched_body(body, in_mask, carry_mask, axis_size)
    (batched_cond, batched_body), extra = cf.share(
        [(c_fn, c_captured), (b_fn, b_captured)], len(in_mask)
    )
    consts = [*consts, *extra]
    if not pred_batched[0]:
        outs = bind_while([*carry, *consts], cond=batched_cond, body=batched_body, num_carry=n_c)
        return outs, [0 if m else None for m in carry_mask]
    # A batched predicate: loop while any lane is live; finished lanes keep their carry.
    any_live = cf.trace_body(
        lambda *a: [reduce_or(interpret(batched_cond, a)[0], (0,))], batched_cond.in_avals
    )

    def masked_body(*args):
        carry, consts = args[:n_c], args[n_c:]
        (live,) = interpret(batched_cond, [*carry, *consts])
        new = cf.interpret_weakly_typed(batched_body, [*carry, *consts])
        out = []
        for old, x in zip(carry, new, strict=True):
            shape = aval_of(x).shape
            which = broadcast_in_dim(live, shape, (0,)) if len(shape) > 1 else live
            out.append(select(which, x, old))
        return out

    masked = cf.trace_body(masked_body, batched_body.in_avals)
    (any_live, masked), extra = cf.share([any_live, masked], len(batched_body.in_avals))
    outs = bind_while([*carry, *consts, *extra], cond=any_live, body=masked, num_carry=n_c)
    return outs, [0] * n_c


op_rules.def_op(
    WHILE,
    _while_rule,
    _while_lowering,
    decode=_decode_while,
    decode_reads_owner=True,
    regions_capture=True,
    cache_eagerly=False,
    jvp=_while_jvp,
    transpose=_while_transpose,
    batch=_while_batch,
)


# --- the user-facing functions -----------------------------------------------------------------


def while_loop(
    cond_fun: Callable, body_fun: Callable, init_val: Any, *, max_steps: int | None = None
) -> Any:
    """Repeats `val = body_fun(val)` while `cond_fun(val)` holds; returns the final val.

    Lowers to `stablehlo.while`. Differentiable in forward mode; reverse mode raises as in JAX,
    unless `max_steps=N` (a stablax extension) bounds the trip count: the loop then becomes a
    scan of N masked steps, which reverse mode can differentiate.
    """
    check_callable("lax.while_loop", cond_fun, "cond_fun")
    check_callable("lax.while_loop", body_fun, "body_fun")
    if max_steps is not None:
        return _bounded_while(cond_fun, body_fun, init_val, int(max_steps))
    leaves, tree = tree_util.tree_flatten(init_val)
    n_c = len(leaves)

    def cond_of(args):
        return tree_util.tree_leaves(cond_fun(tree_util.tree_unflatten(tree, list(args))))

    def body_fn_of(args):
        carry = tree_util.tree_unflatten(tree, list(args))
        return tree_util.tree_leaves(_checked_body(body_fun, carry, tree))

    def trace(carry):
        avals = [aval_of(x) for x in carry]
        # Both traced before cond's output is checked, in JAX's order.
        cond = cf.trace_body(lambda *c: cond_of(c), avals)
        body = cf.trace_body(lambda *c: body_fn_of(c), avals)
        _check_cond_avals(cond[0].out_avals)
        return cond, body

    (cond_fn, cond_consts), (body_fn, body_consts) = trace(leaves)
    leaves, changed = cf.weak_join(leaves, body_fn.out_avals)
    if changed:
        (cond_fn, cond_consts), (body_fn, body_consts) = trace(leaves)
    cf.check_avals(
        "while_loop",
        [aval_of(x) for x in leaves],
        body_fn.out_avals,
        cf.leaf_paths(init_val, "c"),
        "while_loop body function carry input and carry output must have equal types, but "
        "they differ: the body returned {got} where the carry {path} is {expected}, so the "
        "{kind} do not match. Revise the function so that all output types match the "
        "corresponding input types",
    )
    ordered = cf.has_ordered_effects(body_fn)
    if ordered:  # the order of effects as one more carry, threaded through the body
        avals = [*(aval_of(x) for x in leaves), aval_of(cf.NO_ORDER)]
        leaves = [*leaves, cf.effect_chain()]
        body_fn, body_consts = cf.trace_body(cf.chained(lambda *c: body_fn_of(c), n_c, n_c), avals)
        cond_fn, cond_consts = cf.trace_body(lambda *c: cond_of(c[:n_c]), avals)
        n_c += 1
    consts, (cond_at, body_at) = cf.union_consts([cond_consts, body_consts])
    const_avals = [aval_of(c) for c in consts]
    cond_fn = cf.widen(cond_fn, n_c, cond_at, const_avals)
    body_fn = cf.widen(body_fn, n_c, body_at, const_avals)
    if core.current_trace() is None:  # eagerly: one program, compiled once per fingerprint

        def staged(*values):
            return bind_while(values, cond=cond_fn, body=body_fn, num_carry=n_c)

        outs = run_staged(staged, [*leaves, *consts])
    else:
        outs = bind_while([*leaves, *consts], cond=cond_fn, body=body_fn, num_carry=n_c)
    if ordered:
        outs = cf.end_chain(outs, n_c - 1)
    return tree_util.tree_unflatten(tree, outs)


def _check_cond_avals(out_avals: Any) -> None:
    if len(out_avals) != 1 or out_avals[0].shape != () or out_avals[0].dtype != np.bool_:
        raise TypeError(
            "cond_fun must return a boolean scalar, but got output type(s) "
            f"{[a.str_short() for a in out_avals]}{mlir.where_suffix()}."
        )


def _checked_cond(cond_fun: Callable, carry: Any) -> Any:
    """cond_fun(carry), which must be one boolean scalar."""
    out_leaves = tree_util.tree_leaves(cond_fun(carry))
    _check_cond_avals([aval_of(o) for o in out_leaves])
    return out_leaves[0]


def _checked_body(body_fun: Callable, carry: Any, tree: Any) -> Any:
    """body_fun(carry), which must have the carry's tree structure `tree`."""
    out = body_fun(carry)
    out_tree = tree_util.tree_structure(out)
    if out_tree != tree:
        raise TypeError(
            "while_loop body function carry input and carry output must have the same "
            f"pytree structure, but they differ: the input carry has structure {tree} "
            f"but the output has structure {out_tree}{mlir.where_suffix()}."
        )
    return out


def _bounded_while(cond_fun: Callable, body_fun: Callable, init_val: Any, max_steps: int) -> Any:
    """At most `max_steps` iterations as a scan: each step applies the body only while the
    condition holds; once it fails the carry no longer changes, so it keeps failing."""
    tree = tree_util.tree_structure(init_val)

    def step(carry, _):
        live = _checked_cond(cond_fun, carry)
        new = _checked_body(body_fun, carry, tree)
        return tree_util.tree_map(lambda x, old: select(live, x, old), new, carry), None

    final, _ = scan(step, init_val, None, length=max_steps)
    return final


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable, init_val: Any, *, unroll: int | bool | None = None
) -> Any:
    """`for i in range(lower, upper): val = body_fun(i, val)`; returns val.

    With static bounds (Python ints or concrete arrays) this is a scan, so reverse mode works;
    with traced bounds it is a while loop (forward mode only, as in JAX).
    """
    check_callable("lax.fori_loop", body_fun, "body_fun")
    dtype = dtypes.result_type(lower, upper)
    kinds = {aval_of(lower).dtype.kind, aval_of(upper).dtype.kind}
    if dtype.kind not in "iu" or "b" in kinds:  # a bool is no bound, as in JAX
        raise TypeError(
            f"lax.fori_loop: lower and upper must be integers, got {aval_of(lower).str_short()} "
            f"and {aval_of(upper).str_short()}{mlir.where_suffix()}"
        )
    info = np.iinfo(dtype)
    for bound in (lower, upper):
        if type(bound) is int and not info.min <= bound <= info.max:  # JAX's class
            raise OverflowError(
                f"lax.fori_loop: Python int {bound} too large to convert to {dtype.name}"
                f"{mlir.where_suffix()}"
            )
    if not isinstance(lower, Tracer) and not isinstance(upper, Tracer):
        start, stop = int(np.asarray(lower)), int(np.asarray(upper))

        def step(carry, _):
            i, x = carry
            return (i + 1, body_fun(i, x)), None

        # As JAX, the index counts from the Python int `start`: a weakly typed int32.
        (_, out), _ = scan(
            step, (start, init_val), None, length=max(0, stop - start), unroll=unroll or 1
        )
        return out
    if unroll not in (None, 1, False):
        raise ValueError(
            "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."
        )

    def loop_cond(carry):
        i, stop, _ = carry
        return lt(i, stop)

    def loop_body(carry):
        i, stop, x = carry
        return add(i, full((), 1, dtype)), stop, body_fun(i, x)

    lower = convert_element_type(lower, dtype)
    upper = convert_element_type(upper, dtype)
    _, _, out = while_loop(loop_cond, loop_body, (lower, upper, init_val))
    return out
