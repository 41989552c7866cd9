"""scipy.signal convolutions: convolve, correlate (direct or FFT), their 2-D forms, fftconvolve.

The direct method is one `lax.conv_general_dilated` over the whole array.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.transforms.vmap_api import vmap

_MODES = ["full", "same", "valid"]


def _fftconvolve_all_axes(in1, in2, mode):
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    if mode == "valid":
        no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
        swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
        if not (no_swap or swap):
            raise ValueError(
                "For 'valid' mode, One input must be at least as large as the other in every "
                "dimension."
            )
        if swap:
            in1, in2 = in2, in1
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True)):
        product = in1 * in2
    else:
        if jnp.iscomplexobj(in1):
            forward, inverse = jnp.fft.fftn, jnp.fft.ifftn
        else:
            forward, inverse = jnp.fft.rfftn, jnp.fft.irfftn
        product = inverse(forward(in1, full_shape) * forward(in2, full_shape), full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    start = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape, strict=True))
    return lax.dynamic_slice(product, start, out_shape)


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Sequence[int] | None = None) -> Any:
    """N-dimensional convolution by FFT (scipy.signal.fftconvolve).

    Args:
      in1, in2: arrays of equal rank.
      mode: "full", "same" (in1's shape) or "valid".
      axes: the axes to convolve over (default all); the other axes must match and are mapped.
    """
    in1, in2 = promote_dtypes_inexact(jnp.asarray(in1), jnp.asarray(in2))
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    fn = functools.partial(_fftconvolve_all_axes, mode=mode)
    if axes is None:
        return fn(in1, in2)
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    axes = tuple(a % in1.ndim for a in axes)
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(
            f"mapped axes must have same shape; got in1.shape={in1.shape} "
            f"in2.shape={in2.shape} axes={axes}"
        )
    for axis in mapped:
        fn = vmap(fn, in_axes=axis, out_axes=axis)
    return fn(in1, in2)


def _convolve_nd(in1, in2, mode, *, precision):
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(
            "zero-size arrays not supported in convolutions, got shapes "
            f"{in1.shape} and {in2.shape}."
        )
    in1, in2 = promote_dtypes_inexact(in1, in2)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    original_kernel_shape = in2.shape
    if swap:
        in1, in2 = in2, in1
    shape = in2.shape
    kernel = jnp.flip(in2)
    if mode == "valid":
        padding = [(0, 0)] * len(shape)
    elif mode == "same":
        padding = [
            (s - 1 - (so - 1) // 2, s - so + (so - 1) // 2)
            for s, so in zip(shape, original_kernel_shape, strict=True)
        ]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    result = lax.conv_general_dilated(
        in1[None, None], kernel[None, None], (1,) * len(shape), padding, precision=precision
    )
    return result[0, 0]


def convolve(
    in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None
) -> Any:
    """N-dimensional convolution of two arrays of equal rank (scipy.signal.convolve).

    Args:
      mode: "full", "same" or "valid".
      method: "auto"/"direct" (lax.conv_general_dilated) or "fft" (fftconvolve).
      precision: the precision of the direct method's convolution.
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)
    raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")


def _check_2d(name: str, in1: Any, in2: Any, boundary: str, fillvalue: Any) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(
    in1: Any,
    in2: Any,
    mode: str = "full",
    boundary: str = "fill",
    fillvalue: float = 0,
    precision: Any = None,
) -> Any:
    """2-D convolution with zero fill (scipy.signal.convolve2d)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)


def correlate(
    in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision: Any = None
) -> Any:
    """N-dimensional cross-correlation (scipy.signal.correlate): convolution with in2 flipped
    and conjugated."""
    in2 = jnp.asarray(in2)
    return convolve(in1, jnp.flip(in2.conj()), mode, precision=precision, method=method)


def correlate2d(
    in1: Any,
    in2: Any,
    mode: str = "full",
    boundary: str = "fill",
    fillvalue: float = 0,
    precision: Any = None,
) -> Any:
    """2-D cross-correlation with zero fill (scipy.signal.correlate2d)."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))

    def flipped():  # correlate in1 against in2, in in1's frame
        return jnp.flip(_convolve_nd(jnp.flip(in1), in2.conj(), mode, precision=precision))

    def swapped():  # the larger in2 slides under the flipped in1
        return _convolve_nd(jnp.flip(in2), in1.conj(), mode, precision=precision)

    if mode == "same":
        return flipped()
    if mode == "valid":
        return swapped() if swap and in1.shape != in2.shape else flipped()
    return swapped().conj() if swap else flipped()
