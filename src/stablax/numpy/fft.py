"""stablax.numpy.fft: discrete Fourier transforms with NumPy's signatures."""

from stablax._src.numpy._fft import (
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import traceback_util as _traceback_util

_traceback_util.wrap_public_functions(globals())
