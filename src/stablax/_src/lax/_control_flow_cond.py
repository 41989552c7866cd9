"""lax.cond and lax.switch: `stablehlo.case`, whose regions hold the branches and read the
operands from above; its jvp (split in two under linearize), transpose and batching rules.

For the rewrites the op's operands are (index: int32[], values its branches read...), and each
branch is a function of those values (a traced function, or a region read back from a module).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import bodies, op_rules, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters import ad
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.batching import batch_traced, bdim_at_front, moveaxis
from stablax._src.interpreters.interpret import interpret
from stablax._src.lax._argcheck import check_callable, sequence
from stablax._src.lax._elementwise import clamp, ne, select_n
from stablax._src.lax._shapes import broadcast_in_dim, convert_element_type, full

COND = "stablehlo.case"
_scatter, _split = cf.scatter_mask, cf.split

# --- the construct -----------------------------------------------------------------------------


def _cond_rule(index, *xs, branches):
    where = mlir.where_suffix()
    if index.shape != () or index.dtype != np.int32:
        raise TypeError(
            f"lax.cond: the branch index must be int32[], got {index.str_short()}{where}"
        )
    got = [a.strip_weak_type() for a in xs]
    if any([a.strip_weak_type() for a in fn.in_avals] != got for fn in branches):
        raise TypeError(
            f"lax.cond: operands {[a.str_short() for a in xs]} do not match the branches' "
            f"inputs {[a.str_short() for a in branches[0].in_avals]}{where}"
        )
    outs = branches[0].out_avals
    return tuple(
        a.update(weak_type=all(fn.out_avals[i].weak_type for fn in branches))
        for i, a in enumerate(outs)
    )


def _cond_lowering(operands, in_avals, out_avals, *, branches):
    index, xs = operands[0], operands[1:]
    case = mlir.emit(
        "stablehlo.case", [index], [mlir.aval_type(a) for a in out_avals], regions=len(branches)
    )
    for region, fn in zip(case.regions, branches, strict=True):
        cf.emit_region_body(region, fn, xs)
    return list(case.results)


def _decode_cond(op: Any, owner: Any) -> dict[str, Any]:
    free = bodies.free_values(op)
    return {"branches": tuple(bodies.Region(owner, r, free) for r in op.regions)}


def bind_cond(index: Any, xs: Sequence[Any], branches: Sequence[Any]) -> list[Any]:
    return cf.bind_construct(COND, [index, *xs], branches=tuple(branches))


# --- jvp ---------------------------------------------------------------------------------------


def _cond_jvp(primals, tangents, *, branches):
    index, xs = primals[0], primals[1:]
    in_mask = [t is not None for t in tangents[1:]]
    fns = list(branches)
    if cf.is_split_mode():
        return _cond_linearize(fns, index, xs, tangents[1:], in_mask)
    out_mask = [False] * len(fns[0].out_avals)
    for fn in fns:  # an output has a tangent if any branch gives it one
        _, mask, _ = _jvp_branch(fn, in_mask, out_mask)
        out_mask = [a or b for a, b in zip(out_mask, mask, strict=True)]
    xt = [t for t in tangents[1:] if t is not None]
    jvp_branches = [_jvp_branch(fn, in_mask, out_mask) for fn in fns]
    new, consts = cf.share([(b, c) for b, _, c in jvp_branches], len(xs) + len(xt))
    outs = bind_cond(index, [*xs, *xt, *consts], new)
    n = len(fns[0].out_avals)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if m else None for m in out_mask]


def _jvp_branch(fn, in_mask, force):
    """(xs, nonzero x tangents) -> (outs, tangents of the outputs in `force` or nonzero)."""
    t_avals = [ad.tangent_aval(a) for a, m in zip(fn.in_avals, in_mask, strict=True) if m]
    n = len(fn.in_avals)
    box: dict[str, Any] = {}

    def branch(*args):
        tangents = _scatter(args[n:], in_mask)
        outs, touts = ad.jvp_traced(fn, args[:n], tangents)
        mask = [t is not None or f for t, f in zip(touts, force, strict=True)]
        box["mask"] = mask
        live = [
            ad.instantiate(t, ad.tangent_aval(a))
            for t, a, m in zip(touts, fn.out_avals, mask, strict=True)
            if m
        ]
        return [*outs, *live]

    new, captured = cf.trace_body(branch, [*fn.in_avals, *t_avals])
    return new, box["mask"], captured


def _cond_linearize(fns, index, xs, tangents, in_mask):
    """A primal cond in the primal trace returning every branch's residuals (zeros for the
    branches not taken), and a linear cond choosing the branch's linear part."""
    lins = [ad.linearize_traced(fn, in_mask) for fn in fns]
    n_out = len(fns[0].out_avals)
    out_mask = [any(not lin.out_tangent_zero[i] for lin in lins) for i in range(n_out)]
    # Residuals: per branch, the primal outputs its linear part reads (stacked across branches);
    # values that are branch inputs, and constants, are passed to the linear cond directly.
    res_avals: list[ShapedArray] = []
    res_of: list[list[int]] = []  # per branch: its primal-output index of each residual
    plans = []
    constants: list[Any] = []
    for lin in lins:
        k_args = lin.primal_fn.trace.args
        plan, own = [], []
        for slot, value in zip(lin.residual_slots, lin.linear_fn.captured, strict=True):
            arg = next((j for j, a in enumerate(k_args) if a is value), None)
            if slot is None:
                plan.append(("const", len(constants)))
                constants.append(value)
            elif arg is not None:
                plan.append(("x", arg))
            else:
                plan.append(("res", len(res_avals)))
                own.append(slot)
                res_avals.append(lin.primal_fn.out_avals[slot])
        plans.append(plan)
        res_of.append(own)
    offsets = np.cumsum([0, *(len(r) for r in res_of)])
    # Values the primal branches captured (arrays a custom rule closes over) are more operands.
    extra, extra_at = cf.union_consts([lin.primal_fn.captured for lin in lins])
    extra_avals = [aval_of(v) for v in extra]
    n_x = len(xs)
    fwd_names = []
    for b, lin in enumerate(lins):
        primal = cf.close(lin.primal_fn)

        def forward(*args, primal=primal, b=b):
            outs = interpret(primal, [*args[:n_x], *(args[n_x + p] for p in extra_at[b])])
            res = [ad.zeros_like_aval(a) for a in res_avals]
            res[offsets[b] : offsets[b + 1]] = [outs[i] for i in res_of[b]]
            return [*outs[:n_out], *res]

        fwd_names.append(cf.trace_body(forward, [*fns[b].in_avals, *extra_avals]))
    forwards, consts = cf.share(fwd_names, n_x + len(extra))
    outs = bind_cond(index, [*xs, *extra, *consts], forwards)
    primal_outs, residuals = outs[:n_out], outs[n_out:]
    t_avals = [ad.tangent_aval(a) for a, m in zip(fns[0].in_avals, in_mask, strict=True) if m]
    x_avals = list(fns[0].in_avals)
    c_avals = [aval_of(c) for c in constants]
    lin_names = []
    for lin, plan in zip(lins, plans, strict=True):
        linear_body = cf.close(lin.linear_fn)
        zero = lin.out_tangent_zero

        def linear(*args, linear_body=linear_body, plan=plan, zero=zero):
            ts, res, x, c = _split(args, len(t_avals), len(res_avals), len(x_avals))
            captured = [{"res": res, "x": x, "const": c}[kind][i] for kind, i in plan]
            touts = iter(interpret(linear_body, [*ts, *captured]))
            full = [None if z else next(touts) for z in zero]
            return [
                ad.instantiate(t, ad.tangent_aval(a))
                for t, a, m in zip(full, fns[0].out_avals, out_mask, strict=True)
                if m
            ]

        lin_names.append(cf.trace_body(linear, [*t_avals, *res_avals, *x_avals, *c_avals]))
    live = [t for t in tangents if t is not None]
    operands = [*live, *residuals, *xs, *constants]
    linears, consts = cf.share(lin_names, len(operands))
    touts = iter(bind_cond(index, [*operands, *consts], linears))
    return primal_outs, [next(touts) if m else None for m in out_mask]


