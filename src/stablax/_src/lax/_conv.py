"""`conv_general_dilated` and its conveniences `conv` and `conv_with_general_padding`, which bind
`stablehlo.convolution` (`_convolution.py`). Layouts live in `_conv_dimensions.py`; transposed,
patch and unshared convolutions in `_conv_variants.py`."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, runtime
from stablax._src.avals import aval_of
from stablax._src.dispatch import bind
from stablax._src.lax import _convolution  # noqa: F401 (stablehlo.convolution: its rules)
from stablax._src.lax._conv_dimensions import (
    ConvGeneralDilatedDimensionNumbers,
    _error,
    conv_dimension_numbers,
)
from stablax._src.lax._dot import canonicalize_precision
from stablax._src.lax._windowed import dilate_dim, normalize_padding, padtype_to_pads


def _spatial(values: Any, n: int, what: str, opname: str) -> tuple[int, ...]:
    if values is None:
        return (1,) * n
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise _error(opname, f"{what} must be a sequence of integers, got {values!r}") from None


def conv_general_dilated(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: Any = None,
    preferred_element_type: Any = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """General n-d convolution with strides, padding and dilations (`stablehlo.convolution`).

    Args:
      lhs: the input, rank n + 2, e.g. NCHW.
      rhs: the kernel, rank n + 2, e.g. OIHW.
      window_strides: n strides.
      padding: 'VALID', 'SAME', 'SAME_LOWER' or n (low, high) pairs.
      lhs_dilation: n input dilations (transposed convolution); None means 1s.
      rhs_dilation: n kernel dilations (atrous convolution); None means 1s.
      dimension_numbers: None (NCHW, OIHW, NCHW), layout strings such as
        `('NHWC', 'HWIO', 'NHWC')`, or a `ConvDimensionNumbers`.
      feature_group_count: split input features into this many groups (depthwise convs).
      batch_group_count: split the batch into this many groups (filter gradients).
      precision: None, a name, a `Precision` or a pair of them.
      preferred_element_type: the accumulation and output dtype.
      out_sharding: None, or a sharding on stablax's one device.

    Returns:
      The convolution in the `out` layout of `dimension_numbers`.

    Example:
      `conv_general_dilated(x, w, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))`.
    """
    runtime.check_sharding(out_sharding, "lax.conv_general_dilated")
    op = "conv_general_dilated"
    lhs_shape, rhs_shape = aval_of(lhs).shape, aval_of(rhs).shape
    # JAX's order: equal ranks and the layout's type; string padding against lhs_dilation; an
    # explicit padding; the group counts; only then rank >= 2 and everything else.
    if len(lhs_shape) != len(rhs_shape) or not isinstance(
        dimension_numbers, (type(None), tuple, list)
    ):
        conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers, op)  # raises TypeError
    if isinstance(padding, str) and lhs_dilation is not None:
        # JAX's test: any entry that is not 1 (floats and bytes' integers included).
        dilations = lhs_dilation if isinstance(lhs_dilation, (list, tuple, bytes)) else ()
        if any(not (isinstance(d, (int, float, np.number)) and d == 1) for d in dilations):
            raise _error(
                op,
                "string padding is not supported with lhs_dilation; give explicit (low, high) "
                "pairs or use lax.conv_transpose",
                ValueError,
            )
    if not isinstance(padding, str):
        pads = normalize_padding(padding, (), (), (), op, ValueError)
    for name, count in (("feature", feature_group_count), ("batch", batch_group_count)):
        if isinstance(count, (int, np.integer)) and count < 1:
            raise _error(op, f"{name}_group_count must be positive, got {count}", ValueError)
    if len(lhs_shape) < 2 and dimension_numbers is None:
        # JAX checks the preferred type and the precision before its shape rule finds no
        # feature dimension
        if preferred_element_type is not None:
            dtypes.canonicalize_dtype(preferred_element_type)
        canonicalize_precision(precision)
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers, op)
    n = len(lhs_shape) - 2
    strides = _spatial(window_strides, n, "window_strides", op)
    lhs_dilation = _spatial(lhs_dilation, n, "lhs_dilation", op)
    rhs_dilation = _spatial(rhs_dilation, n, "rhs_dilation", op)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise _error(
                op,
                "string padding is not supported with lhs_dilation; give explicit "
                "(low, high) pairs or use lax.conv_transpose",
                ValueError,
            )
        if len(strides) != n or len(rhs_dilation) != n:
            raise _error(
                op,
                f"window_strides {strides} and rhs_dilation {rhs_dilation} must "
                f"have one entry per spatial dimension ({n})",
                ValueError,
            )
        in_spatial = [lhs_shape[d] for d in dn.lhs_spec[2:]]
        window = [
            dilate_dim(rhs_shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation, strict=True)
        ]
        pads = tuple(padtype_to_pads(in_spatial, window, strides, padding, op))
    pet = (
        None
        if preferred_element_type is None
        else dtypes.canonicalize_dtype(preferred_element_type)
    )
    return bind(
        "stablehlo.convolution",
        lhs,
        rhs,
        window_strides=strides,
        padding=pads,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dn,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
    )


def conv(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """`conv_general_dilated` on NCHW inputs and OIHW kernels without dilation."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def conv_with_general_padding(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """`conv_general_dilated` on NCHW inputs and OIHW kernels with padding and dilations."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
