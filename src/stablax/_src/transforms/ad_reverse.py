"""Reverse-mode autodiff API: `vjp`, `grad`, `value_and_grad` and `linear_transpose`.

Each transposes the linear map of the traced function (transforms/ad.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dtypes, lax, tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters.ad import (
    is_differentiable_dtype,
    tangent_aval,
    transpose_traced,
    zeros_like_aval,
)
from stablax._src.staging import run_staged
from stablax._src.transforms.ad_trace import (
    as_tangent,
    check_input_dtypes,
    float0_zeros,
    linearize_and_run,
    normalize_argnums,
    trace_flat,
)
from stablax._src.transforms.vjp_refs import VJP


def vjp(
    fun: Callable, *primals: Any, has_aux: bool = False, reduce_axes: Sequence[Any] = ()
) -> Any:
    """Reverse mode: `(fun(*primals), vjp_fun)` with vjp_fun(ct) the cotangents of the inputs.

    Args:
      fun: a function of arrays (pytrees allowed).
      primals: the point at which to differentiate.
      has_aux: fun returns (output, aux); aux is returned as a third value.
      reduce_axes: deprecated in JAX; only the empty default is accepted, as there.
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to vjp is deprecated")
    lin, outs, captured, info = linearize_and_run(fun, primals, has_aux)
    num_out = info["num_out"]
    # A pytree whose leaves are the residuals: it can be returned from jit, as JAX's can.
    vjp_fun = VJP(_Pullback(lin, info), list(captured))
    primal_out = tree_util.tree_unflatten(info["out_tree"], outs[:num_out])
    if has_aux:
        return primal_out, vjp_fun, info["aux_tree"].unflatten(outs[num_out:])
    return primal_out, vjp_fun


class _Pullback:
    """The static part of a vjp function: the linear function and what the call recorded."""

    def __init__(self, lin: Any, info: dict[str, Any]) -> None:
        self.lin = lin
        self.info = info

    def __call__(self, captured: list[Any], cotangent: Any) -> tuple[Any, ...]:
        return _pull_back(self.lin, self.info, captured, cotangent)


def _pull_back(lin, info, captured, cotangent) -> tuple[Any, ...]:
    ct_leaves, ct_tree = tree_util.tree_flatten(cotangent)
    if ct_tree != info["out_tree"]:
        raise TypeError(
            f"Tree structure of cotangent input {ct_tree}, does not match structure of primal "
            f"output {info['out_tree']}."
        )
    num_out = info["num_out"]
    for ct, aval in zip(ct_leaves, info["out_avals"][:num_out], strict=True):
        ct_aval = aval_of(ct)
        expected = tangent_aval(aval)
        if ct_aval.shape != aval.shape:
            raise ValueError(
                f"Shape of cotangent input to vjp pullback function {ct_aval.shape} must be the "
                f"same as the shape of corresponding primal input {aval.shape}."
            )
        if ct_aval.dtype != expected.dtype and not ct_aval.weak_type:
            raise ValueError(
                f"Type of cotangent input to vjp pullback function ({ct_aval.dtype}) is not the "
                f"expected tangent type ({expected.dtype}) of corresponding primal output with "
                f"dtype {aval.dtype}."
            )
    live_cts = [ct for ct, z in zip(ct_leaves, info["zero"][:num_out], strict=True) if not z]
    # Outputs beyond num_out (aux) are never differentiated.
    n_live = len(live_cts)
    num_linear_outs = len(lin.linear_fn.out_avals)
    live_in = [a for a, m in zip(info["in_avals"], info["mask"], strict=True) if m]

    def impl(*flat):
        cts = [as_tangent(c, a) for c, a in zip(flat[:n_live], _live_avals(info), strict=True)]
        cts += [None] * (num_linear_outs - len(cts))
        in_cts = transpose_traced(lin.linear_fn, flat[n_live:], cts)
        return [
            _input_cotangent(c, a, cotangent_is_weak(a, info["out_avals"][:num_out]))
            for c, a in zip(in_cts, live_in, strict=True)
        ]

    results = iter(run_staged(impl, [*live_cts, *captured]))
    grads = []
    for aval, m in zip(info["in_avals"], info["mask"], strict=True):
        grads.append(next(results) if m else float0_zeros(aval))
    return tree_util.tree_unflatten(info["in_tree"], grads)


def _input_cotangent(ct: Any, primal_aval: ShapedArray, weak: bool) -> Any:
    # Zeros for a symbolic zero; weakly typed where `weak` says (see `cotangent_is_weak`).
    aval = tangent_aval(primal_aval)
    ct = zeros_like_aval(aval) if ct is None else ct
    return lax.convert_element_type(ct, aval.dtype, weak_type=True) if weak else ct


def cotangent_is_weak(primal_aval: ShapedArray, out_avals: Sequence[ShapedArray]) -> bool:
    """JAX's input cotangents are weakly typed like their primal (grad(f)(1.0) is weak), except a
    complex input's when an output is real: the cotangent then comes out of the transpose of a
    complex-to-real op (real, imag, abs), which JAX builds with strongly typed zeros."""
    if not primal_aval.weak_type:
        return False
    return not (
        dtypes.issubdtype(primal_aval.dtype, np.complexfloating)
        and any(not dtypes.issubdtype(a.dtype, np.complexfloating) for a in out_avals)
    )