# --- transpose ---------------------------------------------------------------------------------


def _cond_transpose(cts, index, *xs, branches):
    if ad.is_undefined(index):
        raise TypeError("lax.cond: the branch index cannot be a linear input")
    fns = list(branches)
    cts = list(cts) if isinstance(cts, (list, tuple)) else [cts]
    linear = [ad.is_undefined(x) for x in xs]
    ct_mask = [c is not None for c in cts]
    live_cts = [c for c in cts if c is not None]
    res = [x for x, m in zip(xs, linear, strict=True) if not m]
    lin_avals = [ad.tangent_aval(a) for a, m in zip(fns[0].in_avals, linear, strict=True) if m]
    ct_avals = [ad.tangent_aval(a) for a, m in zip(fns[0].out_avals, ct_mask, strict=True) if m]
    names = []
    for fn in fns:
        view = cf.linear_first(fn, linear)

        def transposed(*args, view=view):
            cs, rs = args[: len(live_cts)], args[len(live_cts) :]
            in_cts = ad.transpose_traced(view, rs, _scatter(cs, ct_mask), num_linear=sum(linear))
            return [ad.instantiate(c, a) for c, a in zip(in_cts, lin_avals, strict=True)]

        names.append(cf.trace_body(transposed, [*ct_avals, *(aval_of(r) for r in res)]))
    transposed_branches, consts = cf.share(names, len(live_cts) + len(res))
    outs = iter(bind_cond(index, [*live_cts, *res, *consts], transposed_branches))
    return [None, *(next(outs) if m else None for m in linear)]


