"""Order statistics and moments: quantile/percentile/median (and their NaN-ignoring forms),
average, cov and corrcoef."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax, runtime
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import (
    check_arraylike,
    promote_dtypes,
    promote_dtypes_inexact,
)
from stablax._src.numpy._reductions_common import _axes, _keepdims_shape, static_axis

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")
_STATIC = ("axis", "method", "keepdims", "ignore_nan", "returned", "rowvar", "bias", "ddof")


def _lanes_last(a: Any, axes: tuple[int, ...]) -> Any:
    """`a` reshaped to (lanes, n): the reduced axes flattened into one trailing axis."""
    kept = [i for i in range(a.aval.ndim) if i not in axes]
    moved = lax.transpose(a, (*kept, *axes)) if axes else a
    lanes = int(np.prod([a.aval.shape[i] for i in kept], dtype=np.int64))
    n = int(np.prod([a.aval.shape[i] for i in axes], dtype=np.int64))
    return lax.reshape(moved, (lanes, n))


def _take_per_lane(values: Any, index: Any) -> Any:
    """values[lane, index[k, lane]] for values (lanes, n) and index (k, lanes): shape (k, lanes)."""
    k, lanes = index.aval.shape
    lane = lax.broadcasted_iota(np.int32, (k, lanes), 1)
    flat = [lax.reshape(i, (k * lanes,)) for i in (lax.convert_element_type(index, np.int32), lane)]
    return lax.reshape(lax.index_take(values, [flat[1], flat[0]], [0, 1]), (k, lanes))


def _quantile_impl(a, q, axis=None, method="linear", keepdims=False, ignore_nan=False):
    # `method` is one of _METHODS: every caller has checked it (_check_quantile_args).
    name = "nanquantile" if ignore_nan else "quantile"
    a, q = asarray(a), asarray(q)
    complex_input = ValueError(
        f"jnp.{name} does not support complex input, as the operation is poorly defined"
        f"{mlir.where_suffix()}"
    )
    if a.aval.dtype.kind == "c":  # JAX's order: a's dtype, q's rank, then q's dtype
        raise complex_input
    if q.aval.ndim > 1:
        raise ValueError(f"jnp.{name}: q must be zero- or one-dimensional{mlir.where_suffix()}")
    if q.aval.dtype.kind == "c":
        raise complex_input
    (a,) = promote_dtypes_inexact(a)  # q does not take part in the promotion, as in JAX
    a = lax.convert_element_type(a, a.aval.dtype)  # results are strongly typed, as in JAX
    # As JAX: counts, positions and the linear blend are in q's floating type (float32 for a
    # Python float), so float8 and float16 data do not round their positions (19 in float8 is 20).
    work = q.aval.dtype if dtypes.issubdtype(q.aval.dtype, np.floating) else a.aval.dtype
    q = lax.convert_element_type(q, work)
    axes = _axes(axis, a.aval.ndim, name)
    shape = a.aval.shape
    lanes = lax.sort(_lanes_last(a, axes), dimension=1)
    n_lanes, n = lanes.aval.shape
    if n == 0:  # NumPy's NaN for the median (and nan-quantiles) of nothing
        lanes = lax.full((n_lanes, 1), np.nan, a.aval.dtype)
    has_nan = lax.reduce_or(lax.ne(lanes, lanes), (1,))
    if ignore_nan:  # NaNs sort last: quantiles are taken over the first `count` of each lane
        count = lax.reduce_sum(lax.convert_element_type(lax.eq(lanes, lanes), work), (1,))
    else:
        count = lax.full((n_lanes,), lanes.aval.shape[1], work)
    qs = lax.reshape(q, (q.aval.size, 1))
    k = qs.aval.shape[0]
    count = lax.broadcast_in_dim(count, (k, n_lanes), (1,))
    qs = lax.broadcast_in_dim(qs, (k, n_lanes), (0, 1))
    last = lax.sub(count, 1.0)

    def index(position):
        return lax.clamp(0.0, position, lax.max(last, lax.full_like(last, 0)))

    position = lax.mul(qs, last)
    if method == "inverted_cdf":
        position = lax.sub(lax.ceil(lax.mul(qs, count)), 1.0)
        result = _take_per_lane(lanes, index(position))
    else:
        low, high = lax.floor(position), lax.ceil(position)
        low_value = _take_per_lane(lanes, index(low))
        high_value = _take_per_lane(lanes, index(high))
        if method == "linear":  # JAX's blend low * (1 - w) + high * w, in the work type
            w = lax.sub(position, low)
            low_value, high_value = (
                lax.convert_element_type(v, work) for v in (low_value, high_value)
            )
            low_value = lax.mul(low_value, lax.sub(lax.full_like(w, 1), w))
            high_value = lax.mul(high_value, w)
        if method == "lower":
            result = low_value
        elif method == "higher":
            result = high_value
        elif method == "midpoint":
            result = lax.mul(lax.add(low_value, high_value), 0.5)
        elif method == "nearest":
            nearest = lax.round(position, lax.RoundingMethod.TO_NEAREST_EVEN)
            result = _take_per_lane(lanes, index(nearest))
        else:
            result = lax.add(low_value, high_value)
    result = lax.convert_element_type(result, a.aval.dtype)
    if ignore_nan:
        result = lax.select(lax.eq(count, 0.0), lax.full_like(result, np.nan), result)
    else:
        has_nan = lax.broadcast_in_dim(has_nan, (k, n_lanes), (1,))
        result = lax.select(has_nan, lax.full_like(result, np.nan), result)
    rest = (
        _keepdims_shape(shape, axes)
        if keepdims
        else tuple(d for i, d in enumerate(shape) if i not in axes)
    )
    return lax.reshape(result, (*q.aval.shape, *rest))


_quantile = _eager(_quantile_impl, static_argnames=_STATIC)


def _check_quantile_args(
    out: Any,
    overwrite_input: bool,
    weights: Any,
    name: str,
    method: str = "linear",
    arrays: tuple = (),
) -> None:
    check_arraylike(name, *arrays)  # the arrays first, as JAX
    if overwrite_input or out is not None:  # JAX's check and class (arrays are immutable)
        raise ValueError(
            f"jnp.{name}: overwrite_input=True and out= are not supported{mlir.where_suffix()}"
        )
    if method not in _METHODS:  # before weights, in JAX's order
        raise ValueError(
            f"jnp.{name}: method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' "
            f"or 'inverted_cdf', got {method!r}{mlir.where_suffix()}"
        )
    if weights is None:
        return
    if asarray(weights).aval.dtype.kind == "c":  # JAX's checks, in its order
        raise ValueError(f"jnp.{name}: weights cannot be complex{mlir.where_suffix()}")
    if method != "inverted_cdf":
        raise NotImplementedError(
            f"jnp.{name}: method {method!r} does not support weights; only 'inverted_cdf' does"
        )
    raise NotImplementedError(f"jnp.{name}: the 'weights' argument is not supported yet.")


def quantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
) -> Any:
    """The q-th quantiles (q in [0, 1]) over `axis`; NaN if a lane holds NaN (NumPy's `quantile`).

    `method` is one of 'linear', 'lower', 'higher', 'midpoint', 'nearest', 'inverted_cdf' (the
    ones JAX supports). The result has shape q.shape + the shape of the reduced `a`.
    """
    _check_quantile_args(out, overwrite_input, weights, "quantile", method, (a, q))
    return _quantile(a, q, axis, method, keepdims, False)


def nanquantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
) -> Any:
    """`quantile` ignoring NaNs (NaN only where a lane is all NaN)."""
    _check_quantile_args(out, overwrite_input, weights, "nanquantile", method, (a, q))
    return _quantile(a, q, axis, method, keepdims, True)


def _hundredths(q: Any) -> Any:
    (q,) = promote_dtypes_inexact(asarray(q))
    return lax.div(q, lax.full_like(q, 100))  # complex q too: _quantile rejects it


def percentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
    out_sharding: Any = None,
) -> Any:
    """The q-th percentiles (q in [0, 100]); see `quantile`.

    `out_sharding`: None, or a sharding on stablax's one device.
    """
    runtime.check_sharding(out_sharding, "jnp.percentile")
    _check_quantile_args(out, overwrite_input, weights, "percentile", method, (a, q))
    return _quantile(a, _hundredths(q), axis, method, keepdims, False)


def nanpercentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: Any = None,
) -> Any:
    """`percentile` ignoring NaNs."""
    _check_quantile_args(out, overwrite_input, weights, "nanpercentile", method, (a, q))
    return _quantile(a, _hundredths(q), axis, method, keepdims, True)


def median(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> Any:
    """Median over `axis` (the mean of the two middle values for even counts)."""
    _check_quantile_args(out, overwrite_input, None, "median", arrays=(a,))
    return _quantile(a, 0.5, axis, "midpoint", keepdims, False)


def nanmedian(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> Any:
    """Median over `axis` ignoring NaNs."""
    _check_quantile_args(out, overwrite_input, None, "nanmedian", arrays=(a,))
    return _quantile(a, 0.5, axis, "midpoint", keepdims, True)


def _average_impl(a, axis=None, weights=None, returned=False, keepdims=False):
    # The axis is read against a's rank before `a` is checked to be an array, as in JAX.
    axes = _axes(axis, a.aval.ndim if hasattr(a, "aval") else np.ndim(a), "average")
    a = asarray(a)
    shape = a.aval.shape
    if weights is None:
        (a,) = promote_dtypes_inexact(a)
        a = lax.convert_element_type(a, a.aval.dtype)
        total = lax.reduce_sum(a, axes)
        count = int(np.prod([shape[i] for i in axes], dtype=np.int64))
        scale = lax.full_like(total, count)
    else:
        a, w = promote_dtypes_inexact(a, asarray(weights))
        a, w = (lax.convert_element_type(v, v.aval.dtype) for v in (a, w))
        if w.aval.shape != shape:
            if axis is None or len(axes) != 1:
                raise ValueError(  # JAX's class (NumPy: TypeError)
                    "jnp.average: axis must be specified when shapes of a and weights differ"
                    f"{mlir.where_suffix()}"
                )
            if w.aval.shape != (shape[axes[0]],):
                raise ValueError(
                    f"jnp.average: length of weights {w.aval.shape} is not compatible with the "
                    f"shape {shape} of a along axis {axes[0]}{mlir.where_suffix()}"
                )
            w = lax.broadcast_in_dim(w, shape, axes)
        total = lax.reduce_sum(lax.mul(a, w), axes)
        scale = lax.reduce_sum(w, axes)
    out = lax.div(total, scale)
    if keepdims:
        out = lax.reshape(out, _keepdims_shape(shape, axes))
        scale = lax.reshape(scale, _keepdims_shape(shape, axes))
    return (out, scale) if returned else out


_average = _eager(_average_impl, static_argnames=_STATIC)


def average(
    a: Any, axis: Any = None, weights: Any = None, returned: bool = False, keepdims: bool = False
) -> Any:
    """Weighted mean over `axis`; with `returned`, also the sum of the weights (NumPy's)."""
    return _average(a, static_axis(axis), weights, bool(returned), keepdims)


def _as_rows(x: Any, rowvar: bool, rank: int | None = None) -> Any:
    """x as (variables, observations). Without `rowvar`, JAX transposes an m of `rank` (its
    rank promoted to y's) other than 1, even of one row; y keeps NumPy's test of the rows."""
    if x.aval.ndim < 2:
        x = lax.reshape(x, (1, x.aval.size))
    if not rowvar and (rank != 1 if rank is not None else x.aval.shape[0] != 1):
        x = lax.transpose(x, (1, 0))
    return x


def _cov_weights(given: Any, kind: str, n: int) -> Any:
    """fweights or aweights checked as JAX checks them (after m, y and dtype), made positive."""
    if isinstance(given, (list, tuple)):  # JAX's ensure_arraylike, at its place in the order
        raise TypeError(
            f"cov requires ndarray or scalar arguments, got {type(given)} at position 0."
            f"{mlir.where_suffix()}"
        )
    given = asarray(given)
    # NumPy and JAX raise RuntimeError here; stablax raises its documented ValueError.
    if given.aval.ndim > 1:
        raise ValueError(f"jnp.cov: cannot handle multidimensional {kind}{mlir.where_suffix()}")
    if given.aval.ndim == 0 or given.aval.shape[0] != n:
        raise ValueError(
            f"jnp.cov: incompatible numbers of samples and {kind}{mlir.where_suffix()}"
        )
    kind_char = given.aval.dtype.kind
    if kind == "fweights" and kind_char not in "iu":
        raise TypeError(f"jnp.cov: fweights must be integer{mlir.where_suffix()}")
    # Negative weights count by their magnitude, as in JAX (NumPy raises for them).
    return given if kind_char in "bu" else lax.abs(given)


def _cov_impl(
    m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None
):
    # JAX's order: m and y promoted together, their ranks, the dtype, then the weights.
    m = asarray(m)
    if y is not None:
        m, y = promote_dtypes_inexact(m, asarray(y))
        if y.aval.ndim > 2:
            raise ValueError(f"jnp.cov: y has more than 2 dimensions{mlir.where_suffix()}")
    else:
        (m,) = promote_dtypes_inexact(m)
    if m.aval.ndim > 2:
        raise ValueError(f"jnp.cov: m has more than 2 dimensions{mlir.where_suffix()}")
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):  # JAX's class
        raise ValueError(
            f"jnp.cov: dtype must be a floating or complex type, got {np.dtype(dtype).name}"
            f"{mlir.where_suffix()}"
        )
    x = _as_rows(m, rowvar, max(m.aval.ndim, 0 if y is None else y.aval.ndim))
    if x.aval.shape[0] == 0:  # no variables: NumPy's (and JAX's) empty default-float result
        return lax.full((0, 0), 0, dtypes.default_float_dtype())
    if y is not None:
        rows = _as_rows(y, rowvar)
        if rows.aval.shape[1] != x.aval.shape[1]:  # NumPy's class
            raise ValueError(
                f"jnp.cov: m and y must have the same number of observations, got shapes "
                f"{np.shape(m)} and {np.shape(y)} with rowvar={rowvar}{mlir.where_suffix()}"
            )
        x = lax.concatenate([x, rows], 0)
    x = lax.convert_element_type(x, x.aval.dtype)  # results are strongly typed, as in JAX
    variables, n = x.aval.shape
    if n == 0:  # no observations: NaNs, the weights unchecked (as in JAX), in the asked dtype
        out = x.aval.dtype if dtype is None else dtypes.check_user_dtype(dtype, "cov")
        return lax.full(() if variables == 1 else (variables, variables), np.nan, out)
    if ddof is None:
        ddof = 1 if bias == 0 else 0  # NumPy's test: bias=None counts as a bias
    w = f = a = None
    if fweights is not None:
        w = _cov_weights(fweights, "fweights", n)
    if aweights is not None:
        a = _cov_weights(aweights, "aweights", n)
        w = a if w is None else lax.mul(*promote_dtypes(w, a))
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "cov")
        x = lax.convert_element_type(x, dtype)
        w = None if w is None else lax.convert_element_type(w, dtype)
    if w is None:
        mean = lax.div(lax.reduce_sum(x, (1,)), lax.full((variables,), n, x.aval.dtype))
        # NumPy's factor: no fewer than 0 degrees of freedom (JAX's goes negative).
        f = lax.full((), max(n - ddof, 0), x.aval.dtype)
    else:
        # The weighted mean in the common type of x and the weights (JAX's average).
        xw, ww = promote_dtypes_inexact(x, w)
        ww = lax.convert_element_type(ww, ww.aval.dtype)
        xw = lax.convert_element_type(xw, ww.aval.dtype)
        w_sum = lax.reduce_sum(ww, (0,))
        total = lax.reduce_sum(lax.mul(xw, lax.broadcast_in_dim(ww, xw.aval.shape, (1,))), (1,))
        mean = lax.div(total, lax.broadcast_in_dim(w_sum, total.aval.shape, ()))
        if ddof == 0:
            f = w_sum
        elif a is None:
            f = lax.sub(*promote_dtypes(w_sum, ddof))
        else:  # the aweights as given (not in `dtype`) take part in the spread's type
            product = lax.mul(*promote_dtypes(w, a))
            if product.aval.dtype.kind in "biu":  # jnp.sum's integer promotion
                wide = dtypes.default_uint_dtype() if product.aval.dtype.kind == "u" else None
                product = lax.convert_element_type(product, wide or dtypes.default_int_dtype())
            spread = lax.reduce_sum(product, (0,))
            spread = lax.div(*promote_dtypes(lax.mul(*promote_dtypes(ddof, spread)), w_sum))
            f = lax.sub(*promote_dtypes(w_sum, spread))
        if f.aval.dtype.kind != "c":
            f = lax.max(f, lax.full_like(f, 0))
    x, mean = promote_dtypes(x, mean)
    centered = lax.sub(x, lax.broadcast_in_dim(mean, x.aval.shape, (0,)))
    weighted = centered
    if w is not None:
        weighted, w = promote_dtypes(centered, w)
        weighted = lax.mul(weighted, lax.broadcast_in_dim(w, weighted.aval.shape, (1,)))
    centered, weighted = promote_dtypes(centered, weighted)
    if weighted.aval.dtype.kind == "c":
        weighted = lax.conj(weighted)
    c = lax.dot_general(
        centered, weighted, (((1,), (1,)), ((), ())), precision=lax.Precision.HIGHEST
    )
    c, f = promote_dtypes(c, f)
    c = lax.div(c, lax.broadcast_in_dim(f, c.aval.shape, ()))
    return lax.reshape(c, ()) if c.aval.shape == (1, 1) else c