def _live_avals(info) -> list[ShapedArray]:
    num_out = info["num_out"]
    return [
        tangent_aval(a)
        for a, z in zip(info["out_avals"][:num_out], info["zero"][:num_out], strict=True)
        if not z
    ]


def value_and_grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence[Any] = (),
) -> Callable:
    """A function returning `(fun(*args), gradient of fun w.r.t. args[argnums])`.

    fun must return a real scalar (complex with holomorphic=True).
    """

    @functools.wraps(fun, updated=())
    def value_and_grad_fn(*args: Any, **kwargs: Any) -> Any:
        nums = normalize_argnums(argnums, len(args), "grad")
        diff_args = tuple(args[i] for i in nums)
        check_input_dtypes(tree_util.tree_leaves(diff_args), holomorphic, allow_int, "grad")

        def partial_fun(*diff):
            full = list(args)
            for i, value in zip(nums, diff, strict=True):
                full[i] = value
            return fun(*full, **kwargs)

        leaves, in_tree = tree_util.tree_flatten(diff_args)
        mask = [is_differentiable_dtype(aval_of(x).dtype) for x in leaves]
        boxes: dict[str, Any] = {}

        def forward_and_backward(*flat):
            # K and the transpose of L in one program: an un-jitted grad compiles once.
            lin, outs, captured, info = linearize_and_run(
                partial_fun, tree_util.tree_unflatten(in_tree, list(flat)), has_aux
            )
            out_aval = _check_grad_output(info, holomorphic)
            one = tree_util.tree_unflatten(info["out_tree"], [np.ones((), out_aval.dtype)])
            grads = tree_util.tree_leaves(_pull_back(lin, info, captured, one))
            boxes["info"] = info
            return [*outs, *[g for g, m in zip(grads, mask, strict=True) if m]]

        results = run_staged(forward_and_backward, leaves)
        info = boxes["info"]
        num_out, num_outs_total = info["num_out"], len(info["out_avals"])
        live = iter(results[num_outs_total:])
        grads = [
            next(live) if m else float0_zeros(aval_of(x)) for x, m in zip(leaves, mask, strict=True)
        ]
        grads = tree_util.tree_unflatten(in_tree, grads)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = results[0]
        if has_aux:
            aux = info["aux_tree"].unflatten(results[num_out:num_outs_total])
            return (value, aux), grads
        return value, grads

    return value_and_grad_fn


def _check_grad_output(info: dict[str, Any], holomorphic: bool) -> ShapedArray:
    num_out = info["num_out"]
    if (
        num_out != 1
        or not tree_util.treedef_is_leaf(info["out_tree"])
        or info["out_avals"][0].shape != ()
    ):
        shape = info["out_avals"][0].shape if num_out == 1 else None
        raise TypeError(
            "Gradient only defined for scalar-output functions. Output "
            + (f"had shape: {shape}." if shape else f"was a pytree {info['out_tree']}.")
        )
    out_aval = info["out_avals"][0]
    if holomorphic:
        if out_aval.dtype.kind != "c":
            raise TypeError(
                "grad with holomorphic=True requires outputs with complex dtype, "
                f"but got {out_aval.dtype.name}."
            )
    elif not dtypes.issubdtype(out_aval.dtype, np.floating):
        raise TypeError(
            "grad requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {out_aval.dtype.name}. For holomorphic differentiation, "
            "pass holomorphic=True. For differentiation of non-holomorphic functions "
            "involving complex outputs, use jax.vjp directly."
        )
    return out_aval


def grad(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence[Any] = (),
) -> Callable:
    """The gradient of a scalar function w.r.t. `args[argnums]` (reverse mode).

    Example: `grad(jnp.tanh)(1.0)` is 0.41997434.
    """
    value_and_grad_fn = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun, updated=())
    def grad_fn(*args: Any, **kwargs: Any) -> Any:
        if has_aux:
            (_, aux), g = value_and_grad_fn(*args, **kwargs)
            return g, aux
        _, g = value_and_grad_fn(*args, **kwargs)
        return g

    return grad_fn


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: Sequence[Any] = ()) -> Callable:
    """The transpose of a linear function, given example inputs for shapes and dtypes."""
    leaves, in_tree = tree_util.tree_flatten(tuple(primals))
    in_avals = [aval_of(x) for x in leaves]
    for aval in in_avals:
        if not is_differentiable_dtype(aval.dtype):
            raise TypeError(
                "linear_transpose only supports [float or complex] -> "
                f"[float or complex], got input dtype {aval.dtype.name}"
            )

    def transposed(*cotangents: Any) -> Any:
        ct_leaves, _ = tree_util.tree_flatten(cotangents if len(cotangents) != 1 else cotangents[0])
        info: dict[str, Any] = {}

        def impl(*flat):
            cts, xs = flat[: len(ct_leaves)], flat[len(ct_leaves) :]
            traced, out_tree, _, _ = trace_flat(fun, in_tree, xs)
            info["out_tree"] = out_tree
            in_cts = transpose_traced(_as_linear(traced), traced.captured, list(cts))
            return [
                c if c is not None else zeros_like_aval(a)
                for c, a in zip(in_cts, in_avals, strict=True)
            ]

        placeholders = [np.zeros(a.shape, a.dtype) for a in in_avals]
        outs = run_staged(impl, [*ct_leaves, *placeholders])
        return tree_util.tree_unflatten(in_tree, outs)

    return transposed


def _as_linear(traced: core.TracedFunction) -> core.TracedFunction:
    return traced
