"""Windowed reductions: `reduce_window` (`stablehlo.reduce_window`) and its rules. Its window
parameters and the padding helpers shared with conv are in `_window_params`; the cumulative ops
built on it live in `_cumulative`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import Tracer, current_trace
from stablax._src.dispatch import bind
from stablax._src.interpreters.ad import is_undefined
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax import _reduce_window_generic as generic
from stablax._src.lax._argcheck import lax_ints
from stablax._src.lax._cumulative_windows import cumulative_tangent, logaddexp
from stablax._src.lax._elementwise_common import INEXACT, check_dtype
from stablax._src.lax._reduce_bodies import emit_monoid_body, emit_region_body, int_tuple, pad_pairs
from stablax._src.lax._reduce_generic import monoid_of
from stablax._src.lax._reduce_monoids import MONOIDS, identity_element, init_operand, reduce_sum
from stablax._src.lax._reductions import (
    MONOID_COMBINE,
    chooser_tangent,
    decode_computation,
    exclusive_products,
    monoid_name,
    zeros_like,
)
from stablax._src.lax._shapes import batch_at, broadcast_in_dim, full_like, reshape
from stablax._src.lax._slice_pad import concatenate, pad
from stablax._src.lax._slice_pad import slice as slice_op
from stablax._src.lax._window_params import (
    dilate_dim,
    padtype_to_pads,
    reduce_window_shape_tuple,
    strictly_positive,
    window_attributes,
    window_params,
    window_shape_rule,
    with_batch_window,
)
from stablax._src.lax._window_params import (
    normalize_padding as normalize_padding,  # conv's, imported from here
)
from stablax._src.op_rules import def_op

# computation -> accepted dtypes; the monoids' bodies are one op, "logaddexp" a short formula.
WINDOW_COMPUTATIONS: dict[str, tuple] = {
    **{name: groups for name, (_, groups) in MONOIDS.items()},
    "logaddexp": INEXACT,
}

# --- reduce_window -----------------------------------------------------------------------------


def _reduce_window_rule(*args: ShapedArray, computation, **params) -> Any:
    if not isinstance(computation, str):  # a traced body: _reduce_window_generic.py
        return generic.rule(*args, computation=computation, **params)
    x, init = args
    check_dtype("reduce_window", x.dtype, WINDOW_COMPUTATIONS[computation])
    if init.shape != () or init.dtype != x.dtype:
        raise TypeError(
            f"lax.reduce_window: init_value must be a scalar of the operand's dtype "
            f"{x.dtype.name}, got {init.str_short()}{mlir.where_suffix()}"
        )
    return ShapedArray(window_shape_rule(x, params), x.dtype, x.weak_type)


def _reduce_window_lowering(operands, in_avals, out_avals, *, computation, **params):
    if not isinstance(computation, str):
        return generic.lowering(operands, in_avals, out_avals, computation=computation, **params)
    dtype = in_avals[0].dtype
    op = mlir.emit(
        "stablehlo.reduce_window",
        operands,
        [mlir.aval_type(out_avals[0])],
        window_attributes(params),
        regions=1,
    )
    scalar = mlir.tensor_type((), dtype)
    block = op.regions[0].blocks.append(scalar, scalar)
    if computation == "logaddexp":
        emit_region_body(block, lambda a, b: (logaddexp(a, b, region_constant),))
    else:
        emit_monoid_body(block, computation, dtype)
    return list(op.results)


def region_constant(like: Any, value: Any) -> Any:
    """A scalar constant of `like`'s dtype emitted at the insertion point (inside a region body,
    where a trace's own constants, emitted outside the region, cannot be used)."""
    dtype = aval_of(like).dtype
    return Tracer(current_trace(), ShapedArray((), dtype), mlir.constant(np.asarray(value, dtype)))


def _reduce_window_decode(op: Any, owner: Any) -> dict[str, Any]:
    attrs = op.attributes
    return {
        "computation": decode_computation(op, owner),
        "window_dimensions": int_tuple(attrs["window_dimensions"]),
        "window_strides": int_tuple(attrs["window_strides"]),
        "padding": pad_pairs(attrs["padding"]),
        "base_dilation": int_tuple(attrs["base_dilations"]),
        "window_dilation": int_tuple(attrs["window_dilations"]),
    }


# --- derivatives -------------------------------------------------------------------------------


