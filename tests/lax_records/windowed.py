"""Op records for reduce_window (a direct NumPy loop as reference) and the cumulative ops."""

from __future__ import annotations

import numpy as np

from stablax import lax
from tests.lax_records.reductions import separated, ties_and_nans
from tests.op_record import BF16, C64, C128, F16, F32, F64, I32, I64, U8, OpRecord, standard


def same_pads(sizes, windows, strides):
    """TensorFlow's 'SAME': ceil(size / stride) outputs, the odd padding element at the end."""
    pads = []
    for size, window, stride in zip(sizes, windows, strides, strict=True):
        total = max(0, (-(-size // stride) - 1) * stride + window - size)
        pads.append((total // 2, total - total // 2))
    return pads


def _extreme(dtype, largest):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if largest else info.min
    return np.inf if largest else -np.inf


def np_reduce_window(
    x, init, ufunc, window, strides=None, padding=None, base_dilation=None, window_dilation=None
):
    """Reduces every window by brute force over an explicitly dilated and padded copy of `x`."""
    nd = x.ndim
    strides = strides or (1,) * nd
    padding = padding or [(0, 0)] * nd
    base_dilation = base_dilation or (1,) * nd
    window_dilation = window_dilation or (1,) * nd
    dilated = [0 if n == 0 else (n - 1) * b + 1 for n, b in zip(x.shape, base_dilation)]
    grown = np.full(
        [d + max(lo, 0) + max(hi, 0) for d, (lo, hi) in zip(dilated, padding)], init, x.dtype
    )
    grown[
        tuple(
            slice(max(lo, 0), max(lo, 0) + d, b)
            for d, (lo, _), b in zip(dilated, padding, base_dilation)
        )
    ] = x
    padded = grown[
        tuple(slice(-min(lo, 0), g + min(hi, 0)) for g, (lo, hi) in zip(grown.shape, padding))
    ]
    spans = [(w - 1) * d + 1 for w, d in zip(window, window_dilation)]
    out_shape = [
        0 if p < s else (p - s) // st + 1 for p, s, st in zip(padded.shape, spans, strides)
    ]
    out = np.empty(out_shape, x.dtype)
    for index in np.ndindex(*out_shape):
        sl = tuple(
            slice(i * st, i * st + s, d)
            for i, st, s, d in zip(index, strides, spans, window_dilation)
        )
        out[index] = ufunc.reduce(padded[sl].ravel(), initial=init)
    return out


def _reverse(fn):
    return lambda x: np.flip(fn(np.flip(x, 0)), 0)


def _cumsum(x):
    return np.cumsum(x, 0).astype(x.dtype)


def _cumprod(x):
    return np.cumprod(x, 0).astype(x.dtype)


CUM_SHAPES = [((5,),), ((3, 4),), ((0, 3),)]
REVERSE_SHAPES = [((5,),), ((2, 3, 4),)]
X64_NUMBERS = (F64, I64, C128)

RECORDS = [
    OpRecord(
        "cumsum",
        lambda x: lax.cumsum(x),
        _cumsum,
        CUM_SHAPES,
        (F32, F16, BF16, I32, U8, C64),
        linear=True,
        tol=2e-2,
        x64_dtypes=X64_NUMBERS,
    ),
    OpRecord(
        "cumsum_axis1_reverse",
        lambda x: lax.cumsum(x, axis=1, reverse=True),
        lambda x: np.flip(np.cumsum(np.flip(x, 1), 1), 1).astype(x.dtype),
        [((3, 4),), ((2, 3, 4),)],
        (F32, I32),
        linear=True,
    ),
    OpRecord(
        "cumprod",
        lambda x: lax.cumprod(x),
        _cumprod,
        CUM_SHAPES,
        (F32, F16, I32, C64),
        tol=1e-4,
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "cumprod_reverse",
        lambda x: lax.cumprod(x, reverse=True),
        _reverse(_cumprod),
        REVERSE_SHAPES,
        (F32, I32),
    ),
    OpRecord(
        "cummax",
        lambda x: lax.cummax(x),
        lambda x: np.maximum.accumulate(x, 0),
        CUM_SHAPES,
        (F32, F16, BF16, I32, U8, C64),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "cummax_reverse",
        lambda x: lax.cummax(x, reverse=True),
        _reverse(lambda x: np.maximum.accumulate(x, 0)),
        REVERSE_SHAPES,
        (F32, I32),
    ),
    OpRecord(
        "cummin",
        lambda x: lax.cummin(x),
        lambda x: np.minimum.accumulate(x, 0),
        CUM_SHAPES,
        (F32, BF16, I32, C64),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "cummin_axis2_reverse",
        lambda x: lax.cummin(x, 2, reverse=True),
        lambda x: np.flip(np.minimum.accumulate(np.flip(x, 2), 2), 2),
        REVERSE_SHAPES[1:],
        (F32, I32),
    ),
    OpRecord(
        "cumlogsumexp",
        lambda x: lax.cumlogsumexp(x),
        lambda x: np.logaddexp.accumulate(x, 0),
        CUM_SHAPES,
        (F32, F16, BF16),
        tol=1e-4,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "cumlogsumexp_reverse_infs",
        lambda x: lax.cumlogsumexp(x, reverse=True),
        _reverse(lambda x: np.logaddexp.accumulate(x, 0)),
        REVERSE_SHAPES,
        (F32,),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        tol=1e-4,
    ),
    OpRecord(
        "reduce_window_sum_valid",
        lambda x: lax.reduce_window(x, 0, lax.add, (2, 2), (1, 1), "VALID"),
        lambda x: np_reduce_window(x, 0, np.add, (2, 2)),
        [((4, 5),), ((2, 2),), ((1, 3),)],
        (F32, F16, BF16, I32, C64),
        linear=True,
        tol=2e-2,
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "reduce_window_max_same_strided",
        lambda x: lax.reduce_window(x, _extreme(x.dtype, False), lax.max, (3, 2), (2, 1), "SAME"),
        lambda x: np_reduce_window(
            x,
            _extreme(x.dtype, False),
            np.maximum,
            (3, 2),
            (2, 1),
            same_pads(x.shape, (3, 2), (2, 1)),
        ),
        [((5, 4),), ((4, 3),)],
        (F32, F16, I32, U8),
        ties_and_nans,
        differentiable=False,  # ties, NaNs and infinities: not smooth
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "reduce_window_min_dilated",
        lambda x: lax.reduce_window(
            x, _extreme(x.dtype, True), lax.min, (2, 2), (1, 2), ((1, 2), (0, -1)), (2, 1), (1, 2)
        ),
        lambda x: np_reduce_window(
            x,
            _extreme(x.dtype, True),
            np.minimum,
            (2, 2),
            (1, 2),
            [(1, 2), (0, -1)],
            (2, 1),
            (1, 2),
        ),
        [((3, 6),), ((2, 5),)],
        (F32, I32),
        differentiable=False,  # windows over padding and holes only give +inf
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "reduce_window_mul_padded",
        lambda x: lax.reduce_window(x, 1, lax.mul, (1, 2, 2), None, ((0, 0), (1, 0), (1, 1))),
        lambda x: np_reduce_window(x, 1, np.multiply, (1, 2, 2), None, [(0, 0), (1, 0), (1, 1)]),
        [((2, 3, 3),), ((1, 2, 4),)],
        (F32, I32),
        tol=1e-4,
    ),
    OpRecord(
        "reduce_window_sum_pool_nhwc",
        lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "SAME"),
        lambda x: np_reduce_window(
            x, 0, np.add, (1, 2, 2, 1), (1, 2, 2, 1), same_pads(x.shape, (1, 2, 2, 1), (1, 2, 2, 1))
        ),
        [((2, 5, 4, 3),)],
        (F32, BF16),
        linear=True,
        tol=2e-2,
    ),
    # A non-identity init enters each window once (VALID: no padding to disagree about).
    OpRecord(
        "reduce_window_sum_init",
        lambda x: lax.reduce_window(x, 1.5, lax.add, (2,), (2,), "VALID"),
        lambda x: np_reduce_window(x, 0, np.add, (2,), (2,)) + 1.5,
        [((6,),), ((7,),)],
        (F32,),
        standard,
    ),
    # Well separated floats: the running extremes are differentiable.
    OpRecord(
        "cummax_smooth",
        lambda x: lax.cummax(x),
        lambda x: np.maximum.accumulate(x, 0),
        [((5,),), ((3, 4),)],
        (F32,),
        separated,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "cummin_smooth_reverse",
        lambda x: lax.cummin(x, 1, reverse=True),
        lambda x: np.flip(np.minimum.accumulate(np.flip(x, 1), 1), 1),
        [((3, 4),), ((2, 3, 4),)],
        (F32,),
        separated,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "reduce_window_max_smooth",
        lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 2), "SAME"),
        lambda x: np_reduce_window(
            x, -np.inf, np.maximum, (2, 2), (1, 2), same_pads(x.shape, (2, 2), (1, 2))
        ),
        [((4, 5),), ((3, 3),)],
        (F32,),
        separated,
        x64_dtypes=(F64,),
    ),
]
