"""Reductions with NumPy's signatures: sum, prod, max, min, mean, var, std, any, all."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy._creation import asarray
from stablax._src.numpy._ufuncs import _to_bool

_STATIC = ("axis", "dtype", "keepdims", "ddof", "correction")


def _axes(axis: Any, ndim: int, name: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise ValueError(
                f"jnp.{name}: axis {a} is out of bounds for array of dimension "
                f"{ndim}{mlir.where_suffix()}"
            )
        out.append(a % ndim)
    return tuple(out)


def _keepdims_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _sum_dtype(dt: np.dtype) -> np.dtype:
    # JAX widens bool and small integers to the default integer width, as NumPy does.
    if dt == np.bool_:
        return dtypes.default_int_dtype()
    if dt.kind == "i" and dt.itemsize < dtypes.default_int_dtype().itemsize:
        return dtypes.default_int_dtype()
    if dt.kind == "u" and dt.itemsize < dtypes.default_int_dtype().itemsize:
        return np.dtype(f"uint{dtypes.default_int_dtype().itemsize * 8}")
    return dt


def _reduction(name, lax_reduce, widen=False, bool_result=False):
    def fn(a, axis=None, dtype=None, keepdims=False):
        a = asarray(a)
        axes = _axes(axis, a.aval.ndim, name)
        if bool_result:
            a = _to_bool(a)
        elif dtype is not None:
            a = lax.convert_element_type(a, dtypes.canonicalize_dtype(dtype))
        elif widen:
            target = _sum_dtype(a.aval.dtype)
            if target != a.aval.dtype:
                a = lax.convert_element_type(a, target)
        if name in ("max", "min") and builtins.any(a.aval.shape[i] == 0 for i in axes):
            raise ValueError(
                f"jnp.{name}: zero-size array to reduction operation {name} which has no identity"
            )
        out = lax_reduce(a, axes)
        if keepdims:
            out = lax.reshape(out, _keepdims_shape(a.aval.shape, axes))
        return out

    fn.__name__ = name
    fn.__doc__ = f"NumPy's `{name}` over `axis` (all axes by default)."
    return _eager(fn, static_argnames=_STATIC)


sum = _reduction("sum", lax.reduce_sum, widen=True)  # noqa: A001
prod = _reduction("prod", lax.reduce_prod, widen=True)
max = amax = _reduction("max", lax.reduce_max)  # noqa: A001
min = amin = _reduction("min", lax.reduce_min)  # noqa: A001
any = _reduction("any", lax.reduce_or, bool_result=True)  # noqa: A001
all = _reduction("all", lax.reduce_and, bool_result=True)  # noqa: A001


def _mean_impl(a, axis=None, dtype=None, keepdims=False):
    a = asarray(a)
    axes = _axes(axis, a.aval.ndim, "mean")
    if dtype is None:
        dtype = (
            a.aval.dtype
            if dtypes.issubdtype(a.aval.dtype, np.inexact)
            else dtypes.default_float_dtype()
        )
    dtype = dtypes.canonicalize_dtype(dtype)
    count = int(np.prod([a.aval.shape[i] for i in axes], dtype=np.int64))
    total = lax.reduce_sum(lax.convert_element_type(a, dtype), axes)
    out = lax.div(total, lax.full_like(total, count))
    if keepdims:
        out = lax.reshape(out, _keepdims_shape(a.aval.shape, axes))
    return out


mean = _eager(_mean_impl, static_argnames=_STATIC)


def _var_impl(a, axis=None, dtype=None, ddof=0, keepdims=False, correction=None):
    a = asarray(a)
    if correction is not None:
        ddof = correction
    axes = _axes(axis, a.aval.ndim, "var")
    compute = (
        a.aval.dtype
        if dtypes.issubdtype(a.aval.dtype, np.inexact)
        else dtypes.default_float_dtype()
    )
    a = lax.convert_element_type(a, compute)
    from stablax._src.numpy._ufuncs import subtract

    centered = subtract(a, _mean_impl(a, axes, keepdims=True))
    if compute.kind == "c":
        sq = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        sq = lax.mul(centered, centered)
    count = int(np.prod([a.aval.shape[i] for i in axes], dtype=np.int64))
    total = lax.reduce_sum(sq, axes)
    out = lax.div(total, lax.full_like(total, builtins.max(count - ddof, 0)))
    if dtype is not None:
        out = lax.convert_element_type(out, dtype)
    if keepdims:
        out = lax.reshape(out, _keepdims_shape(a.aval.shape, axes))
    return out


var = _eager(_var_impl, static_argnames=_STATIC)


def _std_impl(a, axis=None, dtype=None, ddof=0, keepdims=False, correction=None):
    return lax.sqrt(_var_impl(a, axis, dtype, ddof, keepdims, correction))


std = _eager(_std_impl, static_argnames=_STATIC)
