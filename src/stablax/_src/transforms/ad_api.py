"""The user-facing autodiff API: jvp, linearize, vjp, grad, value_and_grad, jacfwd, jacrev, hessian.

Each call traces the user's function to a StableHLO function, rewrites it (transforms/ad.py) and
runs the result as one program: inlined into an enclosing trace (`jit(grad(f))`), or compiled
and executed (cached by module fingerprint, so an un-jitted training loop compiles once).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dtypes, tree_util
from stablax._src import ir as mlir
from stablax._src.core import ShapedArray
from stablax._src.lax._batch_rules import bdim_at_front
from stablax._src.transforms.ad import (
    add_tangents,
    aval_of,
    call_primal,
    is_differentiable_dtype,
    jvp_traced,
    linearize_traced,
    tangent_aval,
    transpose_traced,
    zeros_like_aval,
)
from stablax._src.transforms.batching import batch_traced
from stablax._src.transforms.interpret import interpret, run_staged

# --- tracing user functions --------------------------------------------------------------------


def _trace_flat(fun: Callable, in_tree: Any, leaves: Sequence[Any], has_aux: bool = False):
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
            aux_leaves, boxes["aux_tree"] = tree_util.tree_flatten(aux)
        else:
            aux_leaves = []
        out_leaves, boxes["out_tree"] = tree_util.tree_flatten(out)
        boxes["num_out"] = len(out_leaves)
        for leaf in out_leaves:
            _check_output(leaf)
        return [*out_leaves, *aux_leaves]

    traced = core.trace_to_func(flat, avals, name="main", sources=list(leaves))
    return traced, boxes["out_tree"], boxes.get("aux_tree"), boxes["num_out"]


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


def _restore_weak_types(outs: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    # Rewrites re-emit constants strongly typed: give outputs the weak types fun's outputs had.
    from stablax._src import lax

    return [
        lax.convert_element_type(o, a.dtype, weak_type=True)
        if a.weak_type and not aval_of(o).weak_type
        else o
        for o, a in zip(outs, avals, strict=True)
    ]


def _float0_zeros(aval: ShapedArray) -> np.ndarray:
    return np.zeros(aval.shape, dtypes.float0)


# --- jvp and linearize -------------------------------------------------------------------------


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
        traced, out_tree, aux_tree, num_out = _trace_flat(fun, p_tree, primals_in, has_aux)
        boxes.update(out_tree=out_tree, aux_tree=aux_tree, num_out=num_out)
        tangents_full = [
            _as_tangent(next(tangents_in), aval_of(p)) if m else None
            for p, m in zip(primals_in, mask, strict=True)
        ]
        outs, out_tangents = jvp_traced(traced, primals_in, tangents_full)
        outs = _restore_weak_types(outs, traced.out_avals)
        boxes["out_avals"] = [aval_of(o) for o in outs]
        boxes["zero"] = [
            t is None or not is_differentiable_dtype(aval_of(o).dtype)
            for o, t in zip(outs, out_tangents, strict=True)
        ]
        live = [
            t for t, z in zip(out_tangents[:num_out], boxes["zero"][:num_out], strict=True) if not z
        ]
        zero_float = [
            zeros_like_aval(tangent_aval(aval_of(o)))
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
            out_tangents.append(_float0_zeros(aval))
    primal_out = tree_util.tree_unflatten(boxes["out_tree"], outs[:num_out])
    tangent_out = tree_util.tree_unflatten(boxes["out_tree"], out_tangents)
    if has_aux:
        aux = tree_util.tree_unflatten(boxes["aux_tree"], outs[num_out:])
        return primal_out, tangent_out, aux
    return primal_out, tangent_out


def _as_tangent(t: Any, primal_aval: ShapedArray) -> Any:
    from stablax._src import lax

    expected = tangent_aval(primal_aval)
    if aval_of(t).dtype != expected.dtype or aval_of(t).weak_type:
        return lax.convert_element_type(t, expected.dtype)
    return t


def linearize(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """(fun(*primals), f_jvp) where f_jvp(*tangents) evaluates the linear map at `primals`."""
    lin, outs, captured, info = _linearize_and_run(fun, primals, has_aux)
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
            lambda *xs: interpret(_with_captured(lin.linear_fn, xs[n:]), xs[:n]), [*live, *captured]
        )
        return _assemble_out_tangents(info, res)

    primal_out = tree_util.tree_unflatten(info["out_tree"], outs[:num_out])
    if has_aux:
        return primal_out, f_jvp, tree_util.tree_unflatten(info["aux_tree"], outs[num_out:])
    return primal_out, f_jvp


def _with_captured(fn: core.TracedFunction, captured: Sequence[Any]) -> core.TracedFunction:
    # L's captured residuals are tracers of the finished K; bind the values K produced instead.
    return core.TracedFunction(fn.module, fn.in_avals, fn.out_avals, captured, fn.trace)


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
            out.append(_float0_zeros(aval))
    return tree_util.tree_unflatten(info["out_tree"], out)


def _linearize_and_run(
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
        traced, out_tree, aux_tree, num_out = _trace_flat(fun, in_tree, flat, has_aux)
        lin = linearize_traced(traced, mask, sources=flat)
        outs, captured = call_primal(lin, flat)
        outs = _restore_weak_types(outs, traced.out_avals)
        info.update(
            lin=lin,
            out_tree=out_tree,
            aux_tree=aux_tree,
            num_out=num_out,
            out_avals=[aval_of(o) for o in outs],
            zero=lin.out_tangent_zero,
            num_outs_total=len(outs),
        )
        return [*outs, *captured]

    results = run_staged(impl, leaves)
    total = info["num_outs_total"]
    return info["lin"], results[:total], results[total:], info


# --- reverse mode ------------------------------------------------------------------------------


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """Reverse mode: `(fun(*primals), vjp_fun)` with vjp_fun(ct) the cotangents of the inputs.

    Args:
      fun: a function of arrays (pytrees allowed).
      primals: the point at which to differentiate.
      has_aux: fun returns (output, aux); aux is returned as a third value.
    """
    lin, outs, captured, info = _linearize_and_run(fun, primals, has_aux)
    num_out = info["num_out"]

    def vjp_fun(cotangent: Any) -> tuple[Any, ...]:
        return _pull_back(lin, info, captured, cotangent)

    primal_out = tree_util.tree_unflatten(info["out_tree"], outs[:num_out])
    if has_aux:
        return primal_out, vjp_fun, tree_util.tree_unflatten(info["aux_tree"], outs[num_out:])
    return primal_out, vjp_fun


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
        cts = [_as_tangent(c, a) for c, a in zip(flat[:n_live], _live_avals(info), strict=True)]
        cts += [None] * (num_linear_outs - len(cts))
        in_cts = transpose_traced(lin.linear_fn, flat[n_live:], cts)
        return [_input_cotangent(c, a) for c, a in zip(in_cts, live_in, strict=True)]

    results = iter(run_staged(impl, [*live_cts, *captured]))
    grads = []
    for aval, m in zip(info["in_avals"], info["mask"], strict=True):
        grads.append(next(results) if m else _float0_zeros(aval))
    return tree_util.tree_unflatten(info["in_tree"], grads)


def _input_cotangent(ct: Any, primal_aval: ShapedArray) -> Any:
    # Zeros for a symbolic zero; weakly typed like its primal (grad(f)(1.0) is weak, as in JAX).
    from stablax._src import lax

    aval = tangent_aval(primal_aval)
    ct = zeros_like_aval(aval) if ct is None else ct
    return lax.convert_element_type(ct, aval.dtype, weak_type=True) if primal_aval.weak_type else ct


def _live_avals(info) -> list[ShapedArray]:
    num_out = info["num_out"]
    return [
        tangent_aval(a)
        for a, z in zip(info["out_avals"][:num_out], info["zero"][:num_out], strict=True)
        if not z
    ]


def _normalize_argnums(argnums: int | Sequence[int], nargs: int, name: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise TypeError(
                f"{name}: differentiating with respect to argnums={argnums} requires at least "
                f"{(n if n >= 0 else -n) + (1 if n >= 0 else 0)} positional arguments to be "
                f"passed by the caller, but got only {nargs} positional arguments."
            )
    return tuple(n % nargs for n in nums)


def _check_input_dtypes(leaves, holomorphic: bool, allow_int: bool, name: str) -> None:
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
        nums = _normalize_argnums(argnums, len(args), "grad")
        diff_args = tuple(args[i] for i in nums)
        _check_input_dtypes(tree_util.tree_leaves(diff_args), holomorphic, allow_int, "grad")

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
            lin, outs, captured, info = _linearize_and_run(
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
            next(live) if m else _float0_zeros(aval_of(x))
            for x, m in zip(leaves, mask, strict=True)
        ]
        grads = tree_util.tree_unflatten(in_tree, grads)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = results[0]
        if has_aux:
            aux = tree_util.tree_unflatten(info["aux_tree"], results[num_out:num_outs_total])
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


# --- Jacobians ---------------------------------------------------------------------------------


def jacfwd(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """The Jacobian by forward mode: output shape + input shape, column by column."""
    return _jacobian(fun, argnums, has_aux, holomorphic, False, forward=True, name="jacfwd")


def jacrev(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable:
    """The Jacobian by reverse mode: output shape + input shape, row by row."""
    return _jacobian(fun, argnums, has_aux, holomorphic, allow_int, forward=False, name="jacrev")


jacobian = jacrev


def hessian(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """The Hessian, as jacfwd(jacrev(fun))."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def _jacobian(fun, argnums, has_aux, holomorphic, allow_int, forward: bool, name: str) -> Callable:
    @functools.wraps(fun, updated=())
    def jac_fn(*args: Any, **kwargs: Any) -> Any:
        from stablax._src import lax

        nums = _normalize_argnums(argnums, len(args), name)
        diff_args = tuple(args[i] for i in nums)
        in_leaves, in_tree = tree_util.tree_flatten(diff_args)
        _check_input_dtypes(in_leaves, holomorphic, allow_int, name)

        def partial_fun(*diff):
            full = list(args)
            for i, value in zip(nums, diff, strict=True):
                full[i] = value
            return fun(*full, **kwargs)

        in_avals = [aval_of(x) for x in in_leaves]
        boxes: dict[str, Any] = {}

        def impl(*flat):
            traced, out_tree, aux_tree, num_out = _trace_flat(partial_fun, in_tree, flat, has_aux)
            boxes.update(out_tree=out_tree, aux_tree=aux_tree, num_out=num_out)
            lin = linearize_traced(
                traced, [is_differentiable_dtype(a.dtype) for a in in_avals], sources=flat
            )
            outs, captured = call_primal(lin, flat)
            out_avals = [aval_of(o) for o in outs[:num_out]]
            # L's first outputs are the tangents of the main outputs that have one.
            live_out = [i for i, z in enumerate(lin.out_tangent_zero[:num_out]) if not z]
            live_in = [j for j, a in enumerate(in_avals) if is_differentiable_dtype(a.dtype)]
            # pieces[i][j]: d out_i / d in_j as a list of out-shaped columns (forward) or of
            # in-shaped rows (reverse); absent pieces are zeros.
            # One batched program over the whole standard basis (vmap of the linear map, or of
            # its transpose), as JAX builds Jacobians: no per-element unrolling.
            pieces: list[list[Any]] = [[[] for _ in in_avals] for _ in out_avals]
            if forward:
                linear_fn = _with_captured(lin.linear_fn, captured)
                basis = _stacked_basis([in_avals[j] for j in live_in])
                if basis:
                    cols, dims = batch_traced(linear_fn, basis, [0] * len(basis), _total(basis))
                    for i, col, d in zip(live_out, cols, dims, strict=False):
                        col = bdim_at_front(col, d, _total(basis))
                        for j, piece in zip(
                            live_in, _split_rows(col, [in_avals[j] for j in live_in]), strict=True
                        ):
                            pieces[i][j] = piece
            else:
                num_linear_outs = len(lin.linear_fn.out_avals)
                basis = _stacked_basis([out_avals[i] for i in live_out])
                if basis:
                    n_live = len(basis)

                    def pull_back(*cts):
                        full = [*cts, *([None] * (num_linear_outs - n_live))]
                        rows = transpose_traced(lin.linear_fn, captured, full)
                        return [
                            r if r is not None else zeros_like_aval(tangent_aval(in_avals[j]))
                            for j, r in zip(live_in, rows, strict=True)
                        ]

                    transposed = core.trace_to_func(pull_back, [_unbatched(b) for b in basis])
                    rows, dims = batch_traced(transposed, basis, [0] * n_live, _total(basis))
                    for j, row, d in zip(live_in, rows, dims, strict=True):
                        row = bdim_at_front(row, d, _total(basis))
                        for i, piece in zip(
                            live_out,
                            _split_rows(row, [out_avals[i] for i in live_out]),
                            strict=True,
                        ):
                            pieces[i][j] = piece
            boxes["out_avals"] = out_avals
            blocks = [
                _assemble(pieces[i][j], out_avals[i], in_avals[j], forward)
                for i in range(num_out)
                for j in range(len(in_avals))
                if _block_dtype(out_avals[i], in_avals[j], forward) != dtypes.float0
            ]
            return [*blocks, *outs[num_out:]]

        results = iter(run_staged(impl, in_leaves))
        rows = []
        for out_aval in boxes["out_avals"]:
            row = [
                # Integer rows (columns) are zeros of the integer dtype, as in JAX.
                lax.full((*out_aval.shape, *a.shape), 0, (out_aval if forward else a).dtype)
                if _block_dtype(out_aval, a, forward) == dtypes.float0
                else next(results)
                for a in in_avals
            ]
            row_tree = tree_util.tree_unflatten(in_tree, row)
            rows.append(row_tree[0] if isinstance(argnums, int) else row_tree)
        jac = tree_util.tree_unflatten(boxes["out_tree"], rows)
        if has_aux:
            return jac, tree_util.tree_unflatten(boxes["aux_tree"], list(results))
        return jac

    return jac_fn


