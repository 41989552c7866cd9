"""`jnp.pad`: NumPy's padding modes, one axis at a time as NumPy does (corners see earlier axes).

Modes that only pick elements (edge, wrap, reflect/symmetric 'even') become one static gather per
axis, with the index map computed on the host by `np.pad` of `arange(n)`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src.core import Tracer
from stablax._src.numpy import _reductions, _ufuncs
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import broadcast_to_shape
from stablax._src.numpy._shape import concatenate, moveaxis
from stablax._src.numpy._shape_join import take_static
from stablax._src.transforms.vmap_api import vmap

_MODES = (
    "constant edge linear_ramp maximum mean median minimum reflect symmetric wrap empty"
).split()
_ALLOWED_KWARGS = {
    "constant": {"constant_values"},
    "edge": set(),
    "linear_ramp": {"end_values"},
    "maximum": {"stat_length"},
    "mean": {"stat_length"},
    "median": {"stat_length"},
    "minimum": {"stat_length"},
    "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"},
    "wrap": set(),
    "empty": set(),
}


def _per_axis(value: Any, ndim: int, name: str, what: str) -> list[tuple[Any, Any]]:
    """NumPy's broadcasting of pad_width-like arguments to one (before, after) pair per axis."""
    if isinstance(value, Tracer) or (hasattr(value, "aval") and value.aval.ndim):
        value = np.asarray(value)
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        return [(value, value)] * ndim
    try:
        arr = np.broadcast_to(arr, (ndim, 2))
    except ValueError:
        raise ValueError(
            f"{name}: {what} of shape {arr.shape} cannot be broadcast to ({ndim}, 2)"
        ) from None
    return [(b, a) for b, a in arr.tolist()]


def _widths(pad_width: Any, ndim: int) -> list[tuple[int, int]]:
    if isinstance(pad_width, Tracer):
        # The shape first, known while tracing (JAX's order), then the concreteness.
        shape = tuple(pad_width.aval.shape)
        valid = [(ndim, 2), (1, 2), (2,), (1,), ()]
        if shape not in valid:
            raise ValueError(
                f"jnp.pad: pad_width with nd={ndim} has unsupported shape {shape}. Valid shapes "
                f"are {', '.join(map(str, valid[:-1]))}, or ()."
            )
        raise TypeError("jnp.pad: pad_width must be concrete (static), not traced")
    widths = np.asarray(pad_width)
    if widths.size and widths.dtype.kind not in "iu":
        raise TypeError(f"jnp.pad: pad_width must be of integral type, got {widths.dtype}")
    pairs = [
        (operator.index(b), operator.index(a))
        for b, a in _per_axis(widths, ndim, "jnp.pad", "pad_width")
    ]
    return pairs


def _check_nonnegative(pairs: list[tuple[int, int]], pad_width: Any) -> None:
    if any(b < 0 or a < 0 for b, a in pairs):
        raise ValueError(f"jnp.pad: pad_width must not be negative, got {pad_width}")


def _pad_constant(x: Any, axis: int, before: int, after: int, values: tuple) -> Any:
    dtype = x.aval.dtype
    for side, width, value in ((0, before, values[0]), (1, after, values[1])):
        if width:
            config = [(0, 0, 0)] * x.aval.ndim
            config[axis] = (width, 0, 0) if side == 0 else (0, width, 0)
            fill = lax.convert_element_type(asarray(value), dtype)
            x = lax.pad(x, fill, config)
    return x


def _index_map(n: int, before: int, after: int, mode: str, reflect_type: str) -> np.ndarray:
    kwargs = {"reflect_type": reflect_type} if mode in ("reflect", "symmetric") else {}
    return np.pad(np.arange(n), (before, after), mode=mode, **kwargs)