def _unfold(x: Any, pad_value: Any, params: dict[str, Any]) -> Any:
    """Every window's elements stacked on a new leading axis: (window size, *result shape).

    The sum is linear and needs none of this; max, min, mul and logaddexp differentiate through
    it with the same formulas as `reduce`. Memory grows with the window size, as for cumulative
    ops along long axes (n x n).
    """
    padded = pad(
        x,
        pad_value,
        [
            (lo, hi, b - 1)
            for (lo, hi), b in zip(params["padding"], params["base_dilation"], strict=True)
        ],
    )
    out_shape = reduce_window_shape_tuple(
        aval_of(x).shape,
        params["window_dimensions"],
        params["window_strides"],
        params["padding"],
        params["base_dilation"],
        params["window_dilation"],
    )
    strides = params["window_strides"]
    windows = []
    for offset in np.ndindex(*params["window_dimensions"]):
        start = [k * d for k, d in zip(offset, params["window_dilation"], strict=True)]
        limit = [
            lo + (n - 1) * s + 1 if n else lo
            for lo, n, s in zip(start, out_shape, strides, strict=True)
        ]
        windows.append(reshape(slice_op(padded, start, limit, strides), (1, *out_shape)))
    return concatenate(windows, 0)


def _reduce_window_jvp(primals, tangents, **params):
    if not isinstance(params["computation"], str):
        return generic.jvp(primals, tangents, **params)
    x, init = primals
    tx, t_init = tangents
    out = bind("stablehlo.reduce_window", x, init, **params)
    computation = params["computation"]
    if computation == "add":
        tx = zeros_like(x) if tx is None else tx
        t_init = zeros_like(init) if t_init is None else t_init
        return out, bind("stablehlo.reduce_window", tx, t_init, **params)
    if tx is None or computation in ("and", "or", "xor"):
        return out, None  # an init value's tangent is not tracked
    tangent = cumulative_tangent(computation, x, tx, params)
    if tangent is not None:
        return out, tangent
    windows = _unfold(x, init, params)
    window_tangents = _unfold(tx, zeros_like(init), params)
    if computation in ("max", "min"):
        return out, chooser_tangent(windows, out, window_tangents, (0,), init)
    if computation == "mul":
        products = exclusive_products(windows, (0,))
        return out, ew.mul(reduce_sum(ew.mul(window_tangents, products), (0,)), init)
    # logaddexp: d/dx_k log(sum exp x) = exp(x_k - out); padding (-inf) gets weight 0.
    stacked_out = broadcast_in_dim(out, aval_of(windows).shape, range(1, aval_of(windows).ndim))
    weights = unary.exp(ew.sub(windows, stacked_out))
    weights = ew.select(ew.eq(windows, full_like(windows, -np.inf)), zeros_like(windows), weights)
    return out, reduce_sum(ew.mul(window_tangents, weights), (0,))


def _reduce_window_transpose(ct, *operands, **params):
    if not isinstance(params["computation"], str):
        return generic.transpose(ct, *operands, **params)
    x, init = operands
    # y[o] = sum of x over window o, so x[i] collects ct[o] from every window covering it: a
    # window sum over ct dilated by the strides, padded so that windows land on the dilated and
    # padded positions of x (strided by the base dilation).
    if params["computation"] != "add":
        raise NotImplementedError("[transpose] reduce_window is only linear as a sum")
    ct_x = ct_init = None
    if is_undefined(x):
        config = []
        ct_shape = aval_of(ct).shape
        for n, o, w, s, (lo, _), b, d in zip(
            x.aval.shape,
            ct_shape,
            params["window_dimensions"],
            params["window_strides"],
            params["padding"],
            params["base_dilation"],
            params["window_dilation"],
            strict=True,
        ):
            low = (w - 1) * d - lo
            total = (n - 1) * b + (w - 1) * d + 1 if n else 0
            config.append((low, total - low - dilate_dim(o, s), s - 1))
        padded = pad(ct, zeros_like(init), config)
        ones = (1,) * len(config)
        ct_x = bind(
            "stablehlo.reduce_window",
            padded,
            zeros_like(init),
            computation="add",
            window_dimensions=params["window_dimensions"],
            window_strides=params["base_dilation"],
            padding=((0, 0),) * len(config),
            base_dilation=ones,
            window_dilation=params["window_dilation"],
        )
    if is_undefined(init):
        ct_init = reduce_sum(ct, tuple(range(aval_of(ct).ndim)))
    return [ct_x, ct_init]


