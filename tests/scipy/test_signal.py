"""stablax.scipy.signal against scipy.signal: several shapes, modes and dtypes; gradients."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as ss

import stablax
import stablax.numpy as jnp
import stablax.scipy.signal as S
from stablax.test_util import check_grads


def _normal(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _close(actual, expected, tol):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale)


MODES = ["full", "same", "valid"]
CONVOLUTIONS = [
    ("convolve", S.convolve, ss.convolve, [(9,), (4,)]),
    ("convolve_2d_arrays", S.convolve, ss.convolve, [(5, 6), (2, 3)]),
    ("convolve_swapped", S.convolve, ss.convolve, [(3,), (7,)]),
    ("correlate", S.correlate, ss.correlate, [(8,), (3,)]),
    ("correlate_3d", S.correlate, ss.correlate, [(4, 3, 5), (2, 2, 2)]),
    ("fftconvolve", S.fftconvolve, ss.fftconvolve, [(10,), (4,)]),
    ("fftconvolve_2d", S.fftconvolve, ss.fftconvolve, [(6, 5), (3, 3)]),
    ("convolve_fft_method", lambda a, b, m: S.convolve(a, b, m, method="fft"),
     lambda a, b, m: ss.convolve(a, b, m, method="fft"), [(7,), (3,)]),
    ("convolve2d", S.convolve2d, ss.convolve2d, [(5, 6), (3, 2)]),
    ("convolve2d_swapped", S.convolve2d, ss.convolve2d, [(2, 3), (4, 5)]),
    ("correlate2d", S.correlate2d, ss.correlate2d, [(5, 6), (3, 2)]),
    ("correlate2d_swapped", S.correlate2d, ss.correlate2d, [(2, 3), (4, 5)]),
]  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("case", CONVOLUTIONS, ids=[c[0] for c in CONVOLUTIONS])
def test_convolutions_match_scipy(case, dtype, mode):
    _, ours, theirs, shapes = case
    a, b = _normal(shapes[0], dtype), _normal(shapes[1], dtype, 1)
    _close(ours(a, b, mode), theirs(a, b, mode), 1e-4)


def test_convolutions_in_float64(x64):
    a, b = _normal((12,), np.float64), _normal((5,), np.float64, 1)
    _close(S.convolve(a, b), ss.convolve(a, b), 1e-12)
    _close(S.fftconvolve(a, b, "same"), ss.fftconvolve(a, b, "same"), 1e-12)
    _close(
        S.correlate2d(a[None], b[None], "valid"), ss.correlate2d(a[None], b[None], "valid"), 1e-12
    )


def test_fftconvolve_maps_the_other_axes():
    a, b = _normal((3, 8, 2), np.float32), _normal((3, 4, 2), np.float32, 1)
    _close(S.fftconvolve(a, b, axes=1), ss.fftconvolve(a, b, axes=1), 1e-4)
    with pytest.raises(ValueError, match="mapped axes must have same shape"):
        S.fftconvolve(a, b[:2], axes=1)


def test_convolution_gradients(x64):
    a, b = _normal((6,), np.float64), _normal((3,), np.float64, 1)
    check_grads(lambda x, y: S.convolve(x, y, "same"), (a, b), order=2)
    check_grads(lambda x, y: S.fftconvolve(x, y), (a, b), order=1)
    check_grads(lambda x, y: S.correlate2d(x[None], y[None]), (a, b), order=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_detrend_matches_scipy(dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = _normal((3, 40), dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    _close(S.detrend(x), ss.detrend(x), tol)
    _close(S.detrend(x, type="constant", axis=0), ss.detrend(x, type="constant", axis=0), tol)
    _close(S.detrend(x, bp=[10, 25]), ss.detrend(x, bp=[10, 25]), tol)


SPECTRAL = [
    ("welch", lambda x: S.welch(x, nperseg=32), lambda x: ss.welch(x, nperseg=32)),
    ("welch_spectrum_twosided", lambda x: S.welch(x, nperseg=16, scaling="spectrum",
                                                  return_onesided=False, detrend="linear"),
     lambda x: ss.welch(x, nperseg=16, scaling="spectrum", return_onesided=False,
                        detrend="linear")),
    ("welch_median_nfft", lambda x: S.welch(x, fs=2.0, nperseg=20, nfft=32, average="median"),
     lambda x: ss.welch(x, fs=2.0, nperseg=20, nfft=32, average="median")),
    ("csd", lambda x: S.csd(x, x[::-1] * 2, nperseg=24, noverlap=8),
     lambda x: ss.csd(x, x[::-1] * 2, nperseg=24, noverlap=8)),
    ("stft", lambda x: S.stft(x, nperseg=16), lambda x: ss.stft(x, nperseg=16)),
    ("stft_even_unpadded", lambda x: S.stft(x, nperseg=16, boundary="even", padded=False),
     lambda x: ss.stft(x, nperseg=16, boundary="even", padded=False)),
    ("stft_window", lambda x: S.stft(x, window="hamming", nperseg=12, noverlap=4),
     lambda x: ss.stft(x, window="hamming", nperseg=12, noverlap=4)),
]  # fmt: skip


@pytest.mark.parametrize("case", SPECTRAL, ids=[c[0] for c in SPECTRAL])
@pytest.mark.parametrize("shape", [(100,), (2, 64)])
def test_spectral_analysis_matches_scipy(case, shape):
    _, ours, theirs = case
    x = _normal(shape, np.float32)
    for a, e in zip(ours(x), theirs(x), strict=True):
        _close(a, e, 1e-4)


@pytest.mark.parametrize("nperseg,noverlap", [(16, None), (20, 15)])
def test_istft_inverts_stft(nperseg, noverlap):
    x = _normal((2, 90), np.float32)
    _, _, z = ss.stft(x, nperseg=nperseg, noverlap=noverlap)
    for a, e in zip(S.istft(z, nperseg=nperseg, noverlap=noverlap),
                    ss.istft(z, nperseg=nperseg, noverlap=noverlap), strict=True):  # fmt: skip
        _close(a, e, 1e-4)
    _, reconstructed = S.istft(S.stft(x, nperseg=nperseg, noverlap=noverlap)[2],
                               nperseg=nperseg, noverlap=noverlap)  # fmt: skip
    _close(np.asarray(reconstructed)[..., :90], x, 1e-4)


def test_welch_is_jittable_and_differentiable(x64):
    x = _normal((64,), np.float64)
    f = stablax.jit(lambda v: S.welch(v, nperseg=16)[1])
    _close(f(x), ss.welch(x, nperseg=16)[1], 1e-10)
    check_grads(lambda v: jnp.sum(S.welch(v, nperseg=16)[1]), (x,), order=1)


def test_errors():
    with pytest.raises(ValueError, match="mode must be one of"):
        S.convolve(np.ones(3), np.ones(2), mode="circular")
    with pytest.raises(NotImplementedError, match="boundary='fill'"):
        S.convolve2d(np.ones((2, 2)), np.ones((2, 2)), boundary="wrap")
    with pytest.raises(ValueError, match="noverlap must be less than nperseg"):
        S.welch(np.ones(64, np.float32), nperseg=16, noverlap=16)
    with pytest.raises(ValueError, match="Trend type"):
        S.detrend(np.ones(4), type="quadratic")