def _pad_linear_map(x: Any, axis: int, before: int, after: int, mode: str, rtype: str) -> Any:
    # reflect_type='odd' mixes elements (2*edge - x): apply np.pad's linear map as a matrix.
    n = x.aval.shape[axis]
    matrix = np.pad(np.eye(n), ((before, after), (0, 0)), mode=mode, reflect_type=rtype)
    dtype = x.aval.dtype
    compute = dtype if dtypes.issubdtype(dtype, np.inexact) else np.dtype(np.float64)
    m = lax.convert_element_type(asarray(matrix.astype(compute)), compute)
    xc = lax.convert_element_type(x, compute) if compute != dtype else x
    out = lax.dot_general(m, xc, (((1,), (axis,)), ((), ())), lax.Precision.HIGHEST)
    out = moveaxis(out, 0, axis)
    if compute != dtype:
        out = lax.convert_element_type(lax.round(out, lax.RoundingMethod.TO_NEAREST_EVEN), dtype)
    return out


def _edge_slices(x: Any, axis: int, before_len: int, after_len: int) -> tuple[Any, Any]:
    n = x.aval.shape[axis]
    head = lax.slice_in_dim(x, 0, max(1, min(before_len, n)), axis=axis)
    tail = lax.slice_in_dim(x, n - max(1, min(after_len, n)), n, axis=axis)
    return head, tail


