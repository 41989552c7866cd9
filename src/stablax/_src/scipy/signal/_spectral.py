"""scipy.signal spectral analysis: detrend, stft, istft, csd and welch (windowed FFTs)."""

from __future__ import annotations

import functools
import math
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.scipy.linalg._decompositions import promote_dtypes_complex, to_complex_dtype
from stablax._src.transforms.vmap_api import vmap


def detrend(
    data: Any,
    axis: int = -1,
    type: str = "linear",  # noqa: A002 (SciPy's name)
    bp: int | Sequence[int] | np.ndarray = 0,
    overwrite_data: None = None,
) -> Any:
    """Removes the mean ("constant") or a least-squares line per segment ("linear") along
    `axis` (scipy.signal.detrend); `bp` are the breakpoints between linear segments."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (data,) = promote_dtypes_inexact(jnp.asarray(data))
    if type == "constant":
        return data - data.mean(axis, keepdims=True)
    n = data.shape[axis]
    breakpoints = np.sort(np.unique(np.r_[0, bp, n]))
    if breakpoints[0] < 0 or breakpoints[-1] > n:
        raise ValueError(
            "Breakpoints must be non-negative and less than length of data along given axis."
        )
    data = jnp.moveaxis(data, axis, 0)
    shape = data.shape
    data = data.reshape(n, -1)
    for start, stop in zip(breakpoints[:-1], breakpoints[1:], strict=True):
        count = stop - start
        design = jnp.vstack(
            [
                jnp.ones(count, dtype=data.dtype),
                jnp.arange(1, count + 1, dtype=data.dtype) / count.astype(data.dtype),
            ]
        ).T
        segment = slice(start, stop)
        coef, *_ = jnp.linalg.lstsq(design, data[segment])
        data = data.at[segment].add(-jnp.matmul(design, coef, precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(data.reshape(shape), 0, axis)


def _hann(n: int) -> Any:
    return jnp.array([1.0]) if n == 1 else jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2


def _named_window(window: Any, n: int) -> Any:
    if isinstance(window, str) and window == "hann":
        return _hann(n)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use {window=}") from err
    return get_window(window, n)


def _triage_segments(window, nperseg, input_length, dtype):
    if isinstance(window, (str, tuple)):
        length = input_length if nperseg is None else int(nperseg)
        if length > input_length:
            warnings.warn(
                f"nperseg={length} is greater than input_length={input_length}, using "
                f"nperseg={input_length}",
                stacklevel=4,
            )
            length = input_length
        return jnp.array(_named_window(window, length), dtype=dtype), length
    win = jnp.asarray(window, dtype=dtype)
    length = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < win.size:
        raise ValueError("window is longer than input signal")
    if length != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, length


def _median_bias(n: int) -> Any:
    even = jnp.arange(2.0, n, 2)
    return 1 + jnp.sum(1.0 / (even + 1) - 1.0 / even)


def _segments_fft(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    # The windowed, detrended segments of x's last axis (..., segments, nperseg), transformed.
    if x.dtype.kind == "i":
        x = x.astype(win.dtype)
    *batch, length = x.shape
    if nperseg == 1 and noverlap == 0:
        segments = x[..., np.newaxis]
    else:
        starts = jnp.arange(length - nperseg + 1, step=nperseg - noverlap)
        take = functools.partial(lax.dynamic_slice_in_dim, x, slice_size=nperseg, axis=x.ndim - 1)
        segments = vmap(lambda s: take(s), out_axes=-2)(starts)
    segments = detrend_func(segments)
    if jnp.iscomplexobj(win):
        (segments,) = promote_dtypes_complex(segments)
    segments = win.reshape((1,) * len(batch) + (1, nperseg)) * segments
    if sides == "twosided":
        return jnp.fft.fft(segments, n=nfft)
    return jnp.fft.rfft(segments.real, n=nfft)


def _odd_extension(x, n, axis=-1):
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(
            f"The extension length n ({n}) is too big. It must not exceed x.shape[axis]-1, "
            f"which is {x.shape[axis] - 1}."
        )
    left, right = lax.slice_in_dim(x, 0, 1, axis=axis), lax.slice_in_dim(x, -1, None, axis=axis)
    left_ext = jnp.flip(lax.slice_in_dim(x, 1, n + 1, axis=axis), axis=axis)
    right_ext = jnp.flip(lax.slice_in_dim(x, -(n + 1), -1, axis=axis), axis=axis)
    return jnp.concatenate((2 * left - left_ext, x, 2 * right - right_ext), axis=axis)


def _padder(mode, **kwargs):
    def pad(x, n, axis=-1):
        widths = [(0, 0)] * x.ndim
        widths[axis] = (n, n)
        return jnp.pad(x, widths, mode, **kwargs)

    return pad


_BOUNDARIES: dict[Any, Callable] = {
    "even": _padder("reflect"),
    "odd": _odd_extension,
    "constant": _padder("edge"),
    "zeros": _padder("constant", constant_values=0.0),
    None: lambda x, *args, **kwargs: x,
}


def _without(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return shape[:axis] + shape[axis + 1 :]


def _spectral_helper(
    x,
    y,
    fs=1.0,
    window="hann",
    nperseg=None,
    noverlap=None,
    nfft=None,
    detrend_type="constant",
    return_onesided=True,
    scaling="density",
    axis=-1,
    mode="psd",
    boundary=None,
    padded=False,
):
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARIES:
        raise ValueError(
            f"Unknown boundary option '{boundary}', must be one of: {list(_BOUNDARIES.keys())}"
        )
    x = jnp.asarray(x)
    axis = operator.index(axis) % max(x.ndim, 1)
    if y is None:
        (x,) = promote_dtypes_inexact(x)
        y_arr = x
        outer_shape = _without(x.shape, axis)
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        x, y_arr = promote_dtypes_inexact(x, jnp.asarray(y))
        if x.ndim != y_arr.ndim:
            raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y_arr.ndim}).")
        try:
            outer_shape = jnp.broadcast_shapes(_without(x.shape, axis), _without(y_arr.shape, axis))
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = to_complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype
    if nperseg is not None:
        nperseg = int(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _triage_segments(window, nperseg, input_length=x.shape[axis], dtype=x.dtype)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    nfft = nperseg if nfft is None else int(nfft)
    if y is None and x.size == 0:
        return (
            jnp.zeros(x.shape, freq_dtype),
            jnp.zeros(x.shape, freq_dtype),
            jnp.zeros(x.shape, result_dtype),
        )
    if y is not None and (x.size == 0 or y_arr.size == 0):
        shape = (*outer_shape[:axis], min(x.shape[axis], y_arr.shape[axis]), *outer_shape[axis:])
        zeros = jnp.zeros(shape, freq_dtype)
        return zeros, zeros, jnp.zeros(shape, result_dtype)
    x = jnp.moveaxis(x, axis, -1)
    if y is not None and y_arr.ndim > 1:
        y_arr = jnp.moveaxis(y_arr, axis, -1)
    if y is not None and x.shape[-1] != y_arr.shape[-1]:  # zero-pad the shorter signal
        if x.shape[-1] < y_arr.shape[-1]:
            extra = y_arr.shape[-1] - x.shape[-1]
            x = jnp.concatenate((x, jnp.zeros_like(x, shape=(*x.shape[:-1], extra))), -1)
        else:
            extra = x.shape[-1] - y_arr.shape[-1]
            y_arr = jnp.concatenate(
                (y_arr, jnp.zeros_like(x, shape=(*y_arr.shape[:-1], extra))), -1
            )
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    if boundary is not None:
        extend = _BOUNDARIES[boundary]
        x = extend(x, nperseg // 2, axis=-1)
        if y is not None:
            y_arr = extend(y_arr, nperseg // 2, axis=-1)
    if padded:
        extra = -(x.shape[-1] - nperseg) % step % nperseg
        x = jnp.concatenate((x, jnp.zeros_like(x, shape=(*x.shape[:-1], extra))), axis=-1)
        if y is not None:
            y_arr = jnp.concatenate(
                (y_arr, jnp.zeros_like(x, shape=(*y_arr.shape[:-1], extra))), axis=-1
            )
    if isinstance(detrend_type, str):
        detrend_func = functools.partial(detrend, type=detrend_type, axis=-1)
    elif callable(detrend_type):
        detrend_func = detrend_type
        if axis != -1:

            def detrend_func(d):
                return jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)

    elif not detrend_type:

        def detrend_func(d):
            return d

    else:
        raise ValueError(f"Unsupported detrend type: {detrend_type}")
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    (scale,) = promote_dtypes_complex(scale)
    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and (jnp.iscomplexobj(x) or jnp.iscomplexobj(y)):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    if sides == "twosided":
        freqs = jnp.fft.fftfreq(nfft, 1 / fs, dtype=freq_dtype)
    else:
        freqs = jnp.fft.rfftfreq(nfft, 1 / fs, dtype=freq_dtype)
    result = _segments_fft(x, win, detrend_func, nperseg, noverlap, nfft, sides)
    if y is not None:
        result_y = _segments_fft(y_arr, win, detrend_func, nperseg, noverlap, nfft, sides)
        result = jnp.conjugate(result) * result_y
    elif mode == "psd":
        result = jnp.conjugate(result) * result
    result *= scale
    if sides == "onesided" and mode == "psd":  # fold the negative frequencies in
        end = None if nfft % 2 else -1
        result = result.at[..., 1:end].mul(2)
    time = (
        jnp.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, nperseg - noverlap, dtype=freq_dtype)
        / fs
    )
    if boundary is not None:
        time -= nperseg / 2 / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    return freqs, time, jnp.moveaxis(result, -1, axis)


def stft(
    x: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int = 256,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = False,
    return_onesided: bool = True,
    boundary: str | None = "zeros",
    padded: bool = True,
    axis: int = -1,
) -> tuple[Any, Any, Any]:
    """Short-time Fourier transform (scipy.signal.stft).

    Returns:
      `(f, t, Zxx)`: sample frequencies, segment times and the STFT (frequencies on `axis`,
      segments last).
    """
    return _spectral_helper(
        x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
        scaling="spectrum", axis=axis, mode="stft", boundary=boundary, padded=padded,
    )  # fmt: skip


def csd(
    x: Any,
    y: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Any, Any]:
    """Cross power spectral density by Welch's method (scipy.signal.csd): `(f, Pxy)`."""
    freqs, _, pxy = _spectral_helper(
        x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis,
        mode="psd",
    )  # fmt: skip
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                bias = _median_bias(pxy.shape[-1]).astype(pxy.dtype)
                if jnp.iscomplexobj(pxy):
                    pxy = jnp.median(jnp.real(pxy), axis=-1) + 1j * jnp.median(
                        jnp.imag(pxy), axis=-1
                    )
                else:
                    pxy = jnp.median(pxy, axis=-1)
                pxy /= bias
            elif average == "mean":
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = jnp.reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