# --- batching ----------------------------------------------------------------------------------


def _cond_batch(values, dims, *, axis_size, branches):
    fns = list(branches)
    index, xs = values[0], values[1:]
    xs = [x if d is None else moveaxis(x, d, 0) for x, d in zip(xs, dims[1:], strict=True)]
    in_dims = [None if d is None else 0 for d in dims[1:]]
    if dims[0] is not None:
        # A batched index: every branch runs (they have no side effects) and each lane selects.
        results = []
        for fn in fns:
            outs, out_dims = batch_traced(fn, xs, in_dims, axis_size)
            results.append(
                [bdim_at_front(o, d, axis_size) for o, d in zip(outs, out_dims, strict=True)]
            )
        index = moveaxis(index, dims[0], 0)
        outs = []
        for cases in zip(*results, strict=True):
            shape = aval_of(cases[0]).shape
            which = broadcast_in_dim(index, shape, (0,)) if len(shape) > 1 else index
            outs.append(select_n(which, *cases))
        return outs, [0] * len(outs)
    in_mask = [d is not None for d in in_dims]
    out_mask = [False] * len(fns[0].out_avals)
    for fn in fns:
        _, mask, _ = cf.batched_body(fn, in_mask, out_mask, axis_size)
        out_mask = [a or b for a, b in zip(out_mask, mask, strict=True)]
    batched = [cf.batched_body(fn, in_mask, out_mask, axis_size) for fn in fns]
    new, consts = cf.share([(b, c) for b, _, c in batched], len(xs))
    outs = bind_cond(index, [*xs, *consts], new)
    return outs, [0 if m else None for m in out_mask]


op_rules.def_op(
    COND,
    _cond_rule,
    _cond_lowering,
    decode=_decode_cond,
    decode_reads_owner=True,
    regions_capture=True,
    cache_eagerly=False,
    jvp=_cond_jvp,
    transpose=_cond_transpose,
    batch=_cond_batch,
)


# --- stablehlo.if (modules from elsewhere): a case on the predicate's index -------------------

IF = "stablehlo.if"


