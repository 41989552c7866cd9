"""Jacobians: `jacfwd`, `jacrev` (`jacobian`) and `hessian`.

Each is one batched program over the standard basis (vmap of the linear map, or of its
transpose), as JAX builds them: no per-element unrolling.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dtypes, lax, tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters.ad import (
    call_primal,
    is_differentiable_dtype,
    linearize_traced,
    tangent_aval,
    transpose_traced,
    zeros_like_aval,
)
from stablax._src.interpreters.batching import batch_traced, bdim_at_front
from stablax._src.staging import run_staged
from stablax._src.transforms.ad_reverse import cotangent_is_weak
from stablax._src.transforms.ad_trace import (
    check_input_dtypes,
    normalize_argnums,
    trace_flat,
    with_captured,
)


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
        nums = normalize_argnums(argnums, len(args), name)
        diff_args = tuple(args[i] for i in nums)
        in_leaves, in_tree = tree_util.tree_flatten(diff_args)
        check_input_dtypes(in_leaves, holomorphic, allow_int, name)

        def partial_fun(*diff):
            full = list(args)
            for i, value in zip(nums, diff, strict=True):
                full[i] = value
            return fun(*full, **kwargs)

        in_avals = [aval_of(x) for x in in_leaves]
        boxes: dict[str, Any] = {}

        def impl(*flat):
            traced, out_tree, aux_tree, num_out = trace_flat(partial_fun, in_tree, flat, has_aux)
            boxes.update(out_tree=out_tree, aux_tree=aux_tree, num_out=num_out)
            lin = linearize_traced(
                traced, [is_differentiable_dtype(a.dtype) for a in in_avals], sources=flat
            )
            outs, captured = call_primal(lin, flat)
            out_avals = list(traced.out_avals[:num_out])  # with fun's weak types
            # L's first outputs are the tangents of the main outputs that have one.
            live_out = [i for i, z in enumerate(lin.out_tangent_zero[:num_out]) if not z]
            live_in = [j for j, a in enumerate(in_avals) if is_differentiable_dtype(a.dtype)]
            # pieces[i][j]: d out_i / d in_j as a list of out-shaped columns (forward) or of
            # in-shaped rows (reverse); absent pieces are zeros.
            # One batched program over the whole standard basis (vmap of the linear map, or of
            # its transpose), as JAX builds Jacobians: no per-element unrolling.
            pieces: list[list[Any]] = [[[] for _ in in_avals] for _ in out_avals]
            if forward:
                linear_fn = with_captured(lin.linear_fn, captured)
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
            return jac, boxes["aux_tree"].unflatten(list(results))
        return jac

    return jac_fn


def _basis(aval: ShapedArray, k: int) -> Any:
    """The k-th unit vector in the tangent space of `aval`."""
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
    block = lax.reshape(stacked, shape)
    # Weakly typed as JAX's: forward, as the tangent of the output; reverse, as the cotangent of
    # the input.
    if out_aval.weak_type if column_major else cotangent_is_weak(in_aval, [out_aval]):
        block = lax.convert_element_type(block, dtype, weak_type=True)
    return block
