"""stablax.scipy.signal: JAX's jax.scipy.signal (convolutions, spectral analysis)."""

from stablax._src.scipy.signal._convolve import (
    convolve,
    convolve2d,
    correlate,
    correlate2d,
    fftconvolve,
)
from stablax._src.scipy.signal._spectral import csd, detrend, istft, stft, welch

__all__ = [
    "convolve",
    "convolve2d",
    "correlate",
    "correlate2d",
    "csd",
    "detrend",
    "fftconvolve",
    "istft",
    "stft",
    "welch",
]