def _basis(aval: ShapedArray, k: int) -> Any:
    """The k-th unit vector in the tangent space of `aval`."""
    from stablax._src import lax

    dtype = tangent_aval(aval).dtype
    if aval.size <= 256:
        flat = np.zeros(aval.size, dtype)
        flat[k] = 1
        return flat.reshape(aval.shape)
    one_hot = lax.eq(lax.iota(np.int32, aval.size), np.int32(k))
    return lax.reshape(lax.convert_element_type(one_hot, dtype), aval.shape)


def _stacked_basis(avals: list[ShapedArray]) -> list[Any]:
    """The standard basis over all of `avals` at once: for each aval an array of shape
    (total size, *aval.shape) holding its slice of the identity matrix."""
    from stablax._src import lax

    sizes = [a.size for a in avals]
    total = sum(sizes)
    if total == 0:
        return []
    eye = lax.eq(
        lax.broadcasted_iota(np.int32, (total, total), 0),
        lax.broadcasted_iota(np.int32, (total, total), 1),
    )
    out, offset = [], 0
    for aval, size in zip(avals, sizes, strict=True):
        block = lax.slice(eye, (0, offset), (total, offset + size))
        block = lax.convert_element_type(block, tangent_aval(aval).dtype)
        out.append(lax.reshape(block, (total, *aval.shape)))
        offset += size
    return out