def _reduce_window_batch(values, dims, *, axis_size, **params):
    if not isinstance(params["computation"], str):
        return generic.batch(values, dims, axis_size=axis_size, **params)
    (x, init), (x_dim, init_dim) = values, dims
    if init_dim is None:
        return bind("stablehlo.reduce_window", x, init, **with_batch_window(params, x_dim)), x_dim
    # A batched init: reduce each window from the identity, then combine with the init once
    # (as XLA computes it: padding and dilation holes add nothing to a window).
    computation = params["computation"]
    dtype = aval_of(x).dtype
    identity = init_operand(
        identity_element("max" if computation == "logaddexp" else computation, dtype), dtype
    )
    if x_dim is not None:
        x, params = batch_at(x, x_dim, 0, axis_size), with_batch_window(params, 0)
    out = bind("stablehlo.reduce_window", x, identity, **params)
    out = batch_at(out, None if x_dim is None else 0, 0, axis_size)
    init = broadcast_in_dim(batch_at(init, init_dim, 0, axis_size), aval_of(out).shape, (0,))
    if computation == "logaddexp":
        return logaddexp(out, init), 0
    return MONOID_COMBINE[computation](out, init), 0


def_op(
    "stablehlo.reduce_window",
    _reduce_window_rule,
    _reduce_window_lowering,
    decode=_reduce_window_decode,
    decode_reads_owner=True,
    jvp=_reduce_window_jvp,
    transpose=_reduce_window_transpose,
    batch=_reduce_window_batch,
)


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Any,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """Reduces each window of `operand` with a monoid (`stablehlo.reduce_window`).

    Args:
      operand: the array to slide windows over.
      init_value: a scalar starting every window's reduction (usually the monoid's identity).
      computation: one of `lax.add`, `lax.mul`, `lax.max`, `lax.min`, `lax.bitwise_and`,
        `lax.bitwise_or`, `lax.bitwise_xor`.
      window_dimensions: the window's size in every dimension.
      window_strides: the step between windows (default 1).
      padding: 'VALID', 'SAME', 'SAME_LOWER' or a (low, high) pair per dimension.
      base_dilation: dilation of the operand (default 1: none).
      window_dilation: dilation of the window (default 1: none).

    Returns:
      One reduced value per window position.

    Example:
      2x2 max pooling: `reduce_window(x, -inf, lax.max, (2, 2), (2, 2))`.
    """
    operand_tree = tree_util.tree_structure(operand)
    init_tree = tree_util.tree_structure(init_value)
    if operand_tree != init_tree:  # JAX's first check: an init_value per operand
        raise ValueError(
            "lax.reduce_window: operands must have the same tree structure as init_values: "
            f"{operand_tree} vs. {init_tree}{mlir.where_suffix()}"
        )
    flat_operands, flat_inits = tree_util.tree_leaves(operand), tree_util.tree_leaves(init_value)
    if not flat_operands:
        raise ValueError(f"reduce_window must have at least one operand.{mlir.where_suffix()}")
    if isinstance(padding, str) and window_dilation is not None:
        # JAX dilates the window for a padding string before it traces the computation
        dilation = lax_ints(window_dilation, "window_dilation", "reduce_window")
        strictly_positive(dilation, "window_dilation")
    name = monoid_name(computation) if len(flat_operands) == 1 else None
    fn = None
    if name is None:  # trace it (JAX's order: before the window): one monoid op keeps its path
        fn = generic.traced_computation(flat_operands, flat_inits, computation, operand_tree)
        name = monoid_of(fn) if len(flat_operands) == 1 else None
    params = window_params(
        aval_of(flat_operands[0]),
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )
    if name is None:
        return generic.reduce_window_generic(flat_operands, flat_inits, fn, operand_tree, params)
    out = bind(
        "stablehlo.reduce_window",
        flat_operands[0],
        init_operand(flat_inits[0], aval_of(flat_operands[0]).dtype),
        computation=name,
        **params,
    )
    return tree_util.tree_unflatten(operand_tree, [out])


__all__ = [
    "reduce_window",
    "reduce_window_shape_tuple",
    "padtype_to_pads",
]
