"""Reductions that ignore NaN: nansum, nanprod, nanmax, nanmin, nanargmax, nanargmin, nanmean,
nanvar, nanstd (nanmedian and the nan-quantiles live with the quantiles in `_statistics`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy import _reductions as red
from stablax._src.numpy._creation import asarray
from stablax._src.numpy._statistics import nanmedian, nanpercentile, nanquantile

_STATIC = red._STATIC


def _is_inexact(a: Any) -> bool:
    return dtypes.issubdtype(a.aval.dtype, np.inexact)


def _replace_nan(a: Any, value: Any) -> Any:
    a = asarray(a)
    if not _is_inexact(a):
        return a
    return lax.select(lax.ne(a, a), lax.full_like(a, value), a)


def _not_nan(a: Any, where: Any) -> Any:
    a = asarray(a)
    if not _is_inexact(a):
        return where
    keep = lax.eq(a, a)
    return keep if where is None else lax.bitwise_and(keep, red._mask(where, a.aval.shape, "nan"))


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
    red._check_out(out, "nansum")
    return _nansum(a, axis, dtype, keepdims, initial, where)


def _check_dtype_and_where(dtype: Any, where: Any, name: str, a: Any) -> None:
    # JAX's order: the dtype, then `a` as an array and where's dtype, before the axis.
    if dtype is not None:
        dtypes.check_user_dtype(dtype, name)
    red._check_where(where, name, a)


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
    red._check_out(out, "nanprod")
    return _nanprod(a, axis, dtype, keepdims, initial, where)


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
    red._check_where(where, "nanmax", a)
    red._check_out(out, "nanmax")
    return _nanmax(a, axis, keepdims, initial, where)


def nanmin(
    a: Any,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
    initial: Any = None,
    where: Any = None,
) -> Any:
    """Smallest non-NaN element over `axis` (NaN where all are NaN)."""
    red._check_where(where, "nanmin", a)
    red._check_out(out, "nanmin")
    return _nanmin(a, axis, keepdims, initial, where)


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
    red._check_out(out, "nanargmax")
    return _nanargmax(a, axis, bool(keepdims))


def nanargmin(
    a: Any, axis: int | None = None, out: Any = None, keepdims: bool | None = None
) -> Any:
    """Index of the smallest non-NaN element (-1 where all are NaN)."""
    red._check_out(out, "nanargmin")
    return _nanargmin(a, axis, bool(keepdims))


def nanmean(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    where: Any = None,
) -> Any:
    """Mean of the non-NaN elements over `axis` (NaN where there are none)."""
    red._check_where(where, "nanmean", a)
    red._check_out(out, "nanmean")
    return _nanmean_jit(a, axis, dtype, keepdims, where)


def _nanmean_body(a, axis=None, dtype=None, keepdims=False, where=None):
    return red._mean_impl(_replace_nan(a, 0), axis, dtype, keepdims, _not_nan(a, where))


def _nanvar_body(a, axis=None, dtype=None, ddof=0, keepdims=False, where=None, mean=None):
    if dtype is not None and not dtypes.issubdtype(dtypes.canonicalize_dtype(dtype), np.inexact):
        # JAX's nanvar casts to an integer dtype first, where no element is NaN any more.
        return red._var_impl(a, axis, dtype, ddof, keepdims, where, mean, nanvar=True)
    a, where = _replace_nan(a, 0), _not_nan(a, where)
    return red._var_impl(a, axis, dtype, ddof, keepdims, where, mean)


def _nanstd_body(a, axis=None, dtype=None, ddof=0, keepdims=False, where=None, mean=None):
    return lax.sqrt(_nanvar_body(a, axis, dtype, ddof, keepdims, where, mean))


_nanmean_jit = _eager(_nanmean_body, static_argnames=_STATIC)
_nanvar = _eager(_nanvar_body, static_argnames=_STATIC)
_nanstd = _eager(_nanstd_body, static_argnames=_STATIC)


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
    red._check_where(where, "nanvar", a)
    red._check_out(out, "nanvar")
    ddof = red._static_ddof(ddof, "nanvar")
    return _nanvar(a, axis, dtype, ddof, keepdims, where, mean)


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
    red._check_where(where, "nanstd", a)
    red._check_out(out, "nanstd")
    ddof = red._static_ddof(ddof, "nanstd")
    if dtype is not None and not dtypes.issubdtype(
        dtypes.check_user_dtype(dtype, "nanstd"), np.inexact
    ):
        raise TypeError(  # JAX's class (its sqrt of an integer variance)
            f"jnp.nanstd: dtype must be inexact, got {np.dtype(dtype).name}{mlir.where_suffix()}"
        )
    return _nanstd(a, axis, dtype, ddof, keepdims, where, mean)


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
