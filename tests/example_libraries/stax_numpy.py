"""NumPy forward passes of stax's layers (float64), the oracle of tests/example_libraries.

A reference takes the layer's parameters (NumPy arrays, nested as stax nests them) and the
input, and returns the output. Convolutions are written as correlations over an explicitly
dilated and padded input, in channel-first layout.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


ACTIVATIONS = {
    "Tanh": np.tanh,
    "Relu": lambda x: np.maximum(x, 0),
    "Exp": np.exp,
    "Sigmoid": sigmoid,
    "Softplus": lambda x: np.logaddexp(x, 0),
    "Elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "LeakyRelu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "Selu": lambda x: (
        1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(np.minimum(x, 0)))
    ),
    "Gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    "LogSoftmax": log_softmax,
    "Softmax": lambda x: np.exp(log_softmax(x)),
}


def dense(params, x):
    W, b = params
    return x @ W + b


def _same_pads(size, window, stride):
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + window - size)
    return total // 2, total - total // 2


def correlate(x, w, strides, pads, lhs_dilation=None):
    """x: (N, C, *spatial), w: (O, C, *window) -> (N, O, *out) with explicit (lo, hi) pads."""
    nd = x.ndim - 2
    lhs_dilation = lhs_dilation or (1,) * nd
    dilated_shape = [(n - 1) * d + 1 for n, d in zip(x.shape[2:], lhs_dilation)]
    dilated = np.zeros(x.shape[:2] + tuple(dilated_shape))
    dilated[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dilation)] = x
    padded = np.pad(dilated, [(0, 0), (0, 0)] + list(pads))
    windows = sliding_window_view(padded, w.shape[2:], axis=tuple(range(2, 2 + nd)))
    windows = windows[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)]
    letters = "abcdefgh"[:nd]
    return np.einsum(f"nc{letters.upper()}{letters},oc{letters}->no{letters.upper()}", windows, w)


def _to_channel_first(spec, array):
    # spec such as 'NHWC' or 'HWIO': batch/out first, channel/in second, spatial in order.
    lead = "N" if "N" in spec else "O"
    second = "C" if "C" in spec else "I"
    order = [spec.index(lead), spec.index(second)] + [
        i for i, c in enumerate(spec) if c not in (lead, second)
    ]
    return np.transpose(array, order)


def _from_channel_first(spec, array):
    order = [spec.index("N"), spec.index("C")] + [i for i, c in enumerate(spec) if c not in "NC"]
    return np.transpose(array, np.argsort(order))


def conv(dimension_numbers, strides, padding):
    lhs_spec, rhs_spec, out_spec = dimension_numbers

    def forward(params, x):
        W, b = params
        xc, wc = _to_channel_first(lhs_spec, x), _to_channel_first(rhs_spec, W)
        window = wc.shape[2:]
        strides_ = strides or (1,) * len(window)
        if padding == "SAME":
            pads = [_same_pads(n, k, s) for n, k, s in zip(xc.shape[2:], window, strides_)]
        else:
            pads = [(0, 0)] * len(window)
        return _from_channel_first(out_spec, correlate(xc, wc, strides_, pads)) + b

    return forward


def _transpose_pads(k, s, padding):
    # JAX's conv_transpose padding of the stride-dilated input.
    if padding == "SAME":
        total = k + s - 2
        low = k - 1 if s > k - 1 else math.ceil(total / 2)
    else:
        total = k + s - 2 + max(k - s, 0)
        low = k - 1
    return low, total - low


def conv_transpose(dimension_numbers, strides, padding):
    lhs_spec, rhs_spec, out_spec = dimension_numbers

    def forward(params, x):
        W, b = params
        xc, wc = _to_channel_first(lhs_spec, x), _to_channel_first(rhs_spec, W)
        window = wc.shape[2:]
        strides_ = strides or (1,) * len(window)
        pads = [_transpose_pads(k, s, padding) for k, s in zip(window, strides_)]
        out = correlate(xc, wc, (1,) * len(window), pads, lhs_dilation=strides_)
        return _from_channel_first(out_spec, out) + b

    return forward


def batchnorm(axis, center=True, scale=True, epsilon=1e-5):
    axis = (axis,) if np.isscalar(axis) else tuple(axis)

    def forward(params, x):
        beta, gamma = params
        mean = x.mean(axis, keepdims=True)
        z = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis, keepdims=True) + epsilon)
        expand = tuple(None if i in axis else slice(None) for i in range(x.ndim))
        if scale:
            z = np.asarray(gamma)[expand] * z
        if center:
            z = z + np.asarray(beta)[expand]
        return z

    return forward


def pool(kind, window, strides=None, padding="VALID", spec=None):
    """MaxPool/SumPool/AvgPool; AvgPool divides by the number of real (unpadded) elements."""

    def forward(params, x):
        spec_ = spec or "N" + "S" * len(window) + "C"
        xc = np.transpose(x, [spec_.index("N"), spec_.index("C")] + [
            i for i, c in enumerate(spec_) if c not in "NC"])  # fmt: skip
        strides_ = strides or (1,) * len(window)
        if padding == "SAME":
            pads = [_same_pads(n, k, s) for n, k, s in zip(xc.shape[2:], window, strides_)]
        else:
            pads = [(0, 0)] * len(window)
        fill = -np.inf if kind == "max" else 0.0
        padded = np.pad(xc, [(0, 0), (0, 0)] + pads, constant_values=fill)
        counts = np.pad(np.ones(xc.shape[2:]), pads)
        axes = tuple(range(2, 2 + len(window)))
        views = sliding_window_view(padded, window, axis=axes)
        count_views = sliding_window_view(counts, window)
        picks = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides_)
        views = views[picks]
        count_views = count_views[picks[2:]]
        window_axes = tuple(range(-len(window), 0))
        out = views.max(window_axes) if kind == "max" else views.sum(window_axes)
        if kind == "avg":
            out = out / count_views.sum(window_axes)
        order = [spec_.index("N"), spec_.index("C")] + [
            i for i, c in enumerate(spec_) if c not in "NC"
        ]
        return np.transpose(out, np.argsort(order))

    return forward


def serial(*forwards):
    def forward(params, x):
        for f, p in zip(forwards, params, strict=True):
            x = f(p, x)
        return x

    return forward


def parallel(*forwards):
    def forward(params, xs):
        return [f(p, x) for f, p, x in zip(forwards, params, xs, strict=True)]

    return forward


def fan_out(num):
    return lambda params, x: [x] * num


def fan_in_sum(params, xs):
    return sum(xs)


def fan_in_concat(axis=-1):
    return lambda params, xs: np.concatenate(xs, axis)


def flatten(params, x):
    return x.reshape(x.shape[0], -1)


def identity(params, x):
    return x


def elementwise(name):
    return lambda params, x: ACTIVATIONS[name](x)
