"""Forward-mode autodiff API: `jvp`, and `linearize` (the linear map at a point, run later)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters.ad import (
    is_differentiable_dtype,
    jvp_traced,
    tangent_aval,
    zeros_like_aval,
)
from stablax._src.interpreters.interpret import interpret
from stablax._src.staging import run_staged
from stablax._src.transforms.ad_trace import (
    as_tangent,
    float0_zeros,
    linearize_and_run,
    passed_through,
    restore_weak_types,
    trace_flat,
    weak_tangents,
    with_captured,
)


def jvp(
    fun: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False
) -> Any:
    """Forward mode: `(fun(*primals), d fun(primals) · tangents)`.

    Args:
      fun: a function of arrays (pytrees allowed).
      primals, tangents: tuples (or lists) of the same structure; each tangent has its primal's
        shape and dtype (float0 for integer primals).
      has_aux: fun returns (output, aux); aux is returned without a tangent.

    Returns:
      (primals_out, tangents_out), plus aux when has_aux.
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jax.jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError(
            "primal and tangent arguments to jax.jvp must have the same tree structure; primals "
            f"have tree structure {p_tree} whereas tangents have tree structure {t_tree}."
        )
    mask = []
    for p, t in zip(p_leaves, t_leaves, strict=True):
        p_aval, t_aval = aval_of(p), aval_of(t)
        expected = tangent_aval(p_aval)
        if t_aval.shape != p_aval.shape:
            raise ValueError(
                "jvp called with different primal and tangent shapes; got primal shape "
                f"{p_aval.shape} and tangent shape as {t_aval.shape}"
            )
        if expected.dtype != t_aval.dtype and not (
            t_aval.weak_type
            and is_differentiable_dtype(t_aval.dtype)
            and is_differentiable_dtype(expected.dtype)
        ):
            raise TypeError(
                "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or "
                f"in case of int/bool primal dtype the tangent dtype must be float0. Got primal "
                f"dtype {p_aval.dtype} and so expected tangent dtype {expected.dtype}, but got "
                f"tangent dtype {t_aval.dtype} instead."
            )
        mask.append(is_differentiable_dtype(p_aval.dtype))
    n = len(p_leaves)
    boxes: dict[str, Any] = {}
    live_tangents = [t for t, m in zip(t_leaves, mask, strict=True) if m]

    def impl(*flat):
        primals_in, tangents_in = flat[:n], iter(flat[n:])
        traced, out_tree, aux_tree, num_out = trace_flat(fun, p_tree, primals_in, has_aux)
        boxes.update(out_tree=out_tree, aux_tree=aux_tree, num_out=num_out)
        tangents_full = [
            as_tangent(next(tangents_in), aval_of(p)) if m else None
            for p, m in zip(primals_in, mask, strict=True)
        ]
        outs, out_tangents = jvp_traced(traced, primals_in, tangents_full)
        outs = restore_weak_types(outs, traced.out_avals)
        out_tangents = weak_tangents(out_tangents, traced.out_avals, passed_through(traced))
        boxes["out_avals"] = [aval_of(o) for o in outs]
        boxes["zero"] = [
            t is None or not is_differentiable_dtype(aval_of(o).dtype)
            for o, t in zip(outs, out_tangents, strict=True)
        ]
        live = [
            t for t, z in zip(out_tangents[:num_out], boxes["zero"][:num_out], strict=True) if not z
        ]
        zero_float = [  # weakly typed where their primals are, as JAX's instantiated zeros
            restore_weak_types([zeros_like_aval(tangent_aval(aval_of(o)))], [aval_of(o)])[0]
            for o, z in zip(outs[:num_out], boxes["zero"][:num_out], strict=True)
            if z and is_differentiable_dtype(aval_of(o).dtype)
        ]
        return [*outs, *live, *zero_float]

    results = run_staged(impl, [*p_leaves, *live_tangents])
    num_out = boxes["num_out"]
    outs = results[: len(boxes["out_avals"])]
    rest = iter(results[len(boxes["out_avals"]) :])
    live = [next(rest) for z in boxes["zero"][:num_out] if not z]
    zeros = iter(list(rest))
    live_iter = iter(live)
    out_tangents = []
    for aval, z in zip(boxes["out_avals"][:num_out], boxes["zero"][:num_out], strict=True):
        if not z:
            out_tangents.append(next(live_iter))
        elif is_differentiable_dtype(aval.dtype):
            out_tangents.append(next(zeros))
        else:
            out_tangents.append(float0_zeros(aval))
    primal_out = tree_util.tree_unflatten(boxes["out_tree"], outs[:num_out])
    tangent_out = tree_util.tree_unflatten(boxes["out_tree"], out_tangents)
    if has_aux:
        aux = boxes["aux_tree"].unflatten(outs[num_out:])
        return primal_out, tangent_out, aux
    return primal_out, tangent_out


def linearize(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """(fun(*primals), f_jvp) where f_jvp(*tangents) evaluates the linear map at `primals`."""
    lin, outs, captured, info = linearize_and_run(fun, primals, has_aux)
    num_out = info["num_out"]

    def f_jvp(*tangents: Any) -> Any:
        t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
        if t_tree != info["in_tree"]:
            raise TypeError(
                f"linearized function called with tangents of structure {t_tree}, "
                f"expected {info['in_tree']}"
            )
        live = [t for t, m in zip(t_leaves, info["mask"], strict=True) if m]
        n = len(live)
        res = run_staged(
            lambda *xs: interpret(with_captured(lin.linear_fn, xs[n:]), xs[:n]), [*live, *captured]
        )
        live_avals = [
            (a, p)
            for a, p, z in zip(info["out_avals"], info["passed"], info["zero"], strict=False)
            if not z
        ]
        # The linear map runs on the tangents given: JAX's result is weak only where they are.
        if live_avals and all(aval_of(t).weak_type for t in live):
            res = weak_tangents(res, *zip(*live_avals, strict=True))
        return _assemble_out_tangents(info, res)

    primal_out = tree_util.tree_unflatten(info["out_tree"], outs[:num_out])
    if has_aux:
        return primal_out, f_jvp, info["aux_tree"].unflatten(outs[num_out:])
    return primal_out, f_jvp


def _assemble_out_tangents(info, live):
    live_iter = iter(live)
    out = []
    for aval, zero in zip(
        info["out_avals"][: info["num_out"]], info["zero"][: info["num_out"]], strict=True
    ):
        if not zero:
            out.append(next(live_iter))
        elif is_differentiable_dtype(aval.dtype):
            out.append(
                zeros_like_aval(tangent_aval(aval))
                if core.current_trace()
                else np.zeros(aval.shape, aval.dtype)
            )
        else:
            out.append(float0_zeros(aval))
    return tree_util.tree_unflatten(info["out_tree"], out)