def _median(x: Any, axis: int) -> Any:
    n = x.aval.shape[axis]
    s = lax.sort(x, dimension=axis)
    lo = lax.slice_in_dim(s, (n - 1) // 2, (n - 1) // 2 + 1, axis=axis)
    hi = lax.slice_in_dim(s, n // 2, n // 2 + 1, axis=axis)
    return lax.div(lax.add(lo, hi), lax.full((), 2, lo.aval.dtype))


def _pad_stat(x: Any, axis: int, before: int, after: int, mode: str, lengths: tuple) -> Any:
    n = x.aval.shape[axis]
    if n == 0 and (before or after):
        raise ValueError(f"jnp.pad: can't extend empty axis {axis} using modes other than constant")
    lengths = [n if v is None else operator.index(v) for v in lengths]
    if any(v < 0 for v in lengths):
        raise ValueError("jnp.pad: stat_length must not be negative")
    head, tail = _edge_slices(x, axis, *lengths)
    dtype = x.aval.dtype
    parts = []
    for width, region in ((before, head), (after, tail)):
        if mode == "maximum":
            stat = _reductions.max(region, axis=axis, keepdims=True)
        elif mode == "minimum":
            stat = _reductions.min(region, axis=axis, keepdims=True)
        else:
            inexact = dtypes.issubdtype(dtype, np.inexact)
            region_f = region if inexact else lax.convert_element_type(region, np.float32)
            if mode == "mean":
                stat = _reductions.mean(region_f, axis=axis, keepdims=True)
            else:
                stat = _median(region_f, axis)
            if not inexact:  # NumPy rounds integer means and medians to nearest even
                stat = lax.round(stat, lax.RoundingMethod.TO_NEAREST_EVEN)
            stat = lax.convert_element_type(stat, dtype)
        shape = list(x.aval.shape)
        shape[axis] = width
        parts.append(broadcast_to_shape(stat, tuple(shape)))
    return concatenate([parts[0], x, parts[1]], axis=axis)


def _pad_ramp(x: Any, axis: int, before: int, after: int, ends: tuple) -> Any:
    dtype = x.aval.dtype
    head, tail = _edge_slices(x, axis, 1, 1)
    compute = dtype if dtypes.issubdtype(dtype, np.inexact) else dtypes.default_float_dtype()
    parts = []
    for width, edge, end, ascending in (
        (before, head, ends[0], True),
        (after, tail, ends[1], False),
    ):
        # np.linspace(end, edge, width, endpoint=False), reversed on the after side.
        frac = np.arange(width, dtype=np.float64) / max(width, 1)
        if not ascending:
            frac = frac[::-1]
        shape = [1] * x.aval.ndim
        shape[axis] = width
        frac_a = lax.convert_element_type(asarray(frac.reshape(shape)), compute)
        edge_c = lax.convert_element_type(edge, compute)
        end_c = lax.convert_element_type(asarray(end), compute)
        ramp = _ufuncs.add(end_c, _ufuncs.multiply(_ufuncs.subtract(edge_c, end_c), frac_a))
        if compute != dtype and dtype != np.bool_:  # booleans: nonzero is True, as NumPy
            ramp = lax.floor(ramp)
        out_shape = list(x.aval.shape)
        out_shape[axis] = width
        parts.append(lax.convert_element_type(broadcast_to_shape(ramp, tuple(out_shape)), dtype))
    return concatenate([parts[0], x, parts[1]], axis=axis)


def _pad_callable(x: Any, widths: list, fn: Callable, kwargs: dict) -> Any:
    x = _pad_all(x, widths, "constant", {"constant_values": 0})
    for axis, (before, after) in enumerate(widths):
        moved = moveaxis(x, axis, -1)
        width = moved.aval.shape[-1]
        rows = lax.reshape(moved, (moved.aval.size // max(width, 1), width))
        out = vmap(lambda row, b=before, a=after, ax=axis: fn(row, (b, a), ax, kwargs))(rows)
        x = moveaxis(lax.reshape(asarray(out), moved.aval.shape), -1, axis)
    return x


def _pad_all(x: Any, widths: list, mode: str, kwargs: dict) -> Any:
    ndim = x.aval.ndim
    if mode == "constant":
        values = _per_axis(kwargs.get("constant_values", 0), ndim, "jnp.pad", "constant_values")
    elif mode == "linear_ramp":
        values = _per_axis(kwargs.get("end_values", 0), ndim, "jnp.pad", "end_values")
    elif mode in ("maximum", "minimum", "mean", "median"):
        values = _per_axis(kwargs.get("stat_length"), ndim, "jnp.pad", "stat_length")
    rtype = kwargs.get("reflect_type", "even")
    if rtype not in ("even", "odd"):
        raise ValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got {rtype!r}")
    for axis, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        n = x.aval.shape[axis]
        if mode in ("constant", "empty"):
            x = _pad_constant(
                x, axis, before, after, values[axis] if mode == "constant" else (0, 0)
            )
        elif n == 0:
            raise ValueError(
                f"jnp.pad: can't extend empty axis {axis} using modes other than constant or empty"
            )
        elif mode in ("edge", "wrap") or (mode in ("reflect", "symmetric") and rtype == "even"):
            x = take_static(x, _index_map(n, before, after, mode, rtype), axis)
        elif mode in ("reflect", "symmetric"):
            x = _pad_linear_map(x, axis, before, after, mode, rtype)
        elif mode == "linear_ramp":
            x = _pad_ramp(x, axis, before, after, values[axis])
        else:
            x = _pad_stat(x, axis, before, after, mode, values[axis])
    return x


def pad(array: Any, pad_width: Any, mode: str | Callable = "constant", **kwargs: Any) -> Any:
    """Pads an array (`np.pad`): every NumPy mode, or a callable applied along each axis.

    Args:
      array: the array to pad.
      pad_width: static widths: an int, (before, after), or one pair per axis.
      mode: 'constant' (default), 'edge', 'linear_ramp', 'maximum', 'mean', 'median',
        'minimum', 'reflect', 'symmetric', 'wrap', 'empty', or a function
        `f(vector, (before, after), axis, kwargs) -> vector`.
      **kwargs: `constant_values`, `end_values`, `stat_length` or `reflect_type`, as NumPy.

    Returns:
      The padded array, of the same dtype (`stablehlo.pad`, `concatenate` or `gather`).
    """
    x = asarray(array)
    widths = _widths(pad_width, x.aval.ndim)  # the shape, then the mode, then the signs (JAX)
    if callable(mode):
        _check_nonnegative(widths, pad_width)
        return _pad_callable(x, widths, mode, kwargs)
    if mode not in _MODES:
        raise ValueError(f"jnp.pad: unimplemented padding mode {mode!r} for np.pad")
    unexpected = set(kwargs) - _ALLOWED_KWARGS[mode]
    if unexpected:
        raise ValueError(
            f"jnp.pad: unsupported keyword arguments for mode {mode!r}: {sorted(unexpected)}"
        )
    _check_nonnegative(widths, pad_width)
    return _pad_all(x, widths, mode, kwargs)
