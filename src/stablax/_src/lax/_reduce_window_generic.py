"""`lax.reduce_window` with any computation, over one array or a pytree of arrays.

The body is traced as for `lax.reduce` (_reduce_generic.py); the op is `stablehlo.reduce_window`
with operands (*arrays, *init values) and a function-valued `computation`. Rules, as JAX's
`reduce_window_p`: batching of batched arrays (a batched init value raises NotImplementedError),
and a JVP that is one more generic reduce_window over (primals, tangents) whose body is the JVP
of the computation. That JVP is not linear in a transposable form: reverse mode raises
ValueError, as JAX's linearization does.
"""

from __future__ import annotations

from typing import Any

from stablax._src import ir as mlir
from stablax._src import tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.ad import (
    instantiate,
    is_differentiable_dtype,
    jvp_traced,
    tangent_aval,
    zeros_like_aval,
)
from stablax._src.lax import _reduce_generic as generic
from stablax._src.lax._shapes import batch_at
from stablax._src.lax._window_params import window_attributes, window_shape_rule, with_batch_window

WINDOW = "stablehlo.reduce_window"


def check_inits(operand_avals, init_avals) -> None:
    """JAX's checks of reduce_window's init values (TypeErrors, unlike reduce's)."""
    shapes = [a.shape for a in init_avals]
    if any(s != () for s in shapes):
        raise TypeError(
            "lax.reduce_window: expected init_values to be scalars but init_values have shapes "
            f"{shapes}{mlir.where_suffix()}"
        )
    if [a.dtype for a in operand_avals] != [a.dtype for a in init_avals]:
        raise TypeError(
            "lax.reduce_window: got inconsistent dtypes for operands and init_values: got "
            f"operand dtypes {[a.dtype.name for a in operand_avals]} and init_value dtypes "
            f"{[a.dtype.name for a in init_avals]}{mlir.where_suffix()}"
        )


def traced_computation(flat_operands, flat_inits, computation, tree) -> Any:
    """The computation traced on the init values' scalars, in JAX's order: the trace and its
    output tree, the init values' checks, then the types of its outputs."""
    init_avals = [aval_of(i) for i in flat_inits]
    fn, out_tree = generic.trace_computation("reduce_window", computation, init_avals, tree)
    if out_tree != tree:
        raise ValueError(
            "lax.reduce_window: output must have the same tree structure as the operands "
            f"{tree} vs. {out_tree}{mlir.where_suffix()}"
        )
    check_inits([aval_of(x) for x in flat_operands], init_avals)
    generic.check_outputs("reduce_window", fn, init_avals)
    return fn


def reduce_window_generic(flat_operands, flat_inits, fn, tree, window_params) -> Any:
    """The generic path of `lax.reduce_window` (window params already normalized)."""
    outs = generic.bind_generic(
        WINDOW, [*flat_operands, *flat_inits], computation=fn, **window_params
    )
    return tree_util.tree_unflatten(tree, outs)


# --- the op's rules (called by _windowed.py's for a function-valued `computation`) -------------


def rule(*avals: ShapedArray, computation: Any, **window_params):
    k = len(avals) // 2
    operands, inits = avals[:k], avals[k:]
    check_inits(operands, inits)
    if len({x.shape for x in operands}) != 1:
        raise ValueError(
            f"lax.reduce_window: operands must have one shape, got "
            f"{[x.str_short() for x in operands]}{mlir.where_suffix()}"
        )
    return tuple(
        ShapedArray(window_shape_rule(x, window_params), x.dtype, x.weak_type and i.weak_type)
        for x, i in zip(operands, inits, strict=True)
    )


def lowering(operands, in_avals, out_avals, *, computation, **window_params):
    op = mlir.emit(
        WINDOW,
        operands,
        [mlir.aval_type(a) for a in out_avals],
        window_attributes(window_params),
        regions=1,
    )
    generic.emit_body(op, computation, in_avals)
    return list(op.results)


def batch(values, dims, *, axis_size, computation, **window_params):
    k = len(values) // 2
    if any(d is not None for d in dims[k:]):
        raise NotImplementedError(
            f"[vmap] reduce_window batching is not implemented for initial values"
            f"{mlir.where_suffix()}"
        )
    arrays = [batch_at(x, d, 0, axis_size) for x, d in zip(values[:k], dims[:k], strict=True)]
    params = with_batch_window(dict(window_params), 0)
    outs = cf.bind_construct(WINDOW, [*arrays, *values[k:]], computation=computation, **params)
    return outs, [0] * len(outs)


def jvp(primals, tangents, *, computation, **window_params):
    k = len(primals) // 2
    xs, inits = list(primals[:k]), list(primals[k:])
    if any(t is not None for t in tangents[k:]):  # JAX's class
        raise TypeError(
            f"reduce_window jvp does not support non-zero init_value_tangent{mlir.where_suffix()}"
        )
    mask = [
        t is not None and is_differentiable_dtype(aval_of(x).dtype)
        for x, t in zip(xs, tangents[:k], strict=True)
    ]
    while True:
        body, out_mask = _jvp_body(computation, mask)
        if out_mask == mask:
            break
        mask = [a or b for a, b in zip(mask, out_mask, strict=True)]
    t_avals = [tangent_aval(aval_of(x)) for x, m in zip(xs, mask, strict=True) if m]
    txs = [instantiate(t, a) for t, a in zip(_masked(tangents[:k], mask), t_avals, strict=True)]
    t_inits = [zeros_like_aval(ShapedArray((), a.dtype)) for a in t_avals]
    outs = None
    if cf.is_split_mode():  # the primal outputs from the primal function (see while's jvp)
        outs = cf.bind_construct(WINDOW, primals, computation=computation, **window_params)
    results = cf.bind_construct(
        WINDOW, [*xs, *txs, *inits, *t_inits], computation=body, **window_params
    )
    touts = iter(results[k:])
    return (results[:k] if outs is None else outs), [next(touts) if m else None for m in mask]


def _masked(values, mask):
    return [v for v, m in zip(values, mask, strict=True) if m]


def _jvp_body(fn: Any, mask: list[bool]):
    """(left primals, left tangents, right primals, right tangents) -> (primals, tangents), the
    tangents kept where `mask`; and which outputs have tangents."""
    k = len(mask)
    avals = fn.in_avals[:k]
    t_avals = [tangent_aval(a) for a in _masked(avals, mask)]
    n_t = len(t_avals)
    box: dict[str, Any] = {}

    def body(*args):
        pl, tl, pr, tr = cf.split(args, k, n_t, k)[:4]
        tangents = [*cf.scatter_mask(tl, mask), *cf.scatter_mask(tr, mask)]
        outs, touts = jvp_traced(fn, [*pl, *pr], tangents)
        box["mask"] = [t is not None for t in touts]
        live = [instantiate(t, a) for t, a in zip(_masked(touts, mask), t_avals, strict=True)]
        return [*outs, *live]

    new, captured = cf.trace_body(body, [*avals, *t_avals, *avals, *t_avals])
    assert not captured, "stablax: internal error, a reduction body captured values"
    return new, box["mask"]


def transpose(ct, *operands, computation, **window_params):
    raise ValueError(
        "Reverse-mode differentiation of lax.reduce_window with a general computation is not "
        "supported (as in JAX, whose linearization fails): only its forward mode (jvp) is"
    )


__all__ = ["reduce_window_generic"]
