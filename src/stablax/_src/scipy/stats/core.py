"""Sample statistics of scipy.stats: mode, rankdata and sem."""

from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes
from stablax._src.arraylike import check_arraylike
from stablax._src.jit import jit
from stablax._src.lax._control_flow_cond import cond
from stablax._src.lax._sort import sort_key_val
from stablax._src.scipy.args import inexact_args
from stablax._src.transforms.vmap_api import vmap


class ModeResult(NamedTuple):
    """The result of `mode`: the most common value and how often it occurs."""

    mode: Any
    count: Any


def _check_nan_policy(name: str, nan_policy: str) -> None:
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(
            f"Illegal nan_policy value {nan_policy!r}; expected one of "
            "{'propagate', 'omit', 'raise'}"
        )
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
            "Please check if nans exist in `x` outside of the `{name}` function."
        )


def _column_mode(column):
    # Sort, label runs of equal values (NaNs count as equal, as jnp.unique), count each run;
    # the first maximal run is the smallest most common value.
    n = column.shape[0]
    ordered = jnp.sort(column)
    same = (ordered[1:] == ordered[:-1]) | (jnp.isnan(ordered[1:]) & jnp.isnan(ordered[:-1]))
    starts = jnp.concatenate([jnp.ones((1,), dtype=bool), ~same])
    run = jnp.cumsum(starts) - 1
    counts = jnp.zeros((n,), np.int32).at[run].add(1)
    best = jnp.argmax(counts)
    value = ordered[jnp.argmax(run == best)]
    return value, counts[best]


@jit
def _mode(x):
    return vmap(_column_mode, in_axes=1)(x)


def mode(a: Any, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False):
    """The most common value along an axis, and its count (the smallest one on ties).

    Args:
      a: input array.
      axis: the axis to reduce (None: the flattened array).
      nan_policy: only "propagate" is supported (NaNs count as one value).
      keepdims: keep the reduced axis with size 1.

    Returns:
      `ModeResult(mode, count)`, as `scipy.stats.mode`.
    """
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_nan_policy("mode", nan_policy)
    if axis is not None:
        axis = operator.index(axis)
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"mode: axis {axis} is out of bounds for array of dimension {x.ndim}")
        axis %= x.ndim
    shape = x.shape
    if axis is None:
        out_shape = (1,) * len(shape) if keepdims else ()
        x = jnp.ravel(x)
        axis = 0
    else:
        out_shape = tuple(
            1 if i == axis else s for i, s in enumerate(shape) if keepdims or i != axis
        )
    x = jnp.moveaxis(x, axis, 0)
    x = jnp.reshape(x, (x.shape[0], math.prod(x.shape[1:])))
    if x.shape[0] == 0:
        float_dtype = dtypes.default_float_dtype()
        return ModeResult(
            jnp.full(out_shape, np.nan, float_dtype), jnp.zeros(out_shape, float_dtype)
        )
    values, counts = _mode(x)
    return ModeResult(jnp.reshape(values, out_shape), jnp.reshape(counts, out_shape))


def _rankdata_1d(a, method):
    out_dtype = dtypes.default_float_dtype()
    n = a.shape[0]
    ordered, sorter = sort_key_val(a, jnp.arange(n))
    inverse = jnp.zeros_like(sorter).at[sorter].set(jnp.arange(n, dtype=sorter.dtype))
    if method == "ordinal":
        return (inverse + 1).astype(out_dtype)
    starts = jnp.concatenate([jnp.ones((1,), dtype=bool), ordered[1:] != ordered[:-1]])
    dense = jnp.cumsum(starts)[inverse]
    if method == "dense":
        return dense.astype(out_dtype)
    # boundaries[j] is where the j-th run of ties starts (n past the last one).
    boundaries = jnp.nonzero(starts, size=n + 1, fill_value=n)[0].astype(out_dtype)
    if method == "max":
        return boundaries[dense]
    if method == "min":
        return boundaries[dense - 1] + 1
    return 0.5 * (boundaries[dense] + boundaries[dense - 1] + 1)


def _rankdata(a, method):
    out_dtype = dtypes.default_float_dtype()
    return cond(
        jnp.any(jnp.isnan(a)),
        lambda v: jnp.full(v.shape, np.nan, out_dtype),
        lambda v: _rankdata_1d(v, method),
        a,
    )


_rankdata_jit = jit(_rankdata, static_argnums=(1,))


def rankdata(
    a: Any, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"
):
    """Ranks of the data, 1-based, with ties resolved by `method`.

    Args:
      a: input array.
      method: "average", "min", "max", "dense" or "ordinal".
      axis: rank along this axis (None: the flattened array).
      nan_policy: only "propagate" is supported (any NaN makes every rank NaN).

    Returns:
      Float ranks, as `scipy.stats.rankdata`.
    """
    check_arraylike("rankdata", a)
    _check_nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(lambda v: _rankdata(v, method), axis, jnp.asarray(a))
    return _rankdata_jit(jnp.ravel(jnp.asarray(a)), method)


def sem(
    a: Any,
    axis: int | None = 0,
    ddof: int = 1,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Any:
    """The standard error of the mean, `std(a, ddof) / sqrt(n)`.

    Args:
      a: input array.
      axis: the axis (None: the flattened array).
      ddof: delta degrees of freedom of the standard deviation.
      nan_policy: "propagate", or "omit" to ignore NaNs.
      keepdims: keep the reduced axis with size 1.

    Returns:
      The standard error, as `scipy.stats.sem`.
    """
    (b,) = inexact_args("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return jnp.std(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = jnp.sum(~jnp.isnan(b), axis, keepdims=keepdims)
        spread = jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
        return spread / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
