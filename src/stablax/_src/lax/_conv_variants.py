"""Convolutions composed from `conv_general_dilated`: transposed convolution, image patches and
unshared (locally connected) convolution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.lax._argcheck import int_sequence
from stablax._src.lax._conv import _spatial, conv_general_dilated
from stablax._src.lax._conv_dimensions import (
    ConvGeneralDilatedDimensionNumbers,
    _error,
    conv_dimension_numbers,
)
from stablax._src.lax._dot import canonicalize_precision, dot_general
from stablax._src.lax._shapes import transpose
from stablax._src.lax._slice_pad import rev
from stablax._src.lax._windowed import dilate_dim, normalize_padding

# --- transposed convolution --------------------------------------------------------------------

_TRANSPOSE_DEFAULT_LAYOUTS = {
    2: ("NC", "IO", "NC"),
    3: ("NHC", "HIO", "NHC"),
    4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}


def _transpose_pads(window: int, stride: int, padding: str) -> tuple[int, int]:
    # The output has in * stride elements ('SAME') or in * stride + max(window - stride, 0)
    # ('VALID'); 'SAME' starts where the gradient of a forward 'SAME' conv would.
    if padding == "SAME":
        low = window - 1 - max(window - stride, 0) // 2
        return low, window + stride - 2 - low
    return window - 1, stride - 1 + max(window - stride, 0)


def conv_transpose(
    lhs: Any,
    rhs: Any,
    strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    transpose_kernel: bool = False,
    precision: Any = None,
    preferred_element_type: Any = None,
    use_consistent_padding: bool = False,
) -> Any:
    """A fractionally strided ("transposed") convolution, as a dilated `stablehlo.convolution`.

    Args:
      lhs: the input, rank n + 2 (NHWC by default).
      rhs: the kernel, rank n + 2 (HWIO by default).
      strides: n fractional strides (the input's dilation).
      padding: 'SAME' or 'VALID' (the padding of the matching forward conv), or n (low, high)
        pairs: the transposed conv's own padding, or with `use_consistent_padding` the forward
        conv's padding.
      rhs_dilation: n kernel dilations.
      dimension_numbers: layouts, by default ('NHWC', 'HWIO', 'NHWC') and its 1-d/3-d kin.
      transpose_kernel: flip the kernel's spatial axes and swap its I and O axes, giving the
        gradient of a forward conv with the same kernel (Keras' Conv2DTranspose).
      precision: as in `conv_general_dilated`.
      preferred_element_type: as in `conv_general_dilated`.
      use_consistent_padding: read explicit pairs as the forward conv's padding (PyTorch).

    Returns:
      The transposed convolution in the `out` layout.
    """
    op = "conv_transpose"
    lhs_shape, rhs_shape = aval_of(lhs).shape, aval_of(rhs).shape
    if dimension_numbers is None:
        if len(lhs_shape) not in _TRANSPOSE_DEFAULT_LAYOUTS:
            raise _error(
                op,
                f"no default dimension_numbers for rank {len(lhs_shape)}; pass them explicitly",
                ValueError,
            )
        dimension_numbers = _TRANSPOSE_DEFAULT_LAYOUTS[len(lhs_shape)]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers, op)
    # JAX's order: the strides' type when a padding string needs them, the feature sizes, the
    # dtypes, then the strides' length.
    if isinstance(padding, str):
        strides = _spatial(strides, len(lhs_shape) - 2, "strides", op)
    lhs_features = lhs_shape[dn.lhs_spec[1]]
    rhs_features = rhs_shape[dn.rhs_spec[0 if transpose_kernel else 1]]
    if lhs_features != rhs_features:
        raise _error(
            op,
            f"lhs feature dimension size must equal the rhs input feature dimension size, but "
            f"{lhs_features} != {rhs_features}",
            ValueError,
        )
    lhs_aval, rhs_aval = aval_of(lhs), aval_of(rhs)
    if lhs_aval.dtype != rhs_aval.dtype:
        raise _error(
            op,
            f"lhs and rhs must have the same dtype, got {lhs_aval.str_short()} and "
            f"{rhs_aval.str_short()}",
        )
    n = len(lhs_shape) - 2
    strides = _spatial(strides, n, "strides", op)
    rhs_dilation = _spatial(rhs_dilation, n, "rhs_dilation", op)
    if isinstance(padding, str) and padding.upper() not in ("SAME", "VALID"):  # JAX's first
        raise _error(
            op, f"padding must be 'SAME', 'VALID' or (low, high) pairs, got {padding!r}", ValueError
        )
    for what, values in (("strides", strides), ("rhs_dilation", rhs_dilation)):
        # JAX's classes: both become dilations of its conv_general_dilated, which refuses a
        # non-positive one (TypeError); too few strides leave its string padding too few pairs
        # (TypeError); other lengths reach XLA's verifier (ValueError).
        if any(v <= 0 for v in values):
            raise _error(op, f"{what} must be positive, got {values}", TypeError)
        if len(values) != n:
            short = what == "strides" and len(values) < n and isinstance(padding, str)
            raise _error(
                op,
                f"{what} {values} must have one entry per spatial dimension ({n})",
                TypeError if short else ValueError,
            )
    windows = [
        dilate_dim(rhs_shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation, strict=True)
    ]
    if isinstance(padding, str):
        kind = padding.upper()
        pads = tuple(_transpose_pads(w, s, kind) for w, s in zip(windows, strides, strict=True))
    else:
        pads = normalize_padding(padding, (), (), (), op, ValueError)  # JAX's class
        if use_consistent_padding:
            pads = tuple(
                (w - 1 - lo, w - 1 - hi) for w, (lo, hi) in zip(windows, pads, strict=True)
            )
    if transpose_kernel:
        out_dim, in_dim = dn.rhs_spec[:2]
        perm = list(range(len(rhs_shape)))
        perm[out_dim], perm[in_dim] = in_dim, out_dim
        rhs = transpose(rev(rhs, dn.rhs_spec[2:]), perm)
    return conv_general_dilated(
        lhs,
        rhs,
        (1,) * n,
        pads,
        lhs_dilation=strides,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dn,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


# --- patches and unshared convolutions ---------------------------------------------------------


def conv_general_dilated_patches(
    lhs: Any,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """The patches `conv_general_dilated` would see, flattened into the output feature axis.

    Features come in the order channel, then the spatial window positions (in the rhs layout's
    spatial order): a grouped convolution with a one-hot kernel.

    Args:
      lhs: the input, rank n + 2.
      filter_shape: the n window sizes, in the rhs layout's spatial order.
      window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers, precision,
        preferred_element_type: as in `conv_general_dilated`.

    Returns:
      An array in the `out` layout with C * prod(filter_shape) features.
    """
    op = "conv_general_dilated_patches"
    aval = aval_of(lhs)
    filter_shape = _spatial(filter_shape, aval.ndim - 2, "filter_shape", op)
    if len(filter_shape) != aval.ndim - 2:  # JAX's class: the kernel's rank would differ
        raise TypeError(
            f"lax.{op}: filter_shape {filter_shape} needs one size per spatial dimension of "
            f"lhs {aval.str_short()}{mlir.where_suffix()}"
        )
    rhs_shape = [0] * aval.ndim
    dn = conv_dimension_numbers(aval.shape, rhs_shape, dimension_numbers, op)
    channels = aval.shape[dn.lhs_spec[1]]
    patch = int(np.prod(filter_shape, dtype=np.int64))
    # One-hot kernel in OIHW order: output feature c * patch + p picks window position p.
    kernel = np.tile(
        np.eye(patch, dtype=aval.dtype).reshape(patch, 1, *filter_shape),
        (channels, 1) + (1,) * len(filter_shape),
    )
    kernel = np.transpose(kernel, np.argsort(dn.rhs_spec))
    return conv_general_dilated(
        lhs,
        kernel,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        dn,
        feature_group_count=channels,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: Any = None,
) -> Any:
    """An unshared convolution: a different kernel at every output position.

    Args:
      lhs: the input, rank n + 2.
      rhs: the kernels: its spatial axes index output positions and its I axis holds
        C * prod(filter_shape) patch features (ordered as in `conv_general_dilated_patches`).
      window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers, precision: as in
        `conv_general_dilated`; `filter_shape` gives the window sizes.

    Returns:
      An array in the `out` layout.
    """
    op = "conv_general_dilated_local"
    lhs_aval = aval_of(lhs)
    try:  # JAX reads the precision before any shape
        canonicalize_precision(precision)
    except ValueError as error:
        raise ValueError(f"lax.{op}: {error}".replace("lax.dot_general: ", "")) from None
    # The patches first, then the layouts from lhs and the filter shape, as JAX: rhs is checked
    # only by the contraction (a kernel of the wrong rank is no reason to skip the
    # patches' checks of the strides and the padding).
    patches = conv_general_dilated_patches(
        lhs,
        filter_shape,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        dimension_numbers,
        precision,
    )
    kernel_shape = (1, 1, *int_sequence(filter_shape, "filter_shape", f"lax.{op}"))
    dn = conv_dimension_numbers(lhs_aval.shape, kernel_shape, dimension_numbers, op)
    n = lhs_aval.ndim - 2
    # Per output position s: out[n, o, s] = sum_f patches[n, f, s] * rhs[o, f, s].
    batch_p, batch_r = tuple(dn.out_spec[2:]), tuple(dn.rhs_spec[2:])
    out = dot_general(
        patches,
        rhs,
        ((dn.out_spec[1:2], dn.rhs_spec[1:2]), (batch_p, batch_r)),
        precision=precision,
    )
    # dot_general gives (spatial..., batch, out feature); put it in the out layout.
    positions = (n, n + 1, *range(n))  # where (N, C, spatial...) sit in `out`
    return transpose(out, [positions[list(dn.out_spec).index(d)] for d in range(n + 2)])


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: ConvGeneralDilatedDimensionNumbers,
) -> tuple[int, ...]:
    """The output shape of `conv_transpose` without dilations, in the out layout."""
    dn = conv_dimension_numbers(
        lhs_shape, rhs_shape, dimension_numbers, "conv_transpose_shape_tuple"
    )
    lhs_nchw = [lhs_shape[d] for d in dn.lhs_spec]
    rhs_oihw = [rhs_shape[d] for d in dn.rhs_spec]
    window_strides = int_sequence(
        window_strides, "window_strides", "lax.conv_transpose_shape_tuple"
    )
    if len(window_strides) != len(lhs_nchw) - 2:
        raise ValueError(
            f"lax.conv_transpose_shape_tuple: expected {len(lhs_nchw) - 2} window strides, got "
            f"{window_strides}{mlir.where_suffix()}"
        )
    if isinstance(padding, str):
        padding = [
            _transpose_pads(k, s, padding.upper())
            for k, s in zip(rhs_oihw[2:], window_strides, strict=True)
        ]
    else:  # a clear TypeError for None or other non-pairs (JAX's class), not zip's
        padding = normalize_padding(padding, (), (), (), "conv_transpose_shape_tuple")
    spatial = [
        (size - 1) * s + 2 - k + lo + hi
        for size, k, s, (lo, hi) in zip(
            lhs_nchw[2:], rhs_oihw[2:], window_strides, padding, strict=True
        )
    ]
    out_nchw = (lhs_nchw[0], rhs_oihw[0], *spatial)
    return tuple(out_nchw[list(dn.out_spec).index(d)] for d in range(len(out_nchw)))
