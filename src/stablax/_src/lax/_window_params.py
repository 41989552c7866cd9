"""The window parameters of `reduce_window` (and the padding of conv): padding strings resolved,
the result's shape checked and computed, the op's window attributes, a window over a batch dim."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.lax._argcheck import lax_ints

# --- padding -----------------------------------------------------------------------------------


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


# --- reduce_window's window --------------------------------------------------------------------


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


def with_batch_window(params: dict[str, Any], at: int) -> dict[str, Any]:
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


def strictly_positive(values: tuple[int, ...], what: str) -> None:
    if any(v <= 0 for v in values):
        raise TypeError(
            f"lax.reduce_window: {what} must be strictly positive, got {values}"
            f"{mlir.where_suffix()}"
        )


def window_params(
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
        strictly_positive(dilation, "window_dilation")
    if len(window_dimensions) != ndim or len(strides) != ndim:
        raise TypeError(
            f"lax.reduce_window: window_dimensions {window_dimensions} and "
            f"window_strides {strides} must have one entry per dimension of the "
            f"operand {aval.str_short()}{mlir.where_suffix()}"
        )
    if isinstance(padding, str):  # 'SAME' and friends see the dilated window, but (as JAX)
        # the operand's own shape, undilated
        strictly_positive(strides, "window_strides")  # the shape rule's TypeError
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
