"""stablax.numpy.fft: NumPy's FFT functions (`n=`, `s=`, `axes=`, `norm=`) over `lax.fft`.

Axes are moved to the end in chunks of at most three (what `stablehlo.fft` transforms at once);
the real transforms keep the last axis in the chunk that does the real-to-complex step.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.api import device_put
from stablax._src.lax._argcheck import axes_arg, axis_arg, int_sequence, sequence
from stablax._src.lax._fft import FftType
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._ufuncs_division import true_divide

_NORMS = (None, "backward", "ortho", "forward")


def _check_norm(norm: str | None) -> None:
    if norm not in _NORMS:
        raise ValueError(
            f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".'
            f"{mlir.where_suffix()}"
        )


def _check_two_axes(axes: Sequence[int], name: str) -> None:
    if name.endswith("2") and len(axes) != 2:  # JAX's check
        raise ValueError(
            f"jnp.fft.{name} only supports 2 axes, got axes={tuple(axes)}{mlir.where_suffix()}"
        )


def _axes_and_lengths(
    a: Any, s: Sequence[int] | None, axes: Sequence[int] | None, name: str
) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    ndim = a.aval.ndim
    if axes is not None:
        axes = int_sequence(axes, "axes", f"jnp.fft.{name}")
        _check_two_axes(axes, name)  # before s, as JAX
    if s is not None:
        s = int_sequence(s, "s", f"jnp.fft.{name}")
    if axes is None:
        if s is not None and len(s) > ndim:  # NumPy's AxisError: axis -len(s) is out of bounds
            raise ValueError(
                f"jnp.fft.{name}: s={tuple(s)} has more lengths than the input has dimensions "
                f"({ndim}){mlir.where_suffix()}"
            )
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    _check_two_axes(axes, name)
    repeated = "{name} does not support repeated axes. Got axes {axes}."
    normalized = axes_arg(axes, ndim, f"jnp.fft.{name}", convert=int_sequence, repeated=repeated)
    if s is None:
        return normalized, None
    lengths = tuple(operator.index(n) for n in s)
    if len(lengths) != len(normalized):
        raise ValueError(
            f"jnp.fft.{name}: shape s={tuple(lengths)} and axes={tuple(normalized)} must have "
            f"the same length{mlir.where_suffix()}"
        )
    return normalized, lengths


def _resize(x: Any, axis: int, size: int) -> Any:
    """Zero-pads or truncates `x` to `size` along `axis`."""
    shape = x.aval.shape
    if shape[axis] == size:
        return x
    config = [(0, 0, 0)] * len(shape)
    config[axis] = (0, size - shape[axis], 0)
    return lax.pad(x, lax.full((), 0, x.aval.dtype), config)


def _transform_chunk(x: Any, axes: Sequence[int], fft_type: FftType, lengths: Sequence[int]):
    """lax.fft over `axes` (moved to the end and back)."""
    ndim = x.aval.ndim
    rest = [i for i in range(ndim) if i not in axes]
    perm = (*rest, *axes)
    moved = perm != tuple(range(ndim))
    if moved:
        x = lax.transpose(x, perm)
    x = lax.fft(x, fft_type, lengths)
    if moved:
        x = lax.transpose(x, tuple(np.argsort(perm)))
    return x


def _chunks(axes: Sequence[int]) -> list[tuple[int, ...]]:
    """Axes in groups of at most three, from the end: the last group holds the last axis."""
    groups = []
    end = len(axes)
    while end > 0:
        groups.append(tuple(axes[max(0, end - 3) : end]))
        end -= 3
    return groups[::-1]


def _one_axis(axis: Any, name: str) -> tuple[Any]:
    if isinstance(axis, (tuple, list)):  # JAX's class
        raise ValueError(
            f"jnp.fft.{name} transforms one axis, got axis={axis!r} (the n-dimensional "
            f"transforms take several){mlir.where_suffix()}"
        )
    if not hasattr(axis, "__index__"):  # NumPy's class
        raise TypeError(
            f"jnp.fft.{name}: axis must be an integer, got {axis!r}{mlir.where_suffix()}"
        )
    return (axis,)


def _real_input(a: Any, name: str) -> Any:
    dtype = a.aval.dtype
    if dtype.kind == "c":
        raise ValueError(
            f"jnp.fft.{name}: only real valued inputs supported, got {dtype.name}"
            f"{mlir.where_suffix()}"
        )
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        return lax.convert_element_type(a, np.float64 if dtype.itemsize >= 8 else np.float32)
    return a


def _transform_1d(a: Any, n: int | None, axis: Any, norm: str | None, kind: str, name: str) -> Any:
    """`_transform` along one `axis` (checked first, as JAX), to length `n` if given."""
    return _transform(a, None if n is None else (n,), _one_axis(axis, name), norm, kind, name)


def _transform(
    a: Any,
    s: Sequence[int] | None,
    axes: Sequence[int] | None,
    norm: str | None,
    kind: str,
    name: str,
) -> Any:
    if axes is not None and hasattr(axes, "__len__"):
        _check_two_axes(axes, name)  # the 2-D transforms' check comes first in JAX
    a = asarray(a)  # then the array
    if s is not None and hasattr(s, "__iter__"):  # then s's signs, before the axes (JAX's order)
        try:
            sizes = [operator.index(n) for n in s]
        except TypeError:
            sizes = []  # a bad s is reported with the axes below
        if any(n <= 0 for n in sizes):
            raise ValueError(
                f"jnp.fft.{name}: invalid number of data points {tuple(sizes)}; each must be "
                f"positive{mlir.where_suffix()}"
            )
    _check_norm(norm)
    axes, lengths = _axes_and_lengths(a, s, axes, name)
    if not axes:
        # As JAX: no transform, but the result dtype of one (real for rfft, complex otherwise).
        if kind == "rfft":  # JAX's: the input in its inexact type (float16 stays), strong
            _real_input(a, name)
            return lax.convert_element_type(
                a, dtypes.to_inexact_dtype(a.aval.dtype), weak_type=False
            )
        return lax.fft(a, FftType.FFT, ())
    if lengths is None:
        lengths = tuple(a.aval.shape[ax] for ax in axes)
        if kind == "irfft":
            lengths = (*lengths[:-1], 2 * (lengths[-1] - 1))
        if kind != "rfft" and min(lengths) == 0:
            # As JAX: an empty axis (not an explicit length 0) gives an empty result.
            dtype = _complex(a).aval.dtype
            if kind == "irfft":
                dtype = np.dtype(np.float64 if dtype == np.complex128 else np.float32)
            shape = list(a.aval.shape)
            for axis, n in zip(axes, lengths, strict=True):
                shape[axis] = n
            return lax.full(tuple(shape), 0, dtype)
    if any(n < 1 for n in lengths):
        raise ValueError(
            f"jnp.fft.{name}: invalid number of data points {lengths}; each must be positive"
            f"{mlir.where_suffix()}"
        )
    if kind == "rfft":
        a = _real_input(a, name)
    for i, (axis, n) in enumerate(zip(axes, lengths, strict=True)):
        last = i == len(axes) - 1
        a = _resize(a, axis, n // 2 + 1 if kind == "irfft" and last else n)
    length_of = dict(zip(axes, lengths, strict=True))
    groups = _chunks(axes)
    if kind in ("fft", "ifft"):
        fft_type = FftType.FFT if kind == "fft" else FftType.IFFT
        plan = [(group, fft_type) for group in groups]
    elif kind == "rfft":  # real-to-complex first, then the complex transforms
        plan = [(groups[-1], FftType.RFFT)] + [(g, FftType.FFT) for g in groups[:-1]]
    else:  # complex inverses first, the complex-to-real step last
        plan = [(g, FftType.IFFT) for g in groups[:-1]] + [(groups[-1], FftType.IRFFT)]
    for group, fft_type in plan:
        a = _transform_chunk(a, group, fft_type, [length_of[ax] for ax in group])
    return _normalize(a, norm, int(np.prod(lengths)), inverse=kind in ("ifft", "irfft"))


def _normalize(x: Any, norm: str | None, n: int, inverse: bool) -> Any:
    # lax.fft leaves forward transforms unscaled and scales inverses by 1/n ("backward").
    if norm is None or norm == "backward":
        return x
    if norm == "ortho":
        factor = np.sqrt(n) if inverse else 1 / np.sqrt(n)
    else:  # "forward"
        factor = n if inverse else 1 / n
    return lax.mul(x, lax.full((), factor, x.aval.dtype))


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The 1-D discrete Fourier transform along `axis` (NumPy's `fft.fft`, `stablehlo.fft`).

    Args:
      a: the input (converted to complex: complex64, or complex128 for 64-bit inputs).
      n: the transform length; the input is zero-padded or truncated to it.
      axis: the axis to transform.
      norm: "backward" (default, no scaling), "ortho" (1/sqrt(n)) or "forward" (1/n).
    """
    return _transform_1d(a, n, axis, norm, "fft", "fft")


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The 1-D inverse discrete Fourier transform (NumPy's `fft.ifft`); see `fft`."""
    return _transform_1d(a, n, axis, norm, "ifft", "ifft")


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The 1-D transform of a real input: the `n // 2 + 1` non-negative frequencies
    (NumPy's `fft.rfft`); see `fft`."""
    return _transform_1d(a, n, axis, norm, "rfft", "rfft")


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of `rfft`: a real signal of length `n` (default `2 * (m - 1)` for `m` input
    frequencies) from its half-spectrum (NumPy's `fft.irfft`)."""
    return _transform_1d(a, n, axis, norm, "irfft", "irfft")


def fftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Any:
    """The N-D discrete Fourier transform over `axes` (default: all, or the last `len(s)`),
    with lengths `s` (NumPy's `fft.fftn`)."""
    return _transform(a, s, axes, norm, "fft", "fftn")


def ifftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Any:
    """The N-D inverse discrete Fourier transform (NumPy's `fft.ifftn`); see `fftn`."""
    return _transform(a, s, axes, norm, "ifft", "ifftn")


def rfftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Any:
    """The N-D transform of a real input, halved along the last axis (NumPy's `fft.rfftn`)."""
    return _transform(a, s, axes, norm, "rfft", "rfftn")


def irfftn(
    a: Any,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Any:
    """The inverse of `rfftn` (NumPy's `fft.irfftn`): `s[-1]` defaults to `2 * (m - 1)`."""
    return _transform(a, s, axes, norm, "irfft", "irfftn")


def fft2(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Any:
    """The 2-D discrete Fourier transform (NumPy's `fft.fft2`)."""
    return _transform(a, s, axes, norm, "fft", "fft2")


def ifft2(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Any:
    """The 2-D inverse discrete Fourier transform (NumPy's `fft.ifft2`)."""
    return _transform(a, s, axes, norm, "ifft", "ifft2")


def rfft2(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Any:
    """The 2-D transform of a real input (NumPy's `fft.rfft2`)."""
    return _transform(a, s, axes, norm, "rfft", "rfft2")


def irfft2(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Any:
    """The inverse of `rfft2` (NumPy's `fft.irfft2`)."""
    return _transform(a, s, axes, norm, "irfft", "irfft2")


_SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of a Hermitian-symmetric signal given by its first half: a real spectrum
    of length `n` (NumPy's `fft.hfft`; `irfft` of the conjugate, the other way round)."""
    a = asarray(a)  # the array first, as JAX
    _check_norm(norm)
    return _transform_1d(lax.conj(_complex(a)), n, axis, _SWAPPED_NORM[norm], "irfft", "hfft")


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of `hfft` for a real signal: the conjugated half-spectrum (NumPy's
    `fft.ihfft`)."""
    _one_axis(axis, "ihfft")  # the axis first, then the array, as JAX
    if a is None:
        raise TypeError("jnp.fft.ihfft: a must be an array, got None")
    a = asarray(a)
    _check_norm(norm)
    return lax.conj(_transform_1d(a, n, axis, _SWAPPED_NORM[norm], "rfft", "ihfft"))


def _complex(a: Any) -> Any:
    dtype = a.aval.dtype
    if dtype.kind == "c":
        return a
    return lax.convert_element_type(a, np.complex128 if dtype.itemsize >= 8 else np.complex64)


def _sample_count(n: Any, name: str) -> int:
    """n as an integer. NumPy refuses other values; JAX 0.10.2 takes the arange of a float."""
    try:
        return operator.index(n)
    except TypeError:
        raise TypeError(
            f"jnp.fft.{name}: n must be an integer, got {n!r}{mlir.where_suffix()}"
        ) from None


def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of `fft` for `n` samples spaced `d` apart: `[0, 1, ..., -1] / (d*n)`
    (NumPy's `fft.fftfreq`)."""
    n = _sample_count(n, "fftfreq")
    dtypes.check_user_dtype(dtype, "jnp.fft.fftfreq")  # before the samples are built, as JAX
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _frequencies(k, n, d, dtype, device, cast_back=True)


def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of `rfft`: `[0, 1, ..., n // 2] / (d*n)` (NumPy's
    `fft.rfftfreq`)."""
    n = _sample_count(n, "rfftfreq")
    dtypes.check_user_dtype(dtype, "jnp.fft.rfftfreq")  # before the samples are built, as JAX
    return _frequencies(np.arange(0, n // 2 + 1), n, d, dtype, device, cast_back=False)


def _frequencies(k: np.ndarray, n: int, d: Any, dtype: Any, device: Any, cast_back: bool) -> Any:
    """k / (d*n), computed in a floating type. With an integer or bool `dtype`, JAX's fftfreq
    casts the quotient back to it, and its rfftfreq returns the floating quotient of k and
    d*n both cast to `dtype` first; both are kept, so the same call gives the same numbers."""
    name = "fftfreq" if cast_back else "rfftfreq"
    if d is None:  # JAX's d * n: a TypeError
        raise TypeError(f"jnp.fft.{name}: d must be a number or an array, got None")
    if isinstance(d, (str, bytes)):  # JAX's d * n repeats it; its float conversion fails
        raise ValueError(f"jnp.fft.{name}: d must be a number or an array, got {d!r}")
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.inexact) and not cast_back:
        if dtype == np.bool_:
            raise TypeError("jnp.fft.rfftfreq: dtype must be numeric, got bool (as JAX's arange)")
        out = true_divide(asarray(k.astype(dtype)), asarray(d * n, dtype=dtype))
        return _place(out, device)
    work = dtypes.to_inexact_dtype(dtype)  # JAX's: float32 for uint16, so 1/(4e-5) rounds to 25000
    k = asarray(k.astype(work))
    if dtypes.is_python_scalar(d):
        scale = 1.0 / (d * n) if d * n != 0 else float("inf")  # 0 * inf is NaN, as JAX's 0 / 0
        out = lax.mul(k, lax.full((), scale, work))
    else:
        spacing = lax.convert_element_type(asarray(d), work)
        # NumPy's broadcasting: a d of shape (1, 1) gives a (1, n) result, as in JAX.
        out = true_divide(k, lax.mul(spacing, lax.full((), n, work)))
    return _place(lax.convert_element_type(out, dtype), device)


def _place(out: Any, device: Any) -> Any:
    if device is None:
        return out
    return device_put(out, device)


def _shift(x: Any, axes: int | Sequence[int] | None, inverse: bool, name: str) -> Any:
    x = asarray(x)
    ndim = x.aval.ndim
    if axes is None:
        axes = tuple(range(ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (axes,)
    for axis in sequence(axes, "axes", f"jnp.fft.{name}"):
        axis = axis_arg(axis, ndim, f"jnp.fft.{name}", convert=operator.index)
        size = x.aval.shape[axis]
        shift = size - size // 2 if inverse else size // 2
        if size <= 1 or shift == 0:
            continue
        # A roll right by `shift`: the last `shift` elements come first.
        x = lax.concatenate(
            [
                lax.slice_in_dim(x, size - shift, size, axis=axis),
                lax.slice_in_dim(x, 0, size - shift, axis=axis),
            ],
            axis,
        )
    return x


def fftshift(x: Any, axes: int | Sequence[int] | None = None) -> Any:
    """Moves the zero frequency to the center (NumPy's `fft.fftshift`: a roll by `n // 2`)."""
    return _shift(x, axes, False, "fftshift")


def ifftshift(x: Any, axes: int | Sequence[int] | None = None) -> Any:
    """The inverse of `fftshift` (a roll by `-(n // 2)`)."""
    return _shift(x, axes, True, "ifftshift")
