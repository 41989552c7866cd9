"""Window functions for spectral analysis: bartlett, blackman, hamming, hanning, kaiser."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._math_ufuncs import i0
from stablax._src.numpy._ufuncs import multiply
from stablax._src.numpy._ufuncs_division import true_divide


def _length(M: Any, name: str) -> int:  # noqa: N803
    try:
        return operator.index(M)
    except TypeError:
        pass
    try:
        return int(M)  # as JAX: a float length is truncated
    except (TypeError, ValueError):
        raise TypeError(f"jnp.{name}: M must be an integer, got {M!r}") from None


def _symmetric_positions(m: int) -> Any:
    """n = 1 - M, 3 - M, ..., M - 1 divided by M - 1: points in [-1, 1]."""
    dt = dtypes.default_float_dtype()
    n = lax.convert_element_type(lax.iota(np.int32, m), dt)
    return lax.div(lax.add(lax.mul(n, 2.0), float(1 - m)), float(m - 1))


def _short_window(m: int) -> Any:
    """The window of fewer than two points, which needs no formula: empty, or the one point 1."""
    return lax.full((max(m, 0),), 1, dtypes.default_float_dtype())


def _cosine_window(name: str, weights: tuple[float, ...]):
    def fn(M):  # noqa: N803 (NumPy's parameter name)
        m = _length(M, name)
        if m < 2:
            return _short_window(m)
        dt = dtypes.default_float_dtype()
        x = lax.mul(_symmetric_positions(m), math.pi)
        out = lax.full((m,), weights[0], dt)
        for k, weight in enumerate(weights[1:], start=1):
            out = lax.add(out, lax.mul(lax.cos(lax.mul(x, float(k))), weight))
        return out

    jitted = _eager(fn, static_argnums=0)

    def window(M):  # noqa: N803
        return jitted(_length(M, name))  # a concrete array length is a static int, as JAX

    window.__name__ = name
    window.__doc__ = f"The {name.capitalize()} window of M points (NumPy's `{name}`)."
    return window


blackman = _cosine_window("blackman", (0.42, 0.5, 0.08))
hamming = _cosine_window("hamming", (0.54, 0.46))
hanning = _cosine_window("hanning", (0.5, 0.5))


def _bartlett_impl(M):  # noqa: N803
    m = _length(M, "bartlett")
    if m < 2:
        return _short_window(m)
    ones = lax.full((m,), 1, dtypes.default_float_dtype())
    return lax.sub(ones, lax.abs(_symmetric_positions(m)))


_bartlett = _eager(_bartlett_impl, static_argnums=0)


def bartlett(M: int) -> Any:  # noqa: N803
    """The Bartlett (triangular) window of M points (NumPy's `bartlett`)."""
    return _bartlett(_length(M, "bartlett"))


def _kaiser_impl(M, beta):  # noqa: N803
    m = _length(M, "kaiser")
    if m < 2:
        return _short_window(m)
    dt = dtypes.default_float_dtype()
    beta = asarray(beta)
    if dtypes.issubdtype(beta.aval.dtype, np.complexfloating):  # JAX's i0 refuses it
        raise ValueError(
            f"jnp.kaiser: beta must be real, got {beta.aval.dtype.name}{mlir.where_suffix()}"
        )
    beta = lax.convert_element_type(beta, dt)
    x = _symmetric_positions(m)
    inside = lax.sqrt(lax.max(lax.sub(1.0, lax.mul(x, x)), lax.full_like(x, 0)))
    # NumPy's broadcasting: a beta of shape (1, 1) gives a (1, M) window, as in JAX.
    return true_divide(i0(multiply(beta, inside)), i0(beta))


_kaiser = _eager(_kaiser_impl, static_argnums=0)


def kaiser(M: int, beta: Any) -> Any:  # noqa: N803
    """The Kaiser window of M points with shape parameter `beta` (NumPy's `kaiser`)."""
    m = _length(M, "kaiser")
    return _kaiser(m, beta if m > 1 else 0.0)  # a window of 0 or 1 points never reads beta


__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]
