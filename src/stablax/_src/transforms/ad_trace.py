"""Tracing for the autodiff API: user functions over pytree leaves, linearize-and-run, checks.

Every API call traces fun to a StableHLO function, rewrites it (transforms/ad.py) and runs the
result as one program, inlined into an enclosing trace or compiled once (cached by fingerprint).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dtypes, lax, tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.concrete import evaluate_prefix
from stablax._src.interpreters.ad import (
    call_primal,
    is_differentiable_dtype,
    linearize_traced,
    tangent_aval,
)
from stablax._src.staging import run_staged

# --- tracing user functions --------------------------------------------------------------------


def trace_flat(fun: Callable, in_tree: Any, leaves: Sequence[Any], has_aux: bool = False):
    """Traces `fun(*unflatten(leaves))` into a StableHLO function whose inputs stand for `leaves`.

    Returns (traced function, output tree, aux tree or None, number of main outputs).
    """
    avals = [aval_of(x) for x in leaves]
    boxes: dict[str, Any] = {}

    def flat(*tracers):
        args = tree_util.tree_unflatten(in_tree, list(tracers))
        out = fun(*args)
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError(
                    "has_aux=True requires the function to return a pair (output, aux), got "
                    f"{type(out).__name__}"
                )
            out, aux = out
            boxes["aux_tree"] = AuxTree(aux)
            aux_leaves = boxes["aux_tree"].arrays
        else:
            aux_leaves = []
        out_leaves, boxes["out_tree"] = tree_util.tree_flatten(out)
        boxes["num_out"] = len(out_leaves)
        for leaf in out_leaves:
            _check_output(leaf)
        return [*out_leaves, *aux_leaves]

    # One derivative more than the enclosing trace is about to take (grad of grad: two).
    depth = core.pending_derivatives() + 1
    traced = core.trace_to_func(
        flat, avals, sources=list(leaves), differentiated=depth, evaluate=evaluate_prefix
    )
    return traced, boxes["out_tree"], boxes.get("aux_tree"), boxes["num_out"]


class AuxTree:
    """The structure of a has_aux function's auxiliary output: its arrays are outputs of the
    traced function, its other leaves (strings, Python numbers, None, ...) are kept as they are,
    as JAX keeps them."""

    def __init__(self, aux: Any) -> None:
        leaves, self.tree = tree_util.tree_flatten(aux)
        self.is_array = [hasattr(x, "aval") or isinstance(x, np.ndarray) for x in leaves]
        self.arrays = [x for x, a in zip(leaves, self.is_array, strict=True) if a]
        self.others = [x for x, a in zip(leaves, self.is_array, strict=True) if not a]

    def unflatten(self, arrays: Sequence[Any]) -> Any:
        arrays, others = iter(arrays), iter(self.others)
        leaves = [next(arrays) if a else next(others) for a in self.is_array]
        return tree_util.tree_unflatten(self.tree, leaves)


def _check_output(leaf: Any) -> None:
    if not (
        hasattr(leaf, "aval")
        or dtypes.is_python_scalar(leaf)
        or isinstance(leaf, (np.ndarray, np.generic))
    ):
        raise TypeError(
            f"The function being differentiated must return arrays or pytrees of arrays, got "
            f"{type(leaf).__name__}"
        )


def restore_weak_types(outs: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    # Rewrites re-emit constants strongly typed: give outputs the weak types fun's outputs had.
    return [
        lax.convert_element_type(o, a.dtype, weak_type=True)
        if a.weak_type and not aval_of(o).weak_type
        else o
        for o, a in zip(outs, avals, strict=True)
    ]


def weak_tangents(
    tangents: Sequence[Any], primal_avals: Sequence[ShapedArray], passed: Sequence[bool]
) -> list[Any]:
    """JAX's tangent outputs are weakly typed where their primal outputs are, except an input
    returned unchanged (`passed`), whose tangent is the one given. None stays None."""
    return [
        t if t is None or p else restore_weak_types([t], [a])[0]
        for t, a, p in zip(tangents, primal_avals, passed, strict=True)
    ]


def passed_through(traced: core.TracedFunction) -> list[bool]:
    """For each output of `traced`, whether it is one of its inputs returned unchanged."""
    arguments, _, returned = traced.parts()
    inputs = arguments[: len(traced.in_avals)]
    return [any(value == a for a in inputs) for value in returned]


def float0_zeros(aval: ShapedArray) -> np.ndarray:
    return np.zeros(aval.shape, dtypes.float0)


def as_tangent(t: Any, primal_aval: ShapedArray) -> Any:
    expected = tangent_aval(primal_aval)
    if aval_of(t).dtype != expected.dtype or aval_of(t).weak_type:
        return lax.convert_element_type(t, expected.dtype)
    return t


# --- linearizing and running -------------------------------------------------------------------


def with_captured(fn: core.TracedFunction, captured: Sequence[Any]) -> core.TracedFunction:
    # L's captured residuals are tracers of the finished K; bind the values K produced instead.
    return fn.with_signature(fn.in_avals, captured)


def linearize_and_run(
    fun: Callable,
    primals: Sequence[Any],
    has_aux: bool,
    mask_override: Sequence[bool] | None = None,
):
    """Linearizes fun at primals; runs K. Returns (Linearized, outputs, L's captured, info)."""
    leaves, in_tree = tree_util.tree_flatten(tuple(primals))
    mask = (
        list(mask_override)
        if mask_override is not None
        else [is_differentiable_dtype(aval_of(x).dtype) for x in leaves]
    )
    info: dict[str, Any] = {
        "in_tree": in_tree,
        "mask": mask,
        "in_avals": [aval_of(x) for x in leaves],
    }

    def impl(*flat):
        traced, out_tree, aux_tree, num_out = trace_flat(fun, in_tree, flat, has_aux)
        lin = linearize_traced(traced, mask, sources=flat)
        outs, captured = call_primal(lin, flat)
        outs = restore_weak_types(outs, traced.out_avals)
        info.update(
            lin=lin,
            out_tree=out_tree,
            aux_tree=aux_tree,
            num_out=num_out,
            out_avals=[aval_of(o) for o in outs],
            zero=lin.out_tangent_zero,
            passed=passed_through(traced),
            num_outs_total=len(outs),
        )
        return [*outs, *captured]

    results = run_staged(impl, leaves)
    total = info["num_outs_total"]
    return info["lin"], results[:total], results[total:], info


# --- argument checks ---------------------------------------------------------------------------


def normalize_argnums(argnums: int | Sequence[int], nargs: int, name: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise TypeError(
                f"{name}: differentiating with respect to argnums={argnums} requires at least "
                f"{(n if n >= 0 else -n) + (1 if n >= 0 else 0)} positional arguments to be "
                f"passed by the caller, but got only {nargs} positional arguments."
            )
    return tuple(n % nargs for n in nums)


def check_input_dtypes(leaves, holomorphic: bool, allow_int: bool, name: str) -> None:
    for x in leaves:
        dt = aval_of(x).dtype
        if holomorphic:
            if dt.kind != "c":
                raise TypeError(
                    f"{name} with holomorphic=True requires inputs with complex "
                    f"dtype, but got {dt.name}."
                )
        elif dt.kind in "biu" or dt == dtypes.float0:
            if not allow_int:
                raise TypeError(
                    f"{name} requires real- or complex-valued inputs (input dtype that is a "
                    f"sub-dtype of np.inexact), but got {dt.name}. If you want to use Boolean- "
                    "or integer-valued inputs, use vjp or set allow_int to True."
                )
        elif not dtypes.issubdtype(dt, np.inexact):
            raise TypeError(f"{name} requires numerical-valued inputs, but got {dt.name}.")