_cov = _eager(_cov_impl, static_argnames=(*_STATIC, "dtype"))


def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: Any = None,
    aweights: Any = None,
    dtype: Any = None,
) -> Any:
    """Covariance matrix of the variables in the rows of m (columns if not `rowvar`)."""
    bias = bias if bias is None else bool(bias)  # NumPy tests bias == 0: None is a bias
    return _cov(m, y, bool(rowvar), bias, ddof, fweights, aweights, dtype)


def _corrcoef_impl(x, y=None, rowvar=True, dtype=None):
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):  # JAX's class
        raise ValueError(
            f"jnp.corrcoef: dtype must be a floating or complex type, got {np.dtype(dtype).name}"
            f"{mlir.where_suffix()}"
        )
    c = _cov_impl(x, y, rowvar, dtype=dtype)
    if c.aval.ndim == 0:
        return lax.div(c, c)
    size = c.aval.shape[0]
    diagonal = lax.index_take(c, [lax.iota(np.int32, size)] * 2, [0, 1])
    std = lax.sqrt(lax.real(diagonal) if diagonal.aval.dtype.kind == "c" else diagonal)
    std = lax.convert_element_type(std, c.aval.dtype)
    c = lax.div(c, lax.broadcast_in_dim(std, c.aval.shape, (0,)))
    c = lax.div(c, lax.broadcast_in_dim(std, c.aval.shape, (1,)))
    if c.aval.dtype.kind == "c":
        parts = [lax.clamp(-1.0, p, 1.0) for p in (lax.real(c), lax.imag(c))]
        return lax.complex(*parts)
    return lax.clamp(-1.0, c, 1.0)


_corrcoef = _eager(_corrcoef_impl, static_argnames=("rowvar", "dtype"))


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Any:
    """Pearson correlation coefficients, cov normalised by the standard deviations."""
    return _corrcoef(x, y, bool(rowvar), dtype)


__all__ = [
    "quantile",
    "nanquantile",
    "percentile",
    "nanpercentile",
    "median",
    "nanmedian",
    "average",
    "cov",
    "corrcoef",
]