def welch(
    x: Any,
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Any, Any]:
    """Power spectral density by Welch's method (scipy.signal.welch): `(f, Pxx)`."""
    freqs, pxx = csd(
        x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
        detrend=detrend, return_onesided=return_onesided, scaling=scaling, axis=axis,
        average=average,
    )  # fmt: skip
    return freqs, pxx.real


def _overlap_and_add(x, step):
    # Sums frames (..., frames, length) placed `step` apart into one signal.
    if x.ndim < 2:
        raise ValueError("Input must have (..., frames, frame_length) shape.")
    *batch, frames, length = x.shape
    flat = math.prod(batch)
    x = x.reshape((flat, frames, length))
    output_size = step * (frames - 1) + length
    chunks = 1 + (length - 1) // step
    x = jnp.pad(x, ((0, 0), (0, 0), (0, chunks * step - length)))
    x = x.reshape((flat, frames, chunks, step)).transpose((0, 2, 1, 3))
    x = jnp.pad(x, ((0, 0), (0, 0), (0, frames), (0, 0)))
    shrunken = x.shape[2] - 1
    x = x.reshape((flat, -1))[:, : chunks * shrunken * step]
    x = x.reshape((flat, chunks, shrunken * step)).sum(axis=1)[:, :output_size]
    return x.reshape((*batch, -1))


