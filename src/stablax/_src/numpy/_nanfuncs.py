"""Reductions that ignore NaN: nansum, nanprod, nanmax, nanmin, nanargmax, nanargmin, nanmean,
nanvar, nanstd (the last three written once with mean, var and std in `_reductions`; nanmedian
and the nan-quantiles live with the quantiles in `_statistics`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src.jit import jit as _eager
from stablax._src.numpy import _reductions as red
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._reductions_common import (
    _STATIC,
    _check_out,
    _check_where,
    _is_inexact,
    _replace_nan,
    static_axis,
)
from stablax._src.numpy._statistics import nanmedian, nanpercentile, nanquantile


def nansum(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
) -> Any:
    """Sum treating NaN as zero."""
    _check_dtype_and_where(dtype, where, "nansum", a)
    _check_out(out, "nansum")
    return _nansum(a, static_axis(axis), dtype, keepdims, initial, where)


def _check_dtype_and_where(dtype: Any, where: Any, name: str, a: Any) -> None:
    # JAX's order: the dtype, then `a` as an array and where's dtype, before the axis.
    if dtype is not None:
        dtypes.check_user_dtype(dtype, name)
    _check_where(where, name, a)


def _nan_filled(name: str, reduce_fn, fill: int):
    def fn(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        return reduce_fn(_replace_nan(a, fill), axis, dtype, keepdims, initial, where, True)

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_nansum = _nan_filled("nansum", red._sum, 0)
_nanprod = _nan_filled("nanprod", red._prod, 1)


def nanprod(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
) -> Any:
    """Product treating NaN as one."""
    _check_dtype_and_where(dtype, where, "nanprod", a)
    _check_out(out, "nanprod")
    return _nanprod(a, static_axis(axis), dtype, keepdims, initial, where)


def _nan_extremum(name: str, reduce_fn, sign: int):
    def fn(a, axis=None, keepdims=False, initial=None, where=None):
        a = asarray(a)
        if not _is_inexact(a):
            return reduce_fn(a, axis, keepdims, initial, where)
        out = reduce_fn(_replace_nan(a, sign * np.inf), axis, keepdims, initial, where)
        all_nan = red._all(lax.ne(a, a), axis, keepdims, where)
        if initial is None:
            return lax.select(all_nan, lax.full_like(out, np.nan), out)
        return out

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_nanmax = _nan_extremum("nanmax", red._max, -1)
_nanmin = _nan_extremum("nanmin", red._min, 1)


def nanmax(
    a: Any,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
) -> Any:
    """Largest non-NaN element over `axis` (NaN where all are NaN)."""
    _check_where(where, "nanmax", a)
    _check_out(out, "nanmax")
    return _nanmax(a, static_axis(axis), keepdims, initial, where)


def nanmin(
    a: Any,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
) -> Any:
    """Smallest non-NaN element over `axis` (NaN where all are NaN)."""
    _check_where(where, "nanmin", a)
    _check_out(out, "nanmin")
    return _nanmin(a, static_axis(axis), keepdims, initial, where)


def _nan_arg_extremum(name: str, arg_fn, sign: int):
    def fn(a, axis=None, keepdims=False):
        a = asarray(a)
        if not _is_inexact(a):
            return arg_fn(a, axis, keepdims)
        if a.aval.dtype.kind == "c" and a.aval.size == 0:
            # JAX compares no complex elements here: an empty result is an empty index array
            # (an empty axis still raises ValueError); non-empty complex input is a TypeError.
            return arg_fn(lax.real(a), axis, keepdims)
        index = arg_fn(_replace_nan(a, sign * np.inf), axis, keepdims)
        all_nan = red._all(lax.ne(a, a), axis, keepdims)
        return lax.select(all_nan, lax.full_like(index, -1), index)

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_nanargmax = _nan_arg_extremum("nanargmax", red._argmax, -1)
_nanargmin = _nan_arg_extremum("nanargmin", red._argmin, 1)


def nanargmax(
    a: Any, axis: int | None = None, out: Any = None, keepdims: bool | None = None
) -> Any:
    """Index of the largest non-NaN element (-1 where all are NaN)."""
    _check_out(out, "nanargmax")
    return _nanargmax(a, static_axis(axis), bool(keepdims))


def nanargmin(
    a: Any, axis: int | None = None, out: Any = None, keepdims: bool | None = None
) -> Any:
    """Index of the smallest non-NaN element (-1 where all are NaN)."""
    _check_out(out, "nanargmin")
    return _nanargmin(a, static_axis(axis), bool(keepdims))


def nanmean(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    where: Any = None,
) -> Any:
    """Mean of the non-NaN elements over `axis` (NaN where there are none)."""
    return red.mean_of("nanmean", a, axis, dtype, out, keepdims, where)


def nanvar(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    where: Any = None,
    mean: Any = None,
) -> Any:
    """Variance of the non-NaN elements over `axis`."""
    return red.variance("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean)


def nanstd(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    where: Any = None,
    mean: Any = None,
) -> Any:
    """Standard deviation of the non-NaN elements over `axis`."""
    return red.variance("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean)


__all__ = [
    "nansum",
    "nanprod",
    "nanmax",
    "nanmin",
    "nanargmax",
    "nanargmin",
    "nanmean",
    "nanvar",
    "nanstd",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
]