def _if_rule(pred, *xs, true_branch, false_branch):
    if pred.shape != () or pred.dtype != np.bool_:
        raise TypeError(f"stablehlo.if: the predicate must be bool[], got {pred.str_short()}")
    return _cond_rule(ShapedArray((), np.int32), *xs, branches=(false_branch, true_branch))


def _if_lowering(operands, in_avals, out_avals, *, true_branch, false_branch):
    op = mlir.emit("stablehlo.if", [operands[0]], [mlir.aval_type(a) for a in out_avals], regions=2)
    for region, fn in zip(op.regions, (true_branch, false_branch), strict=True):
        cf.emit_region_body(region, fn, operands[1:])
    return list(op.results)


def _decode_if(op: Any, owner: Any) -> dict[str, Any]:
    free = bodies.free_values(op)
    true_branch, false_branch = (bodies.Region(owner, r, free) for r in op.regions)
    return {"true_branch": true_branch, "false_branch": false_branch}


def _index(pred: Any) -> Any:
    return convert_element_type(pred, np.int32)


# The rules of `stablehlo.case` on the index of the predicate: case index 0 is the false branch.
def _if_jvp(primals, tangents, *, true_branch, false_branch):
    values = [_index(primals[0]), *primals[1:]]
    return _cond_jvp(values, tangents, branches=(false_branch, true_branch))


def _if_transpose(ct, pred, *xs, true_branch, false_branch):
    return _cond_transpose(ct, _index(pred), *xs, branches=(false_branch, true_branch))


def _if_batch(values, dims, *, axis_size, true_branch, false_branch):
    values = [_index(values[0]), *values[1:]]
    return _cond_batch(values, dims, axis_size=axis_size, branches=(false_branch, true_branch))


op_rules.def_op(
    IF,
    _if_rule,
    _if_lowering,
    decode=_decode_if,
    decode_reads_owner=True,
    regions_capture=True,
    cache_eagerly=False,
    jvp=_if_jvp,
    transpose=_if_transpose,
    batch=_if_batch,
)


# --- the user-facing functions -----------------------------------------------------------------


def _trace_branches(funs: Sequence[Callable], operands: tuple, names: Sequence[str]):
    """Traces every branch on the operands' avals; checks that their outputs agree."""
    leaves, in_tree = tree_util.tree_flatten(operands)
    avals = [aval_of(x) for x in leaves]
    traced, captured, trees, flats = [], [], [], []
    for fun in funs:
        box: dict[str, Any] = {}

        def flat(*args, fun=fun, box=box):
            out = fun(*tree_util.tree_unflatten(in_tree, list(args)))
            out_leaves, box["tree"] = tree_util.tree_flatten(out)
            return out_leaves

        fn, caps = cf.trace_body(flat, avals)
        flats.append(flat)
        traced.append(fn)
        captured.append(caps)
        trees.append(box["tree"])
    where = mlir.where_suffix()
    for i in range(1, len(funs)):
        if trees[i] != trees[0]:
            raise TypeError(
                f"{_kind(names)} outputs must have the same pytree structure, but they differ: "
                f"{names[0]} output is {trees[0]} but {names[i]} output is {trees[i]}{where}."
            )
        for a, b in zip(traced[0].out_avals, traced[i].out_avals, strict=True):
            if a.shape != b.shape or a.dtype != b.dtype:
                kind = "shapes" if a.shape != b.shape else "dtypes"
                raise TypeError(
                    f"{_kind(names)} must have equal output types but they differ: the output "
                    f"of {names[0]} has type {a.str_short()} but the corresponding output of "
                    f"{names[i]} has type {b.str_short()}, so the {kind} do not match{where}. "
                    f"Revise {names[0]} and/or {names[i]} so that all output types match."
                )
    ordered = cf.has_ordered_effects(*traced)
    if ordered:  # each branch takes the order of effects first and returns it last
        leaves = [cf.effect_chain(), *leaves]
        avals = [aval_of(leaves[0]), *avals]
        retraced = [cf.trace_body(cf.chained(flat, 0, len(fn.out_avals)), avals)
                    for flat, fn in zip(flats, traced, strict=True)]  # fmt: skip
        traced, captured = [fn for fn, _ in retraced], [caps for _, caps in retraced]
    consts, positions = cf.union_consts(captured)
    const_avals = [aval_of(c) for c in consts]
    widened = [
        cf.widen(fn, len(avals), pos, const_avals)
        for fn, pos in zip(traced, positions, strict=True)
    ]
    return widened, [*leaves, *consts], trees[0], ordered