def _total(basis: list[Any]) -> int:
    return aval_of(basis[0]).shape[0]


def _unbatched(stacked: Any) -> ShapedArray:
    aval = aval_of(stacked)
    return ShapedArray(aval.shape[1:], aval.dtype)


def _split_rows(stacked: Any, avals: list[ShapedArray]) -> list[Any]:
    """Splits (total, ...) along axis 0 into one (aval.size, ...) piece per aval."""
    from stablax._src import lax

    out, offset = [], 0
    shape = aval_of(stacked).shape
    for aval in avals:
        start = (offset, *([0] * (len(shape) - 1)))
        limit = (offset + aval.size, *shape[1:])
        out.append(lax.slice(stacked, start, limit))
        offset += aval.size
    return out


def _block_dtype(out_aval: ShapedArray, in_aval: ShapedArray, column_major: bool) -> np.dtype:
    return tangent_aval(out_aval if column_major else in_aval).dtype


def _assemble(
    pieces: list[Any], out_aval: ShapedArray, in_aval: ShapedArray, column_major: bool
) -> Any:
    """Stacks columns (out-shaped, one per input element) or rows into out.shape + in.shape."""
    from stablax._src import lax

    dtype = _block_dtype(out_aval, in_aval, column_major)
    shape_each = out_aval.shape if column_major else in_aval.shape
    shape = (*out_aval.shape, *in_aval.shape)
    if isinstance(pieces, list):
        return lax.full(shape, 0, dtype)  # no batched piece: the block is zero
    stacked = pieces  # (size, *shape_each), one row per basis vector
    if aval_of(stacked).dtype != dtype:
        stacked = lax.convert_element_type(stacked, dtype)
    if column_major:  # (in_size, *out_shape) -> (*out_shape, in_size)
        stacked = lax.transpose(stacked, (*range(1, len(shape_each) + 1), 0))
    return lax.reshape(stacked, shape)


# --- misc --------------------------------------------------------------------------------------


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
            traced, out_tree, _, _ = _trace_flat(fun, in_tree, xs)
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


from stablax._src.lax._custom import stop_gradient  # noqa: E402  (re-exported)

__all__ = [
    "jvp",
    "linearize",
    "vjp",
    "grad",
    "value_and_grad",
    "jacfwd",
    "jacrev",
    "jacobian",
    "hessian",
    "linear_transpose",
    "stop_gradient",
    "add_tangents",
    "mlir",
]
