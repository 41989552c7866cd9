"""Windowed reductions: `reduce_window` (`stablehlo.reduce_window`) and its rules, plus the padding
helpers shared with conv. The cumulative ops built on it live in `_cumulative`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import tree_util
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import Tracer, current_trace
from stablax._src.dispatch import bind
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax._argcheck import lax_ints
from stablax._src.lax._cumulative_windows import cumulative_tangent, logaddexp
from stablax._src.lax._elementwise_common import INEXACT, check_dtype
from stablax._src.lax._reduce_bodies import (
    MONOIDS,
    emit_monoid_body,
    emit_region_body,
    identity_element,
    int_tuple,
    pad_pairs,
)
from stablax._src.lax._reductions import (
    MONOID_COMBINE,
    batch_at,
    chooser_tangent,
    decode_computation,
    exclusive_products,
    init_operand,
    is_undefined,
    monoid_name,
    reduce_sum,
    zeros_like,
)
from stablax._src.lax._shapes import broadcast_in_dim, full_like, reshape
from stablax._src.lax._slice_pad import (
    concatenate,
    pad,
)
from stablax._src.lax._slice_pad import slice as slice_op
from stablax._src.op_rules import batch_rules, def_op

# computation -> accepted dtypes; the monoids' bodies are one op, "logaddexp" a short formula.
WINDOW_COMPUTATIONS: dict[str, tuple] = {
    **{name: groups for name, (_, groups) in MONOIDS.items()},
    "logaddexp": INEXACT,
}

# --- padding helpers ---------------------------------------------------------------------------


def padtype_to_pads(
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str,
    opname: str = "padtype_to_pads",
) -> list[tuple[int, int]]:
    """Explicit (low, high) pads for 'VALID', 'SAME' or 'SAME_LOWER' padding.

    'SAME' pads so that the output has ceil(in / stride) elements, with the extra element of an
    odd total on the high side; 'SAME_LOWER' puts it on the low side; 'VALID' pads nothing.
    """
    if not isinstance(padding, str):
        raise TypeError(f"lax.{opname}: unknown padding type {padding!r}{mlir.where_suffix()}")
    kind = padding.upper()
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise ValueError(
            f"lax.{opname}: unrecognized padding type {padding!r}; expected 'VALID',"
            f" 'SAME', 'SAME_LOWER' or (low, high) pairs{mlir.where_suffix()}"
        )
    in_shape = lax_ints(in_shape, "in_shape", opname)
    window_shape = lax_ints(window_shape, "window_shape", opname)
    window_strides = lax_ints(window_strides, "window_strides", opname)
    if not len(in_shape) == len(window_shape) == len(window_strides):
        raise ValueError(
            f"lax.{opname}: in_shape {in_shape}, window_shape {window_shape} and window_strides "
            f"{window_strides} must have the same length{mlir.where_suffix()}"
        )
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if any(stride <= 0 for stride in window_strides):
        raise ValueError(
            f"lax.{opname}: window_strides must be positive, got {window_strides}"
            f"{mlir.where_suffix()}"
        )
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides, strict=True):
        out = -(-size // stride)
        total = max(0, (out - 1) * stride + window - size)
        low = total // 2 if kind == "SAME" else total - total // 2
        pads.append((low, total - low))
    return pads


def normalize_padding(
    padding: Any,
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    opname: str,
    error: type[Exception] = TypeError,
) -> tuple[tuple[int, int], ...]:
    """A padding string or a sequence of (low, high) pairs as a tuple of int pairs; `error` is
    the class raised for anything else (the convolutions raise JAX's ValueError)."""
    if isinstance(padding, str):
        return tuple(padtype_to_pads(in_shape, window_shape, window_strides, padding, opname))
    try:
        return tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise error(
            f"lax.{opname}: padding must be 'VALID', 'SAME', 'SAME_LOWER' or a "
            f"sequence of (low, high) integer pairs, got {padding!r}"
            f"{mlir.where_suffix()}"
        ) from None


def dilate_dim(size: int, dilation: int) -> int:
    """The size of an axis with `dilation - 1` holes between neighbours."""
    return 0 if size == 0 else 1 + dilation * (size - 1)


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The result shape of `reduce_window` for explicit (low, high) `padding`."""
    name = "reduce_window_shape_tuple"
    operand_shape = lax_ints(operand_shape, "operand_shape", name)
    ones = (1,) * len(operand_shape)
    window_dimensions = lax_ints(window_dimensions, "window_dimensions", name)
    window_strides = lax_ints(window_strides, "window_strides", name)
    base_dilation = (
        ones if base_dilation is None else lax_ints(base_dilation, "base_dilation", name)
    )
    window_dilation = (
        ones if window_dilation is None else lax_ints(window_dilation, "window_dilation", name)
    )
    for what, dilation in (("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if any(d <= 0 for d in dilation):  # first, with JAX's class
            raise TypeError(
                f"lax.{name}: {what} must be positive, got {dilation}{mlir.where_suffix()}"
            )
    padding = normalize_padding(padding, operand_shape, window_dimensions, window_strides, name)
    lengths = {len(operand_shape), len(window_dimensions), len(window_strides), len(padding)}
    if len(lengths | {len(base_dilation), len(window_dilation)}) != 1:
        raise ValueError(
            f"lax.{name}: operand_shape, window_dimensions, window_strides, padding and the "
            f"dilations must have one entry per dimension{mlir.where_suffix()}"
        )
    if any(stride <= 0 for stride in window_strides):
        raise ValueError(
            f"lax.{name}: window_strides must be positive, got {window_strides}"
            f"{mlir.where_suffix()}"
        )
    shape = []
    for n, w, s, (lo, hi), bd, wd in zip(
        operand_shape,
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
        strict=True,
    ):
        padded = dilate_dim(n, bd) + lo + hi
        window = dilate_dim(w, wd)
        shape.append(0 if padded < window else (padded - window) // s + 1)
    return tuple(shape)


# --- reduce_window -----------------------------------------------------------------------------


def _generic():
    from stablax._src.lax import _reduce_window_generic

    return _reduce_window_generic


def _reduce_window_rule(*args: ShapedArray, computation, **params) -> Any:
    if not isinstance(computation, str):  # a traced body: _reduce_window_generic.py
        return _generic().rule(*args, computation=computation, **params)
    x, init = args
    check_dtype("reduce_window", x.dtype, WINDOW_COMPUTATIONS[computation])
    if init.shape != () or init.dtype != x.dtype:
        raise TypeError(
            f"lax.reduce_window: init_value must be a scalar of the operand's dtype "
            f"{x.dtype.name}, got {init.str_short()}{mlir.where_suffix()}"
        )
    return ShapedArray(window_shape_rule(x, params), x.dtype, x.weak_type)


def window_shape_rule(x: ShapedArray, params: dict[str, Any]) -> tuple[int, ...]:
    """The checks of the window parameters against operand `x`, and the result's shape."""
    where = mlir.where_suffix()
    window_dimensions, window_strides = params["window_dimensions"], params["window_strides"]
    padding, base_dilation = params["padding"], params["base_dilation"]
    window_dilation = params["window_dilation"]
    for name, values in (
        ("window_dimensions", window_dimensions),
        ("window_strides", window_strides),
        ("padding", padding),
        ("base_dilation", base_dilation),
        ("window_dilation", window_dilation),
    ):
        if len(values) != x.ndim:
            raise TypeError(
                f"lax.reduce_window: {name} {values} must have one entry per "
                f"dimension of the operand {x.str_short()}{where}"
            )
        if name != "padding" and any(v <= 0 for v in values):
            raise TypeError(
                f"lax.reduce_window: {name} must be strictly positive, got {values}{where}"
            )
    for n, (lo, hi), bd in zip(x.shape, padding, base_dilation, strict=True):
        if dilate_dim(n, bd) + lo + hi < 0:
            raise ValueError(
                f"lax.reduce_window: padding {padding} removes more than the whole "
                f"operand {x.str_short()}{where}"
            )
    return reduce_window_shape_tuple(
        x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )


def _reduce_window_lowering(operands, in_avals, out_avals, *, computation, **params):
    if not isinstance(computation, str):
        return _generic().lowering(operands, in_avals, out_avals, computation=computation, **params)
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


def window_attributes(params: dict[str, Any]) -> dict[str, Any]:
    """The window attributes of an emitted `stablehlo.reduce_window`."""
    pads = np.asarray(params["padding"], np.int64).reshape(len(params["padding"]), 2)
    return {
        "window_dimensions": mlir.i64_array(params["window_dimensions"]),
        "window_strides": mlir.i64_array(params["window_strides"]),
        "base_dilations": mlir.i64_array(params["base_dilation"]),
        "window_dilations": mlir.i64_array(params["window_dilation"]),
        "padding": mlir.dense_i64(pads, pads.shape),
    }


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
        return _generic().jvp(primals, tangents, **params)
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
        return _generic().transpose(ct, *operands, **params)
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


def_op(
    "stablehlo.reduce_window",
    _reduce_window_rule,
    _reduce_window_lowering,
    decode=_reduce_window_decode,
    decode_reads_owner=True,
    jvp=_reduce_window_jvp,
    transpose=_reduce_window_transpose,
)


def _with_batch_window(params: dict[str, Any], at: int) -> dict[str, Any]:
    # A window of size 1 over the batch dimension: no padding, stride or dilation there.
    def insert(values, value):
        return (*values[:at], value, *values[at:])

    return dict(
        params,
        window_dimensions=insert(params["window_dimensions"], 1),
        window_strides=insert(params["window_strides"], 1),
        padding=insert(params["padding"], (0, 0)),
        base_dilation=insert(params["base_dilation"], 1),
        window_dilation=insert(params["window_dilation"], 1),
    )


def _reduce_window_batch(values, dims, *, axis_size, **params):
    if not isinstance(params["computation"], str):
        return _generic().batch(values, dims, axis_size=axis_size, **params)
    (x, init), (x_dim, init_dim) = values, dims
    if init_dim is None:
        return bind("stablehlo.reduce_window", x, init, **_with_batch_window(params, x_dim)), x_dim
    # A batched init: reduce each window from the identity, then combine with the init once
    # (as XLA computes it: padding and dilation holes add nothing to a window).
    computation = params["computation"]
    dtype = aval_of(x).dtype
    identity = init_operand(
        identity_element("max" if computation == "logaddexp" else computation, dtype), dtype
    )
    if x_dim is not None:
        x, params = batch_at(x, x_dim, 0, axis_size), _with_batch_window(params, 0)
    out = bind("stablehlo.reduce_window", x, identity, **params)
    out = batch_at(out, None if x_dim is None else 0, 0, axis_size)
    init = broadcast_in_dim(batch_at(init, init_dim, 0, axis_size), aval_of(out).shape, (0,))
    if computation == "logaddexp":
        return logaddexp(out, init), 0
    return MONOID_COMBINE[computation](out, init), 0


batch_rules["stablehlo.reduce_window"] = _reduce_window_batch


def _strictly_positive(values: tuple[int, ...], what: str) -> None:
    if any(v <= 0 for v in values):
        raise TypeError(
            f"lax.reduce_window: {what} must be strictly positive, got {values}"
            f"{mlir.where_suffix()}"
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
        _strictly_positive(dilation, "window_dilation")
    name = monoid_name(computation) if len(flat_operands) == 1 else None
    fn = None
    if name is None:  # trace it (JAX's order: before the window): one monoid op keeps its path
        fn = _generic().traced_computation(flat_operands, flat_inits, computation, operand_tree)
        name = _monoid_of(fn) if len(flat_operands) == 1 else None
    params = _window_params(
        aval_of(flat_operands[0]),
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )
    if name is None:
        return _generic().reduce_window_generic(flat_operands, flat_inits, fn, operand_tree, params)
    out = bind(
        "stablehlo.reduce_window",
        flat_operands[0],
        init_operand(flat_inits[0], aval_of(flat_operands[0]).dtype),
        computation=name,
        **params,
    )
    return tree_util.tree_unflatten(operand_tree, [out])


def _monoid_of(fn: Any) -> str | None:
    from stablax._src.lax._reduce_generic import monoid_of

    return monoid_of(fn)


def _window_params(
    aval: ShapedArray, window_dimensions, window_strides, padding, base_dilation, window_dilation
) -> dict[str, Any]:
    """The window parameters, checked and normalized (padding strings resolved), as JAX."""
    ndim = aval.ndim
    window_dimensions = lax_ints(window_dimensions, "window_dimensions", "reduce_window")
    ones = (1,) * ndim
    strides = (
        ones
        if window_strides is None
        else lax_ints(window_strides, "window_strides", "reduce_window")
    )
    base = (
        ones if base_dilation is None else lax_ints(base_dilation, "base_dilation", "reduce_window")
    )
    dilation = (
        ones
        if window_dilation is None
        else lax_ints(window_dilation, "window_dilation", "reduce_window")
    )
    if isinstance(padding, str):
        # JAX dilates the window for a padding string before any other check (its TypeError)
        _strictly_positive(dilation, "window_dilation")
    if len(window_dimensions) != ndim or len(strides) != ndim:
        raise TypeError(
            f"lax.reduce_window: window_dimensions {window_dimensions} and "
            f"window_strides {strides} must have one entry per dimension of the "
            f"operand {aval.str_short()}{mlir.where_suffix()}"
        )
    if isinstance(padding, str):  # 'SAME' and friends see the dilated window, but (as JAX)
        # the operand's own shape, undilated
        _strictly_positive(strides, "window_strides")  # the shape rule's TypeError
        if len(base) != ndim or len(dilation) != ndim:
            raise TypeError(
                f"lax.reduce_window: base_dilation {base} and window_dilation "
                f"{dilation} must have one entry per dimension of the operand "
                f"{aval.str_short()}{mlir.where_suffix()}"
            )
        padding = padtype_to_pads(
            aval.shape,
            [dilate_dim(w, d) for w, d in zip(window_dimensions, dilation, strict=True)],
            strides,
            padding,
            "reduce_window",
        )
    pads = normalize_padding(padding, (), (), (), "reduce_window")
    return dict(
        window_dimensions=window_dimensions,
        window_strides=strides,
        padding=pads,
        base_dilation=base,
        window_dilation=dilation,
    )


__all__ = [
    "reduce_window",
    "reduce_window_shape_tuple",
    "padtype_to_pads",
]
