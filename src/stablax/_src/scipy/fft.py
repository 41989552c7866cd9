"""scipy.fft discrete cosine transforms: dct, dctn, idct, idctn (type 2, as in JAX), computed
through one complex FFT of the even/odd-interleaved signal (Makhoul 1980).
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.jit import jit
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.scipy.linalg._decompositions import promote_dtypes_complex


def _twiddle(n: int, k: Any) -> Any:
    # exp(-i pi k / (2 n)), in k's complex dtype.
    n_arr, k = promote_dtypes_complex(n, k)
    return jnp.exp(-0.5j * np.pi * k / n_arr)


def _interleave(x: Any, axis: int) -> Any:
    # x[0], x[2], x[4], ..., then the odd entries reversed.
    evens = lax.slice_in_dim(x, None, None, 2, axis)
    odds = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([evens, odds], axis)


def _deinterleave(x: Any, axis: int) -> Any:
    half = math.ceil(x.shape[axis] / 2)
    whole = slice(None)

    def along(s):
        return tuple(s if i == axis else whole for i in range(x.ndim))

    evens, odds = x[along(slice(None, half))], lax.rev(x[along(slice(half, None))], (axis,))
    out = jnp.zeros(x.shape, dtype=x.dtype)
    return out.at[along(slice(None, None, 2))].set(evens).at[along(slice(1, None, 2))].set(odds)


def _ortho_scale(out: Any, axis: int) -> Any:
    # Divides by sqrt(4 n) the first entry and by sqrt(2 n) the others along `axis`.
    n = out.shape[axis]
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((n - 1,), 2, out.dtype)], 0)
    factor = lax.expand_dims(factor, [a for a in range(out.ndim) if a != axis])
    return out / lax.sqrt(factor * n)


def _along(values: Any, ndim: int, axis: int) -> Any:
    return lax.expand_dims(values, [a for a in range(ndim) if a != axis])


def _check(name: str, type: int, norm: str | None) -> None:  # noqa: A002 (SciPy's name)
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: {norm=} is not implemented")


def _by_parts(transform: Any, x: Any, **params: Any) -> Any:
    # A complex input is transformed as its real and imaginary parts, each on its own.
    return lax.complex(transform(x.real, **params), transform(x.imag, **params))


def _is_complex(x: Any) -> bool:
    return dtypes.issubdtype(x.dtype, np.complexfloating)


def _pad_to(x: Any, sizes: dict[int, int]) -> Any:
    pads = [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)]
    return lax.pad(x, jnp.array(0, x.dtype), pads)


@functools.partial(jit, static_argnames=("type", "n", "axis", "norm"))
def dct(
    x: Any,
    type: int = 2,  # noqa: A002 (SciPy's name)
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
) -> Any:
    """The discrete cosine transform of type 2 along `axis` (scipy.fft.dct).

    Args:
      x: the input; complex input transforms its real and imaginary parts.
      type: only 2.
      n: zero-pad (or truncate) the axis to this length first.
      norm: None/"backward" (unscaled) or "ortho" (orthonormal).
    """
    x = jnp.asarray(x)
    _check("dct", type, norm)
    if _is_complex(x):
        return _by_parts(dct, x, type=type, n=n, norm=norm, axis=axis)
    axis = axis % x.ndim
    if n is not None:
        x = _pad_to(x, {axis: n})
    size = x.shape[axis]
    spectrum = jnp.fft.fft(_interleave(x, axis), axis=axis)
    k = _along(jnp.arange(size, dtype=spectrum.real.dtype), x.ndim, axis)
    out = 2 * (spectrum * _twiddle(size, k)).real
    return _ortho_scale(out, axis) if norm == "ortho" else out


def _dct_2d(x, axes, norm):
    axis1, axis2 = (a % x.ndim for a in axes)
    n1, n2 = x.shape[axis1], x.shape[axis2]
    spectrum = jnp.fft.fftn(_interleave(_interleave(x, axis1), axis2), axes=axes)
    k1 = _along(jnp.arange(n1, dtype=spectrum.dtype), x.ndim, axis1)
    k2 = _along(jnp.arange(n2, dtype=spectrum.dtype), x.ndim, axis2)
    mirrored = jnp.roll(jnp.flip(spectrum, axis=axis2), shift=1, axis=axis2)
    out = _twiddle(n1, k1) * (_twiddle(n2, k2) * spectrum + _twiddle(n2, -k2) * mirrored)
    out = 2 * out.real
    if norm == "ortho":
        return _ortho_scale(_ortho_scale(out, axis1), axis2)
    return out


def _axes_and_sizes(x, s, axes):
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = tuple(a % x.ndim for a in axes)
    return axes, s


def _hashable(seq: Any) -> Any:
    return tuple(seq) if isinstance(seq, (list, np.ndarray)) else seq


def dctn(
    x: Any,
    type: int = 2,  # noqa: A002 (SciPy's name)
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Any:
    """The multidimensional type-2 DCT over `axes` (scipy.fft.dctn); `s` pads the axes."""
    return _dct_nd(x, type, _hashable(s), _hashable(axes), norm, inverse=False)


def idctn(
    x: Any,
    type: int = 2,  # noqa: A002 (SciPy's name)
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Any:
    """The multidimensional inverse type-2 DCT over `axes` (scipy.fft.idctn)."""
    return _dct_nd(x, type, _hashable(s), _hashable(axes), norm, inverse=True)


def _dct_axes(x: Any, axes: tuple[int, ...], norm: str | None) -> Any:
    # Two axes at a time, each pair through one 2-D FFT.
    if len(axes) == 2:
        return _dct_2d(x, axes, norm)
    for pair in [axes[i : i + 2] for i in range(0, len(axes), 2)]:
        x = dctn(x, axes=pair, norm=norm)
    return x


def _idct_axes(x: Any, axes: tuple[int, ...], norm: str | None) -> Any:
    for axis in axes:
        x = idct(x, axis=axis, norm=norm)
    return x


@functools.partial(jit, static_argnames=("type", "s", "axes", "norm", "inverse"))
def _dct_nd(
    x: Any,
    type: int,  # noqa: A002 (SciPy's name)
    s: Sequence[int] | None,
    axes: Sequence[int] | None,
    norm: str | None,
    inverse: bool,
) -> Any:
    # dctn (idctn when `inverse`), traced once per static configuration.
    x = jnp.asarray(x)
    _check("idctn" if inverse else "dctn", type, norm)
    if _is_complex(x):
        return _by_parts(_dct_nd, x, type=type, s=s, axes=axes, norm=norm, inverse=inverse)
    axes, s = _axes_and_sizes(x, s, axes)
    transform_1d, transform_axes = (idct, _idct_axes) if inverse else (dct, _dct_axes)
    if len(axes) == 1:
        return transform_1d(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    if s is not None:
        x = _pad_to(x, dict(zip(axes, s, strict=False)))
    return transform_axes(x, axes, norm)


@functools.partial(jit, static_argnames=("type", "n", "axis", "norm"))
def idct(
    x: Any,
    type: int = 2,  # noqa: A002 (SciPy's name)
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
) -> Any:
    """The inverse of the type-2 DCT (a type-3 DCT, scaled) along `axis` (scipy.fft.idct)."""
    x = jnp.asarray(x)
    _check("idct", type, norm)
    if _is_complex(x):
        return _by_parts(idct, x, type=type, n=n, norm=norm, axis=axis)
    axis = axis % x.ndim
    if n is not None:
        x = _pad_to(x, {axis: n})
    size = x.shape[axis]
    (x,) = promote_dtypes_inexact(x)
    if norm is None or norm == "backward":
        x = _ortho_scale(x, axis)
    x = _ortho_scale(x, axis)
    k = _along(jnp.arange(size, dtype=x.dtype), x.ndim, axis)
    w = _twiddle(size, k)
    x = x.astype(w.dtype) / _twiddle(size, k) * 2 * size
    return _deinterleave(jnp.fft.ifft(x, axis=axis).real, axis)
