"""Grids and sequences built from iotas: logspace, geomspace, meshgrid, indices, fromfunction."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.core import Tracer
from stablax._src.lax._argcheck import check_callable, int_or_int_sequence, int_sequence
from stablax._src.numpy import _ufuncs
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import linspace
from stablax._src.numpy._promotion import broadcast_to_shape, check_arraylike
from stablax._src.numpy._shape import moveaxis, reshape
from stablax._src.transforms.vmap_api import vmap


def _out_dtype(dtype: Any, name: str) -> np.dtype | None:
    if dtype is None:
        return None
    return dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, name))


def _log_dtypes(start: Any, stop: Any, dtype: Any, name: str) -> tuple[np.dtype, np.dtype]:
    """(result dtype, computation dtype) of logspace/geomspace, JAX's rule: the inexact type of
    start and stop together, unless `dtype` is given."""
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    dtype = _out_dtype(dtype, name)
    return dtype, dtypes.to_inexact_dtype(dtype)


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: Any = 10.0,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """`base ** linspace(start, stop, num)` (`np.logspace`)."""
    start, stop = asarray(start), asarray(stop)
    dtype, compute = _log_dtypes(start, stop, dtype, "jnp.logspace")
    exponents = linspace(start, stop, num, endpoint=endpoint, dtype=compute, axis=axis)
    check_arraylike("jnp.logspace", base)  # after linspace's checks (of num, say), as JAX
    base = asarray(base, compute)
    if base.aval.ndim:
        base = moveaxis(reshape(base, base.aval.shape + (1,)), -1, axis)
    out = division.power(base, exponents)
    return _cast(out, dtype)


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> Any:
    """Numbers spaced evenly on a log scale from `start` to `stop` (`np.geomspace`).

    Negative and complex endpoints follow NumPy: the spacing is along the shortest log path.
    """
    start, stop = asarray(start), asarray(stop)
    dtype, compute = _log_dtypes(start, stop, dtype, "jnp.geomspace")
    start_a, stop_a = asarray(start, compute), asarray(stop, compute)
    concrete = not any(isinstance(v, Tracer) for v in (start_a, stop_a))
    if concrete and (np.any(np.asarray(start_a) == 0) or np.any(np.asarray(stop_a) == 0)):
        raise ValueError("jnp.geomspace: geometric sequence cannot include zero")  # as NumPy
    if dtypes.issubdtype(compute, np.complexfloating):
        log_start, log_stop = _ufuncs.log10(start_a), _ufuncs.log10(stop_a)
        out = logspace(log_start, log_stop, num, endpoint, 10.0, compute, axis=0)
    else:
        # Both negative: mirror a positive sequence (NumPy's rule); mixed signs give NaN.
        sign = _ufuncs.where(_ufuncs.less(start_a, 0), -1.0, 1.0).astype(compute)
        log_start = _ufuncs.log10(_ufuncs.multiply(start_a, sign))
        log_stop = _ufuncs.log10(_ufuncs.multiply(stop_a, sign))
        out = _ufuncs.multiply(logspace(log_start, log_stop, num, endpoint, 10.0, compute), sign)
    if num > 0:  # exact endpoints, as NumPy
        out = _set_index(out, 0, start_a)
        if endpoint and num > 1:
            out = _set_index(out, num - 1, stop_a)
    if not concrete:  # a traced zero endpoint cannot raise: the whole sequence is NaN
        through_zero = _ufuncs.logical_or(_ufuncs.equal(start_a, 0), _ufuncs.equal(stop_a, 0))
        nan = complex(np.nan, np.nan) if dtypes.issubdtype(compute, np.complexfloating) else np.nan
        out = _ufuncs.where(through_zero, nan, out)
    if axis:
        out = moveaxis(out, 0, axis)
    return _cast(out, dtype)


def _set_index(x: Any, i: int, value: Any) -> Any:
    rows = lax.broadcasted_iota(np.int32, x.aval.shape, 0)
    # One endpoint may be a scalar and the other an array: the row is their broadcast shape.
    value = broadcast_to_shape(asarray(value, x.aval.dtype), x.aval.shape[1:])
    value = lax.broadcast_in_dim(value, x.aval.shape, tuple(range(1, x.aval.ndim)))
    return lax.select(lax.eq(rows, lax.full(x.aval.shape, i, np.int32)), value, x)


def _cast(x: Any, dtype: np.dtype) -> Any:
    # NumPy truncates toward -inf when it casts float sequences to integers.
    if dtypes.issubdtype(dtype, np.integer) and dtypes.issubdtype(x.aval.dtype, np.floating):
        x = _ufuncs.floor(x)
    return lax.convert_element_type(x, dtype)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """Coordinate arrays from 1-D coordinate vectors (`np.meshgrid`, 'xy' or 'ij' indexing)."""
    arrays = [asarray(x) for x in xi]  # the arguments first, in JAX's order
    if not copy:  # JAX's check: the results are always new arrays
        raise ValueError(f"jnp.meshgrid: only copy=True is supported{mlir.where_suffix()}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"jnp.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for a in arrays:
        if a.aval.ndim != 1:
            raise ValueError(
                f"jnp.meshgrid: arguments must be 1-D, got arguments with shapes "
                f"{[x.aval.shape for x in arrays]}"
            )
    shape = [a.aval.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        dim = i
        if indexing == "xy" and len(arrays) >= 2 and i < 2:
            dim = 1 - i
        if sparse:
            sparse_shape = [1] * len(arrays)
            sparse_shape[dim] = a.aval.shape[0]
            out.append(lax.reshape(a, sparse_shape))
        else:
            out.append(lax.broadcast_in_dim(a, shape, (dim,)))
    return out


def indices(dimensions: Any, dtype: Any = None, sparse: bool = False) -> Any:
    """Index grids of an array of shape `dimensions` (int32 by default) (`np.indices`)."""
    dims = int_sequence(dimensions, "dimensions", "jnp.indices")
    dtype = dtypes.default_int_dtype() if dtype is None else _out_dtype(dtype, "jnp.indices")
    grids = []
    for i, n in enumerate(dims):
        if sparse:
            shape = [1] * len(dims)
            shape[i] = n
            grids.append(lax.reshape(lax.iota(dtype, n), shape))
        else:
            grids.append(lax.broadcasted_iota(dtype, dims, i))
    if sparse:
        return tuple(grids)
    if not grids:
        return lax.full((0,), 0, dtype)
    return lax.concatenate([lax.reshape(g, (1, *dims)) for g in grids], 0)


def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: Any = float, **kwargs):
    """Builds an array by calling `function` on each index tuple of `shape` (`np.fromfunction`).

    As in JAX, `function` is vectorised with `vmap`, so it sees scalar indices of `dtype`.
    """
    check_callable("jnp.fromfunction", function, "function")
    shape = int_or_int_sequence(shape, "shape", "jnp.fromfunction")
    if any(n < 0 for n in shape):  # JAX's arange gives no indices; NumPy refuses them too
        raise TypeError(
            f"jnp.fromfunction: shape must have every element be nonnegative, got {shape}"
            f"{mlir.where_suffix()}"
        )
    # dtype=None is arange's default for integer sizes, as in JAX: the default integer type.
    dtype = dtypes.default_int_dtype() if dtype is None else dtype
    dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "jnp.fromfunction"))
    mapped = functools.partial(function, **kwargs)
    for i in reversed(range(len(shape))):
        mapped = vmap(mapped, in_axes=tuple(0 if k == i else None for k in range(len(shape))))
    return mapped(*(lax.iota(dtype, n) for n in shape))