def _kind(names: Sequence[str]) -> str:
    return "cond branches" if names[0] == "true_fun" else "switch branches"


_NO_OPERAND = object()  # `operand=` was not passed (None is a valid operand)


def _legacy_operand(operands: tuple, operand: Any) -> tuple:
    """JAX's legacy `operand=` keyword: one operand, instead of positional ones."""
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise TypeError(
            "if 'operand' keyword is passed then no positional operands can be passed, got "
            f"operand={operand!r} and positional operands {operands}"
        )
    return (operand,)


def cond(
    pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any, operand: Any = _NO_OPERAND
) -> Any:
    """`true_fun(*operands)` if pred else `false_fun(*operands)`, chosen when the program runs.

    Lowers to `stablehlo.case`; both branches are traced and must return the same types.
    `operand=x` is JAX's legacy form of one positional operand (not both).
    Example: `lax.cond(x > 0, jnp.sin, jnp.cos, x)`.
    """
    if not callable(true_fun) or not callable(false_fun):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _legacy_operand(operands, operand)
    pred_aval = aval_of(pred)
    if pred_aval.shape != ():
        raise TypeError(
            f"Pred must be a scalar, got {pred} of shape {pred_aval.shape}{mlir.where_suffix()}."
        )
    # NumPy's kinds, as JAX reads them: complex, bfloat16 and the 4-bit types are refused.
    if pred_aval.dtype.kind not in "biuf":
        raise TypeError(f"Pred type must be either boolean or number, got {pred_aval.dtype}.")
    if pred_aval.dtype != np.bool_:
        pred = ne(pred, full((), 0, pred_aval.dtype))
    index = convert_element_type(pred, np.int32)
    names, xs, out_tree, ordered = _trace_branches(
        (true_fun, false_fun), operands, ("true_fun", "false_fun")
    )
    # Index 0 is false_fun, 1 is true_fun.
    outs = bind_cond(index, xs, names[::-1])
    return tree_util.tree_unflatten(out_tree, cf.end_chain(outs, -1) if ordered else outs)


def switch(
    index: Any, branches: Sequence[Callable], *operands: Any, operand: Any = _NO_OPERAND
) -> Any:
    """`branches[index](*operands)`, with index clamped to the valid range as in JAX.

    Lowers to `stablehlo.case`. `operand=x` is JAX's legacy form of one positional operand.
    Example: `lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], x)`.
    """
    branches = [
        check_callable("lax.switch", b, "each branch")
        for b in sequence(branches, "branches", "lax.switch")
    ]
    operands = _legacy_operand(operands, operand)
    index_aval = aval_of(index)
    if index_aval.shape != ():
        raise TypeError(
            f"Branch index must be scalar, got {index} of shape {index_aval.shape}"
            f"{mlir.where_suffix()}."
        )
    if index_aval.dtype.kind not in "iu":  # a bool index is no integer, as in JAX
        raise TypeError(
            f"Index type must be an integer, got {index} as {index_aval.dtype}{mlir.where_suffix()}"
        )
    if not branches:  # after the index's checks, in JAX's order
        raise ValueError(f"Empty branch sequence{mlir.where_suffix()}")
    if len(branches) == 1:
        return branches[0](*operands)
    index = convert_element_type(index, np.int32)
    index = clamp(np.int32(0), index, np.int32(len(branches) - 1))
    labels = [f"branch {i}" for i in range(len(branches))]
    names, xs, out_tree, ordered = _trace_branches(branches, operands, labels)
    outs = bind_cond(index, xs, names)
    return tree_util.tree_unflatten(out_tree, cf.end_chain(outs, -1) if ordered else outs)
