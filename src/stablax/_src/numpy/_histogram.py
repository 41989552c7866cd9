"""Counting into bins with NumPy's signatures: bincount, digitize, histogram, histogram2d,
histogramdd, histogram_bin_edges.

Bin indices come from `searchsorted`, counts from one `scatter_add`. Only `bincount` has a
value-dependent output size: concrete outside jit, `length=` under it, as in JAX.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.lax._argcheck import int_arg
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import linspace
from stablax._src.numpy._promotion import promote_dtypes, promote_dtypes_inexact
from stablax._src.numpy._sorting import (
    concrete_value,
    index_dtype,
    searchsorted,
    size_hint,
    sort_less,
)


def _scatter_add_1d(length: int, indices: Any, updates: Any) -> Any:
    """zeros(length).at[indices].add(updates), dropping indices outside [0, length)."""
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    zeros = lax.full((length,), 0, updates.aval.dtype)
    expanded = lax.expand_dims(indices, (indices.aval.ndim,))
    return lax.scatter_add(zeros, expanded, updates, dnums, mode="drop")


def bincount(
    x: Any,
    weights: Any = None,
    minlength: int = 0,
    *,
    length: int | None = None,
    out_sharding: Any = None,
) -> Any:
    """How often each non-negative integer occurs in `x` (NumPy's `bincount`).

    Args:
      x: a 1-D array of integers (or booleans); negative values count as 0, as in JAX.
      weights: optional weights of `x`'s shape, summed instead of counting 1.
      minlength: the smallest output length.
      length: the static output length (required under jit); values at or past it are dropped.

    Returns:
      An array of `length` (default `max(max(x) + 1, minlength)`) sums: integer counts, or of
      the weights' dtype.
    """
    del out_sharding  # single-device arrays only
    x = asarray(x)
    if x.aval.dtype != np.bool_ and not dtypes.issubdtype(x.aval.dtype, np.integer):  # int4 too
        raise TypeError(
            f"x argument to bincount must have an integer type; got {x.aval.dtype.name}"
            f"{mlir.where_suffix()}"
        )
    if x.aval.ndim != 1:
        raise ValueError(f"only 1-dimensional input supported for bincount, got {x.aval.ndim}-d")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"minlength must be non-negative, got {minlength}")
    if length is None:
        values = concrete_value(x, "jnp.bincount", size_hint("jnp.bincount", "length"))
        # (no `initial=-1`: it does not fit unsigned dtypes)
        length = builtins.max(minlength, int(values.max()) + 1 if values.size else 0)
    length = operator.index(length)
    if weights is None:
        updates = lax.full(x.aval.shape, 1, index_dtype())
    else:
        (updates,) = promote_dtypes(asarray(weights))
        if updates.aval.shape != x.aval.shape:  # before the dtype, as in JAX
            raise ValueError(
                f"jnp.bincount: weights of shape {updates.aval.shape} must match x of shape "
                f"{x.aval.shape}{mlir.where_suffix()}"
            )
        if updates.aval.dtype == np.bool_:  # summing booleans has no meaning (JAX raises too)
            raise TypeError(f"jnp.bincount: weights must be numbers, got bool{mlir.where_suffix()}")
    index = lax.convert_element_type(x, index_dtype())
    index = lax.max(index, lax.full(x.aval.shape, 0, index_dtype()))
    return _scatter_add_1d(length, index, updates)


def digitize(x: Any, bins: Any, right: bool = False, *, method: str | None = None) -> Any:
    """The index of the bin of each `x` (NumPy's `digitize`): `bins` is increasing or
    decreasing; `right` says which edge a bin includes."""
    x, bins = asarray(x), asarray(bins)
    if bins.aval.ndim != 1:
        raise ValueError(f"jnp.digitize: bins must be a 1-dimensional array, got {bins.aval.ndim}")
    n = bins.aval.shape[0]
    if n == 0:
        return lax.full(x.aval.shape, 0, np.int32)
    side = "left" if right else "right"
    kwargs = {} if method is None else {"method": method}
    ascending = searchsorted(bins, x, side=side, **kwargs)
    descending = lax.sub(
        lax.full(x.aval.shape, n, ascending.aval.dtype),
        searchsorted(lax.rev(bins, (0,)), x, side=side, **kwargs),
    )
    last, first = lax.slice(bins, (n - 1,), (n,)), lax.slice(bins, (0,), (1,))
    increasing = lax.reshape(lax.bitwise_not(sort_less(last, first)), ())
    return lax.select(lax.broadcast_in_dim(increasing, x.aval.shape, ()), ascending, descending)


def _check_numeric_range(value_range: Any) -> None:
    """JAX converts `range` to floats first: what has no float value is a TypeError there."""
    if hasattr(value_range, "aval"):
        return
    try:
        np.asarray(value_range, dtype=np.float64)
    except TypeError:
        raise TypeError(
            f"jnp.histogram: range must be None or a (min, max) pair of numbers, got "
            f"{value_range!r}{mlir.where_suffix()}"
        ) from None
    except ValueError:
        pass


def _range_of(a: Any, value_range: Any) -> tuple[Any, Any]:
    if value_range is None:
        flat = lax.reshape(a, (a.aval.size,))
        if a.aval.size == 0:
            lo, hi = lax.full((), 0, a.aval.dtype), lax.full((), 1, a.aval.dtype)
        else:
            lo, hi = lax.reduce_min(flat, (0,)), lax.reduce_max(flat, (0,))
    else:
        pair = isinstance(value_range, (list, tuple)) and len(value_range) == 2
        if not pair and getattr(value_range, "shape", None) != (2,):  # an array pair too (JAX)
            _check_numeric_range(value_range)
            raise ValueError(
                f"jnp.histogram: range must be None or a (min, max) pair, got {value_range!r}"
            )
        lo = lax.convert_element_type(asarray(value_range[0]), a.aval.dtype)
        hi = lax.convert_element_type(asarray(value_range[1]), a.aval.dtype)
    # An empty range widens to one unit around its value, as in NumPy.
    equal = lax.eq(lo, hi)
    half = lax.full((), 0.5, a.aval.dtype)
    return (
        lax.select(equal, lax.sub(lo, half), lo),
        lax.select(equal, lax.add(hi, half), hi),
    )


def histogram_bin_edges(
    a: Any,
    bins: Any = 10,
    range: Any = None,  # noqa: A002 (NumPy's name)
    weights: Any = None,
) -> Any:
    """The edges of `histogram`'s bins (NumPy's `histogram_bin_edges`): `bins + 1` evenly
    spaced edges over `range` (default: the data's min and max), or `bins` itself."""
    del weights  # only NumPy's string estimators read it; those are not supported
    (a,) = promote_dtypes_inexact(asarray(a))
    if isinstance(bins, str):
        raise NotImplementedError(f"jnp.histogram_bin_edges: string bins={bins!r} unsupported")
    if not isinstance(bins, (int, np.integer)):
        edges = asarray(bins)
        if edges.aval.ndim == 1:
            return lax.convert_element_type(edges, a.aval.dtype)  # the data's inexact type, as JAX
        if edges.aval.ndim:  # NumPy's class (JAX fails converting the array to an int)
            raise ValueError(
                "jnp.histogram_bin_edges: bins must be an integer or a 1-D array of edges, got "
                f"shape {edges.aval.shape}{mlir.where_suffix()}"
            )
    bins = int_arg(bins, "bins", "jnp.histogram_bin_edges")  # a 0-d integer array counts
    if bins < 1:  # NumPy's check (JAX gives bins + 1 edges down to bins=0)
        raise ValueError(
            f"jnp.histogram_bin_edges: bins must be a positive integer, got {bins}"
            f"{mlir.where_suffix()}"
        )
    lo, hi = _range_of(a, range)
    # linspace, as JAX: both ends exact, an infinite one included (lo + i*step is NaN there)
    return linspace(lo, hi, bins + 1, dtype=a.aval.dtype)


def _bin_indices(values: Any, edges: Any) -> Any:
    """Per value: 0 below the first edge, i for [edges[i-1], edges[i]), len(edges) above the
    last; values equal to the last edge belong to the last bin."""
    n = edges.aval.shape[0]
    index = lax.convert_element_type(searchsorted(edges, values, side="right"), index_dtype())
    at_end = lax.eq(
        values,
        lax.broadcast_in_dim(
            lax.reshape(lax.slice(edges, (n - 1,), (n,)), ()), values.aval.shape, ()
        ),
    )
    return lax.select(at_end, lax.full(values.aval.shape, n - 1, index_dtype()), index)


def histogram(
    a: Any,
    bins: Any = 10,
    range: Any = None,  # noqa: A002
    weights: Any = None,
    density: bool | None = None,
) -> tuple[Any, Any]:
    """Counts of `a`'s values in each bin, and the bin edges (NumPy's `histogram`).

    Args:
      a: the data, flattened.
      bins: the number of equal bins, or their edges (1-D, increasing).
      range: (min, max) of the equal bins; values outside are ignored.
      weights: optional weights of `a`'s shape, summed instead of counting 1.
      density: normalise so that the histogram integrates to 1.

    Returns:
      `(counts, edges)`: counts are floating point, as in JAX.
    """
    a = asarray(a)
    if weights is not None:  # as JAX: the shapes first; a takes the weights' dtype, as the edges
        weights = asarray(weights)
        if weights.aval.shape != a.aval.shape:
            raise ValueError("jnp.histogram: weights should have the same shape as a")
        a, _ = promote_dtypes_inexact(a, weights)
    else:
        (a,) = promote_dtypes_inexact(a)  # as JAX: the data in its inexact type from the start
    edges = histogram_bin_edges(a, bins, range)
    flat = lax.reshape(a, (a.aval.size,))
    if weights is None:
        weights = lax.full((a.aval.size,), 1, edges.aval.dtype)
    else:
        weights = lax.reshape(weights, (a.aval.size,))
    _, weights = promote_dtypes_inexact(flat, weights)  # counts in (at least) a's precision
    flat, edges_for_search = promote_dtypes(flat, edges)
    index = _bin_indices(flat, edges_for_search)
    n = edges.aval.shape[0]
    counts = lax.slice(_scatter_add_1d(n + 1, index, weights), (1,), (n,))
    if density:
        widths = lax.sub(lax.slice(edges, (1,), (n,)), lax.slice(edges, (0,), (n - 1,)))
        (counts, widths) = promote_dtypes_inexact(counts, widths)
        total = lax.reduce_sum(counts, (0,))
        counts = lax.div(
            counts, lax.mul(widths, lax.broadcast_in_dim(total, widths.aval.shape, ()))
        )
    return counts, edges


def histogramdd(
    sample: Any,
    bins: Any = 10,
    range: Sequence[Any] | None = None,  # noqa: A002
    weights: Any = None,
    density: bool | None = None,
) -> tuple[Any, list[Any]]:
    """The D-dimensional histogram of N points given as an (N, D) array (NumPy's
    `histogramdd`): counts of shape (bins_1, ..., bins_D) and the list of D edge arrays."""
    sample = asarray(sample)
    # JAX's order: the weights' shape, the sample's, the ranges, the bins.
    if weights is not None and np.shape(weights) != sample.aval.shape[:1]:  # JAX's class
        raise ValueError(
            f"jnp.histogramdd: should have one weight for each sample, got weights of shape "
            f"{np.shape(weights)} for a sample of shape {sample.aval.shape}{mlir.where_suffix()}"
        )
    if sample.aval.ndim != 2:
        raise ValueError(
            f"jnp.histogramdd: sample must be a 2-D (N, D) array, got {sample.aval.ndim}-d"
        )
    count, dims = sample.aval.shape
    if range is not None and not hasattr(range, "__len__"):  # JAX's class: len(range)
        raise TypeError(
            f"jnp.histogramdd: range must be None or a sequence of (min, max) pairs, got "
            f"{type(range).__name__}{mlir.where_suffix()}"
        )
    ranges = [None] * dims if range is None else list(range)
    if len(ranges) != dims:
        raise ValueError(f"jnp.histogramdd: {dims} dimensions but {len(ranges)} ranges")
    # A sequence (an array of counts too, a str of characters as JAX's list(bins)) gives each
    # dimension's bins; a scalar is shared.
    sequence = isinstance(bins, (list, tuple, str)) or getattr(bins, "ndim", 0) >= 1
    per_dim_bins = list(bins) if sequence else [bins] * dims
    if len(per_dim_bins) != dims:
        raise ValueError(f"jnp.histogramdd: {dims} dimensions but {len(per_dim_bins)} bins")
    edges, flat_index, shape = [], lax.full((count,), 0, index_dtype()), []
    for d in builtins.range(dims):
        column = lax.reshape(lax.slice(sample, (0, d), (count, d + 1)), (count,))
        edge = histogram_bin_edges(column, per_dim_bins[d], ranges[d])
        column, search_edges = promote_dtypes(column, edge)
        extent = edge.aval.shape[0] + 1  # with the under- and overflow bins
        flat_index = lax.add(
            lax.mul(flat_index, lax.full((count,), extent, index_dtype())),
            _bin_indices(column, search_edges),
        )
        edges.append(edge)
        shape.append(extent)
    if weights is None:
        updates = lax.full((count,), 1, index_dtype())
    else:  # promoted with the sample to an inexact type, as JAX
        updates = promote_dtypes_inexact(sample, asarray(weights))[1]
    if not dims:  # NumPy and JAX fail counting samples of no coordinates (their bincount)
        raise ValueError(
            f"jnp.histogramdd: sample must have at least one coordinate, got shape "
            f"{sample.aval.shape}{mlir.where_suffix()}"
        )
    total = int(np.prod(shape))
    counts = lax.reshape(_scatter_add_1d(total, flat_index, updates), shape)
    counts = lax.slice(counts, (1,) * dims, tuple(s - 1 for s in shape))
    if density:  # in the sample's inexact type (joined with the weights'), as JAX
        joined = (sample,) if weights is None else (sample, updates)
        dtype = promote_dtypes_inexact(*joined)[0].aval.dtype
        counts = lax.convert_element_type(counts, dtype)
        counts = lax.div(
            counts,
            lax.broadcast_in_dim(
                lax.reduce_sum(counts, tuple(builtins.range(dims))), counts.aval.shape, ()
            ),
        )
        for d, edge in enumerate(edges):
            n = edge.aval.shape[0]
            width = lax.sub(lax.slice(edge, (1,), (n,)), lax.slice(edge, (0,), (n - 1,)))
            width = lax.convert_element_type(width, counts.aval.dtype)
            counts = lax.div(counts, lax.broadcast_in_dim(width, counts.aval.shape, (d,)))
    return counts, edges


def histogram2d(
    x: Any,
    y: Any,
    bins: Any = 10,
    range: Sequence[Any] | None = None,  # noqa: A002
    weights: Any = None,
    density: bool | None = None,
) -> tuple[Any, Any, Any]:
    """The 2-D histogram of points (x, y) (NumPy's `histogram2d`): counts, x edges, y edges."""
    x, y = promote_dtypes(asarray(x), asarray(y))
    # As NumPy: one integer or edge array serves both axes; a pair gives one per axis.
    try:
        given = len(bins)
    except TypeError:
        given = 1
    if given not in (1, 2):
        bins = [bins, bins]
    if x.shape != y.shape:  # TypeError, as JAX's concatenation of the two
        raise TypeError(
            f"jnp.histogram2d: x and y must have the same shape, got {x.shape} and {y.shape}"
            f"{mlir.where_suffix()}"
        )
    if x.ndim != 1:
        raise ValueError(
            f"jnp.histogram2d: x and y must be 1-D, got shape {x.shape}{mlir.where_suffix()}"
        )
    sample = lax.concatenate([lax.expand_dims(x, (1,)), lax.expand_dims(y, (1,))], 1)
    counts, (x_edges, y_edges) = histogramdd(sample, bins, range, weights, density)
    return counts, x_edges, y_edges


__all__ = [
    "bincount",
    "digitize",
    "histogram",
    "histogram2d",
    "histogram_bin_edges",
    "histogramdd",
]
