"""Op records for convolutions, checked against a direct NumPy sliding-window reference."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from stablax import lax
from tests.lax_records.windowed import same_pads
from tests.op_record import BF16, F16, F32, F64, I32, OpRecord


def small_ints(rng, shape, dtype):
    """Small integers (exact in every float dtype, no integer overflow)."""
    return rng.integers(-3, 4, shape).astype(dtype)


def _dilate_and_pad(x, dilation, padding):
    """Inserts dilation - 1 zeros between spatial neighbours of an (N, C, *spatial) array, then
    pads (negative padding crops)."""
    spatial = x.shape[2:]
    dilated = [0 if n == 0 else (n - 1) * d + 1 for n, d in zip(spatial, dilation)]
    grown = np.zeros(
        (*x.shape[:2], *[d + max(lo, 0) + max(hi, 0) for d, (lo, hi) in zip(dilated, padding)]),
        x.dtype,
    )
    grown[
        (
            slice(None),
            slice(None),
            *[
                slice(max(lo, 0), max(lo, 0) + d, s)
                for d, (lo, _), s in zip(dilated, padding, dilation)
            ],
        )
    ] = x
    return grown[
        (
            slice(None),
            slice(None),
            *[slice(-min(lo, 0), g + min(hi, 0)) for g, (lo, hi) in zip(grown.shape[2:], padding)],
        )
    ]


def np_patches(lhs, window, strides, padding, lhs_dilation=None, rhs_dilation=None):
    """(N, C, *out, *window) views of every (dilated) window of an NCHW input."""
    n = lhs.ndim - 2
    lhs_dilation = lhs_dilation or (1,) * n
    rhs_dilation = rhs_dilation or (1,) * n
    x = _dilate_and_pad(lhs, lhs_dilation, padding)
    spans = [(k - 1) * d + 1 for k, d in zip(window, rhs_dilation)]
    views = sliding_window_view(x, spans, axis=tuple(range(2, 2 + n)))
    index = (
        slice(None),
        slice(None),
        *[slice(None, None, s) for s in strides],
        *[slice(None, None, d) for d in rhs_dilation],
    )
    return views[index]


def np_conv(
    lhs,
    rhs,
    strides,
    padding,
    lhs_dilation=None,
    rhs_dilation=None,
    feature_group_count=1,
    batch_group_count=1,
):
    """conv_general_dilated for NCHW inputs and OIHW kernels, by summing window products."""
    n = lhs.ndim - 2
    if isinstance(padding, str):
        windows = [(k - 1) * d + 1 for k, d in zip(rhs.shape[2:], rhs_dilation or (1,) * n)]
        padding = same_pads(lhs.shape[2:], windows, strides) if padding == "SAME" else [(0, 0)] * n
    patches = np_patches(
        lhs.astype(np.float64), rhs.shape[2:], strides, padding, lhs_dilation, rhs_dilation
    )
    kernel = rhs.astype(np.float64)
    groups = feature_group_count
    batch, channels = patches.shape[:2]
    spatial = "abcdef"[:n]
    window = "uvwxyz"[:n]
    if batch_group_count > 1:  # output features of group g see batch slice g
        g = batch_group_count
        patches = patches.reshape(g, batch // g, *patches.shape[1:])
        kernel = kernel.reshape(g, kernel.shape[0] // g, *kernel.shape[1:])
        out = np.einsum(f"gni{spatial}{window},goi{window}->ngo{spatial}", patches, kernel)
        return out.reshape(batch // g, -1, *out.shape[3:])
    patches = patches.reshape(batch, groups, channels // groups, *patches.shape[2:])
    kernel = kernel.reshape(groups, kernel.shape[0] // groups, *kernel.shape[1:])
    out = np.einsum(f"ngi{spatial}{window},goi{window}->ngo{spatial}", patches, kernel)
    return out.reshape(batch, -1, *out.shape[3:])


def np_conv_transpose_gradient(dy, w, strides, padding):
    """The gradient of a forward NHWC/HWIO conv (kernel w: spatial, C, O) with respect to its
    input, scattered window by window: what conv_transpose(transpose_kernel=True) computes."""
    n = dy.ndim - 2
    windows = w.shape[:n]
    in_sizes = [size * s for size, s in zip(dy.shape[1 : 1 + n], strides)]
    if padding == "VALID":
        in_sizes = [size + max(k - s, 0) for size, k, s in zip(in_sizes, windows, strides)]
        lows = [0] * n
    else:
        lows = [lo for lo, _ in same_pads(in_sizes, windows, strides)]
    dx = np.zeros((dy.shape[0], *in_sizes, w.shape[n]), np.float64)
    for pos in np.ndindex(*dy.shape[1 : 1 + n]):
        for k in np.ndindex(*windows):
            target = [p * s + kk - lo for p, s, kk, lo in zip(pos, strides, k, lows)]
            if all(0 <= t < size for t, size in zip(target, in_sizes)):
                contribution = dy[(slice(None), *pos)].astype(np.float64) @ w[k].T
                dx[(slice(None), *target)] += contribution
    return dx


def _nhwc(fn):
    """Runs an NCHW/OIHW reference on NHWC inputs and HWIO kernels."""

    def reference(x, w):
        out = fn(np.moveaxis(x, -1, 1), np.moveaxis(w, (-1, -2), (0, 1)))
        return np.moveaxis(out, 1, -1)

    return reference


def np_patches_flat(x, window, strides, padding):
    patches = np_patches(x, window, strides, padding)
    n = x.ndim - 2
    # (N, C, *out, *window) -> (N, C * prod(window), *out), channel-major.
    moved = np.moveaxis(patches, tuple(range(2 + n, 2 + 2 * n)), tuple(range(2, 2 + n)))
    return moved.reshape(x.shape[0], -1, *patches.shape[2 : 2 + n])


FIXED_KERNEL = np.random.default_rng(7).standard_normal((4, 3, 2, 2)).astype(np.float32)
FLOATS = (F32, F16, BF16)
TOL = 2e-2  # low-precision dtypes sum a dozen or more products

RECORDS = [
    OpRecord(
        "conv_same",
        lambda x, w: lax.conv(x, w, (1, 1), "SAME"),
        lambda x, w: np_conv(x, w, (1, 1), "SAME"),
        [((2, 3, 6, 5), (4, 3, 3, 2)), ((1, 2, 4, 4), (3, 2, 2, 2))],
        (*FLOATS, I32),
        small_ints,
        tol=TOL,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "conv_valid_strided",
        lambda x, w: lax.conv(x, w, (2, 3), "VALID"),
        lambda x, w: np_conv(x, w, (2, 3), "VALID"),
        [((2, 3, 7, 8), (2, 3, 3, 2)), ((1, 1, 3, 3), (1, 1, 3, 3))],
        FLOATS,
        small_ints,
        tol=TOL,
    ),
    OpRecord(
        "conv_general_padding_dilations",
        lambda x, w: lax.conv_with_general_padding(x, w, (2, 1), ((1, 0), (2, -1)), (1, 2), (2, 1)),
        lambda x, w: np_conv(x, w, (2, 1), [(1, 0), (2, -1)], (1, 2), (2, 1)),
        [((2, 2, 6, 4), (3, 2, 2, 3))],
        (F32, I32),
        small_ints,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "conv_nhwc_hwio",
        lambda x, w: lax.conv_general_dilated(
            x, w, (1, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        ),
        _nhwc(lambda x, w: np_conv(x, w, (1, 2), "SAME")),
        [((2, 5, 6, 3), (3, 2, 3, 4))],
        (F32, F16),
        small_ints,
        tol=TOL,
    ),
    OpRecord(
        "conv_feature_groups",
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=3),
        lambda x, w: np_conv(x, w, (1, 1), "SAME", feature_group_count=3),
        [((2, 6, 5, 5), (6, 2, 3, 3)), ((1, 3, 4, 4), (3, 1, 2, 2))],
        (F32, BF16),
        small_ints,
        tol=TOL,
    ),
    OpRecord(
        "conv_batch_groups",
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2),
        lambda x, w: np_conv(x, w, (1, 1), "VALID", batch_group_count=2),
        [((4, 3, 5, 5), (6, 3, 2, 2))],
        (F32,),
        small_ints,
    ),
    OpRecord(
        "conv_1d_same_lower",
        lambda x, w: lax.conv_general_dilated(x, w, (2,), "SAME_LOWER", rhs_dilation=(2,)),
        lambda x, w: np_conv(x, w, (2,), [(2, 1)], rhs_dilation=(2,)),
        [((2, 2, 8), (3, 2, 3))],
        (F32, I32),
        small_ints,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "conv_3d",
        lambda x, w: lax.conv(x, w, (1, 2, 1), "VALID"),
        lambda x, w: np_conv(x, w, (1, 2, 1), "VALID"),
        [((1, 2, 4, 5, 3), (2, 2, 2, 2, 2))],
        (F32,),
        small_ints,
    ),
    OpRecord(
        "conv_fixed_kernel",
        lambda x: lax.conv(x, FIXED_KERNEL.astype(x.dtype), (1, 1), "SAME"),
        lambda x: np_conv(x, FIXED_KERNEL, (1, 1), "SAME"),
        [((2, 3, 5, 4),)],
        (F32,),
        linear=True,
        tol=1e-4,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "conv_preferred_f32",
        lambda x, w: lax.conv(x, w, (1, 1), "VALID", preferred_element_type=np.float32),
        lambda x, w: np_conv(x, w, (1, 1), "VALID").astype(np.float32),
        [((1, 2, 4, 4), (2, 2, 2, 2))],
        (F16, BF16),
        small_ints,
    ),
    OpRecord(
        "conv_transpose_gradient",
        lambda dy, w: lax.conv_transpose(dy, w, (2, 2), "SAME", transpose_kernel=True),
        lambda dy, w: np_conv_transpose_gradient(dy, w, (2, 2), "SAME"),
        [((2, 3, 3, 4), (3, 3, 2, 4)), ((1, 2, 3, 2), (2, 2, 3, 2))],
        (F32,),
        small_ints,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "conv_transpose_valid_1d",
        lambda dy, w: lax.conv_transpose(dy, w, (3,), "VALID", transpose_kernel=True),
        lambda dy, w: np_conv_transpose_gradient(dy, w, (3,), "VALID"),
        [((2, 4, 3), (5, 2, 3)), ((1, 3, 2), (2, 1, 2))],
        (F32, F16),
        small_ints,
        tol=TOL,
    ),
    OpRecord(
        "conv_general_dilated_patches",
        lambda x: lax.conv_general_dilated_patches(x, (2, 3), (1, 2), "SAME"),
        lambda x: np_patches_flat(x, (2, 3), (1, 2), same_pads(x.shape[2:], (2, 3), (1, 2))),
        [((2, 3, 4, 5),), ((1, 1, 3, 3),)],
        (F32, I32),
        small_ints,
        linear=True,
    ),
    OpRecord(
        "conv_general_dilated_local",
        lambda x, w: lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 2)),
        lambda x, w: np.einsum(
            "nfhw,ofhw->nohw", np_patches_flat(x, (2, 2), (1, 1), [(0, 0), (0, 0)]), w
        ),
        [((2, 3, 4, 5), (2, 12, 3, 4))],
        (F32,),
        small_ints,
    ),
]