def istft(
    Zxx: Any,  # noqa: N803 (SciPy's name)
    fs: Any = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    input_onesided: bool = True,
    boundary: bool = True,
    time_axis: int = -1,
    freq_axis: int = -2,
) -> tuple[Any, Any]:
    """Inverse short-time Fourier transform by weighted overlap-add (scipy.signal.istft).

    Returns:
      `(t, x)`: sample times and the reconstructed signal.
    """
    z = jnp.asarray(Zxx)
    if z.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis, time_axis = freq_axis % z.ndim, time_axis % z.ndim
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    z = z.astype(to_complex_dtype(z.dtype))
    default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
    nperseg = int(nperseg or default)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = default + (1 if input_onesided and nperseg == default + 1 else 0)
    else:
        nfft_int = int(nfft)
    if nfft_int < nperseg:
        raise ValueError(f"FFT length ({nfft_int}) must be longer than nperseg ({nperseg}).")
    noverlap = int(noverlap or nperseg // 2)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    if time_axis != z.ndim - 1 or freq_axis != z.ndim - 2:
        outer = tuple(i for i in range(z.ndim) if i not in {time_axis, freq_axis})
        z = jnp.transpose(z, (*outer, freq_axis, time_axis))
    inverse = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    frames = inverse(z, axis=-2, n=nfft)[..., :nperseg, :]
    if isinstance(window, (str, tuple)):
        win = jnp.array(_named_window(window, nperseg), dtype=frames.dtype)
    else:
        win = jnp.asarray(window)
        if len(win.shape) != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    frames *= win.sum()
    win = lax.expand_dims(win, (*range(frames.ndim - 2), frames.ndim - 1))
    x = _overlap_and_add((frames * win).swapaxes(-2, -1), step)
    norm = _overlap_and_add(jnp.repeat(win * win, frames.shape[-1], axis=-1).swapaxes(-2, -1), step)
    if boundary:
        x = x[..., nperseg // 2 : -(nperseg // 2)]
        norm = norm[..., nperseg // 2 : -(nperseg // 2)]
    x /= jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != z.ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = jnp.moveaxis(x, -1, time_axis)
    time = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return time, x
