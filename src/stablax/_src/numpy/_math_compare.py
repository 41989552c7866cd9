"""Tolerant and whole-array comparisons: isclose, allclose, array_equal, array_equiv."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import promote_args, promote_args_inexact
from stablax._src.numpy._ufuncs import isfinite


def _strong_bool(x: Any) -> Any:
    return lax.convert_element_type(x, np.bool_) if x.aval.weak_type else x


def _isclose_impl(a, b, rtol, atol, equal_nan):
    a, b = promote_args("isclose", a, b)
    if not dtypes.issubdtype(a.aval.dtype, np.inexact):
        a, b = promote_args_inexact("isclose", a, b)
    dt = a.aval.dtype
    real_dt = np.dtype(dt.type(0).real.dtype)
    rtol = lax.convert_element_type(asarray(rtol), real_dt)
    atol = lax.convert_element_type(asarray(atol), real_dt)
    bound = lax.add(atol, lax.mul(rtol, lax.abs(b)))
    close = lax.le(lax.abs(lax.sub(a, b)), bound)
    # As NumPy and JAX: equal elements are close whatever the tolerances (a negative atol
    # included), and an infinite b is close only to itself.
    out = lax.bitwise_or(lax.eq(a, b), lax.bitwise_and(isfinite(b), close))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(lax.ne(a, a), lax.ne(b, b)))
    return _strong_bool(out)


_isclose = _eager(_isclose_impl, static_argnames="equal_nan")


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Elementwise a == b or |a - b| <= atol + rtol * |b| (for a finite b)."""
    return _isclose(a, b, rtol, atol, bool(equal_nan))


def _allclose_impl(a, b, rtol, atol, equal_nan):
    close = _isclose_impl(a, b, rtol, atol, equal_nan)
    return lax.reduce_and(close, tuple(range(close.aval.ndim)))


_allclose = _eager(_allclose_impl, static_argnames="equal_nan")


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Whether every pair of elements is close (see `isclose`)."""
    return _allclose(a, b, rtol, atol, bool(equal_nan))


def _all_equal_impl(a1, a2, equal_nan):
    a1, a2 = promote_args("array_equal", a1, a2)
    same = lax.eq(a1, a2)
    if equal_nan and dtypes.issubdtype(a1.aval.dtype, np.inexact):
        same = lax.bitwise_or(same, lax.bitwise_and(lax.ne(a1, a1), lax.ne(a2, a2)))
    return _strong_bool(lax.reduce_and(same, tuple(range(same.aval.ndim))))


_all_equal = _eager(_all_equal_impl, static_argnames="equal_nan")


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """True if the arrays have the same shape and elements (NaNs equal if `equal_nan`)."""
    if a1 is None or a2 is None:  # JAX's class (its jnp.asarray refuses None so)
        raise ValueError(
            f"jnp.array_equal: None is not a valid value for jnp.array{mlir.where_suffix()}"
        )
    a1, a2 = asarray(a1), asarray(a2)
    if a1.aval.shape != a2.aval.shape:
        return asarray(False)
    return _all_equal(a1, a2, bool(equal_nan))


def array_equiv(a1: Any, a2: Any) -> Any:
    """True if the arrays broadcast to one shape and are equal elementwise there."""
    a1, a2 = asarray(a1), asarray(a2)
    try:
        np.broadcast_shapes(a1.aval.shape, a2.aval.shape)
    except ValueError:
        return asarray(False)
    try:
        return _all_equal(a1, a2, False)
    except ValueError:  # no promotion path between the dtypes (TypePromotionError): unequal
        return asarray(False)


__all__ = ["isclose", "allclose", "array_equal", "array_equiv"]
