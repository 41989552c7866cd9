"""Running totals and differences: cumsum/cumprod (plain, nan-ignoring, Array API forms), diff,
ediff1d, gradient, trapezoid and unwrap."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import int_arg
from stablax._src.numpy import _ufuncs
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import (
    broadcast_shapes,
    broadcast_to_shape,
    check_arraylike,
    promote_dtypes,
    promote_dtypes_inexact,
)
from stablax._src.numpy._reductions_common import (
    _axes,
    _check_out,
    _sum_dtype,
    single_axis,
    static_axis,
)
from stablax._src.numpy._ufuncs_division import _mod

_STATIC = ("axis", "dtype", "include_initial", "n", "edge_order")


def _cumulative_dtype(dt: np.dtype, dtype: Any, name: str) -> np.dtype:
    # Unlike sum, JAX keeps small integers here; only bools widen to the default integer.
    if dtype is not None:
        return dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, name))
    return dtypes.default_int_dtype() if dt == np.bool_ else dt


def _cumulative(name: str, lax_fn, nan_fill: float | None):
    def fn(a, axis=None, dtype=None):
        a = asarray(a)
        if axis is None or a.aval.ndim == 0:  # NumPy (and JAX for scalars): a 0-d `a` is 1-d
            a = lax.reshape(a, (a.aval.size,))
            axis = 0 if axis is None else axis
        axis = single_axis(axis, a.aval.ndim, name)
        if nan_fill is not None and dtypes.issubdtype(a.aval.dtype, np.inexact):
            a = lax.select(lax.ne(a, a), lax.full_like(a, nan_fill), a)
        target = _cumulative_dtype(a.aval.dtype, dtype, name)
        if target != np.bool_:
            a = lax.convert_element_type(a, target)
            return lax_fn(a, axis)
        # As JAX: a boolean running total is the integer one of the truth values, as bool.
        if a.aval.dtype != np.bool_:
            a = lax.ne(a, lax.full_like(a, 0))
        out = lax_fn(lax.convert_element_type(a, dtypes.default_int_dtype()), axis)
        return lax.convert_element_type(out, np.bool_)

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_cumsum = _cumulative("cumsum", lax.cumsum, None)
_cumprod = _cumulative("cumprod", lax.cumprod, None)
_nancumsum = _cumulative("nancumsum", lax.cumsum, 0.0)
_nancumprod = _cumulative("nancumprod", lax.cumprod, 1.0)


def cumsum(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """Running sum along `axis` (of the flattened array if None), NumPy's `cumsum`."""
    _check_out(out, "cumsum")
    return _cumsum(a, axis, dtype)


def cumprod(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """Running product along `axis` (of the flattened array if None), NumPy's `cumprod`."""
    _check_out(out, "cumprod")
    return _cumprod(a, axis, dtype)


def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """Running sum treating NaN as 0."""
    _check_out(out, "nancumsum")
    return _nancumsum(a, axis, dtype)


def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
    """Running product treating NaN as 1."""
    _check_out(out, "nancumprod")
    return _nancumprod(a, axis, dtype)


def _array_api_cumulative(name: str, impl, identity: int):
    def fn(x, axis=None, dtype=None, include_initial=False):
        x = asarray(x)
        if x.aval.ndim == 0:
            raise ValueError(
                f"jnp.{name}: the input must be non-scalar to take a cumulative "
                f"{name.split('_')[1]}, got a scalar{mlir.where_suffix()}"
            )
        if axis is None:
            if x.aval.ndim > 1:
                raise ValueError(
                    f"jnp.{name}: the input array has rank {x.aval.ndim}, so axis must be "
                    f"given{mlir.where_suffix()}"
                )
            axis = 0
        axis = single_axis(axis, x.aval.ndim, name)
        if dtype is None:  # JAX's cumulative_sum widens small integers like sum; its
            # cumulative_prod keeps them (bools aside), as cumprod does
            widen = name == "cumulative_sum"
            dtype = (
                _sum_dtype(x.aval.dtype) if widen else _cumulative_dtype(x.aval.dtype, None, name)
            )
        out = impl(x, axis, dtype)
        if include_initial:
            shape = list(out.aval.shape)
            shape[axis] = 1
            out = lax.concatenate([lax.full(shape, identity, out.aval.dtype), out], axis)
        return out

    fn.__name__ = name
    return _eager(fn, static_argnames=_STATIC)


_cumulative_sum = _array_api_cumulative("cumulative_sum", _cumsum, 0)
_cumulative_prod = _array_api_cumulative("cumulative_prod", _cumprod, 1)


def cumulative_sum(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Any:
    """The Array API's running sum; `include_initial` prepends a 0."""
    return _cumulative_sum(x, static_axis(axis), dtype, include_initial)


def cumulative_prod(
    x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Any:
    """The Array API's running product; `include_initial` prepends a 1."""
    return _cumulative_prod(x, static_axis(axis), dtype, include_initial)


def _shifted_pair(a: Any, axis: int) -> tuple[Any, Any]:
    """(a[1:], a[:-1]) along `axis` (both empty when `a` is)."""
    size = a.aval.shape[axis]
    start = min(1, size)
    return lax.slice_in_dim(a, start, size, axis=axis), lax.slice_in_dim(
        a, 0, size - start, axis=axis
    )


def _as_slab(value: Any, like: Any, axis: int) -> Any:
    """`value` as an array; a scalar broadcast to `like` with size 1 along `axis`."""
    value = asarray(value)
    if value.aval.ndim == 0:
        shape = list(like.aval.shape)
        shape[axis] = 1
        return broadcast_to_shape(value, tuple(shape))
    return value


def _check_joins(value: Any, like: Any, axis: int) -> None:
    other = [d for i, d in enumerate(like.aval.shape) if i != axis]
    if (
        value.aval.ndim != like.aval.ndim
        or [d for i, d in enumerate(value.aval.shape) if i != axis] != other
    ):  # JAX's class (its concatenation's, as stablax's jnp.concatenate)
        raise TypeError(
            f"jnp.diff: prepend/append of shape {value.aval.shape} does not join an array of "
            f"shape {like.aval.shape} along axis {axis}{mlir.where_suffix()}"
        )


def _diff_impl(a, n=1, axis=-1, prepend=None, append=None):
    a = asarray(a)
    n = int_arg(n, "'n'", "jnp.diff")
    axis = int_arg(axis, "'axis'", "jnp.diff")
    if n == 0:  # before any other check, as in JAX (prepend and append are ignored, as NumPy)
        return a
    if n < 0:
        raise ValueError(f"jnp.diff: order must be non-negative but got {n}{mlir.where_suffix()}")
    if a.aval.ndim == 0:
        raise ValueError(
            f"jnp.diff requires input that is at least one dimensional{mlir.where_suffix()}"
        )
    axis = single_axis(axis, a.aval.ndim, "diff")
    # after the axis, in JAX's order (_arraylike.CHECKED_LATER)
    check_arraylike("diff", *(given for given in (prepend, append) if given is not None))
    parts = [a]
    if prepend is not None:
        prepend = asarray(prepend)
        if prepend.aval.ndim:  # first in JAX's concatenation, which reads the axis against it
            single_axis(axis, prepend.aval.ndim, "diff")
        parts.insert(0, _as_slab(prepend, a, axis))
    if append is not None:
        parts.append(_as_slab(append, a, axis))
    if len(parts) > 1:
        # JAX's concatenation promotes the dtypes before it compares the shapes.
        parts = promote_dtypes(*parts)
        for part in parts:
            _check_joins(part, a, axis)
        a = lax.concatenate(parts, axis)
    for _ in range(n):
        if a.aval.shape[axis] == 0:
            break
        later, earlier = _shifted_pair(a, axis)
        a = lax.ne(later, earlier) if a.aval.dtype == np.bool_ else lax.sub(later, earlier)
    return a


_diff = _eager(_diff_impl, static_argnames=_STATIC)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """n-th discrete difference along `axis`, after adding `prepend`/`append` (NumPy's `diff`)."""
    return _diff(a, n, axis, prepend, append)


@_eager
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with optional values before and after."""
    (ary,) = promote_dtypes(ary)
    if ary.aval.dtype == np.bool_:
        raise TypeError(f"jnp.ediff1d: boolean inputs are not supported{mlir.where_suffix()}")
    flat = lax.reshape(ary, (ary.aval.size,))
    out = _diff_impl(flat) if flat.aval.size else flat
    parts = [out]
    if to_begin is not None:
        parts.insert(0, _flat(to_begin))
    if to_end is not None:
        parts.append(_flat(to_end))
    if len(parts) == 1:
        return out
    return lax.concatenate([lax.convert_element_type(p, out.aval.dtype) for p in parts], 0)


def _flat(x: Any) -> Any:
    x = asarray(x)
    return lax.reshape(x, (x.aval.size,))


def _spacing_along(h: Any, f: Any, axis: int) -> tuple[Any, Any]:
    """(the spacing: a scalar, or the distances between points shaped to lie along `axis`;
    whether it is a scalar)."""
    h = asarray(h)
    if h.aval.ndim == 0:
        return h, True
    if h.aval.shape != (f.aval.shape[axis],):
        raise ValueError(
            f"jnp.gradient: coordinates along axis {axis} must have shape "
            f"({f.aval.shape[axis]},), got {h.aval.shape}{mlir.where_suffix()}"
        )
    later, earlier = _shifted_pair(h, 0)
    shape = [1] * f.aval.ndim
    shape[axis] = h.aval.shape[0] - 1
    return lax.reshape(lax.sub(later, earlier), tuple(shape)), False


def _gradient_along(f: Any, h: Any, axis: int) -> Any:
    size = f.aval.shape[axis]
    if size < 2:
        raise ValueError(
            "jnp.gradient: each dimension must have at least 2 elements to estimate a gradient"
            f"{mlir.where_suffix()}"
        )
    dx, uniform = _spacing_along(h, f, axis)
    dx = lax.convert_element_type(dx, f.aval.dtype)

    def part(x, start, stop):
        return lax.slice_in_dim(x, start, stop, axis=axis)

    def step(start):  # the spacing between points start and start + 1, shaped like one slab
        if uniform:
            return dx
        return broadcast_to_shape(part(dx, start, start + 1), part(f, 0, 1).aval.shape)

    first_edge = lax.div(lax.sub(part(f, 1, 2), part(f, 0, 1)), step(0))
    last = lax.sub(part(f, size - 1, size), part(f, size - 2, size - 1))
    last_edge = lax.div(last, step(size - 2))
    if size == 2:
        return lax.concatenate([first_edge, last_edge], axis)
    ahead, behind, middle = part(f, 2, size), part(f, 0, size - 2), part(f, 1, size - 1)
    if uniform:
        interior = lax.div(lax.sub(ahead, behind), lax.mul(dx, np.asarray(2, f.aval.dtype)))
    else:
        # Second-order accurate on an uneven grid (NumPy's formula).
        hd, hs = part(dx, 0, size - 2), part(dx, 1, size - 1)
        total = lax.add(hd, hs)
        a = lax.neg(lax.div(hs, lax.mul(hd, total)))
        b = lax.div(lax.sub(hs, hd), lax.mul(hd, hs))
        c = lax.div(hd, lax.mul(hs, total))
        a, b, c = (broadcast_to_shape(v, ahead.aval.shape) for v in (a, b, c))
        interior = lax.add(lax.add(lax.mul(a, behind), lax.mul(b, middle)), lax.mul(c, ahead))
    return lax.concatenate([first_edge, interior, last_edge], axis)


def _gradient_impl(f, varargs, axis=None):
    (f,) = promote_dtypes_inexact(f)
    axes = _axes(axis, f.aval.ndim, "gradient")
    if len(varargs) == 0:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and asarray(varargs[0]).aval.ndim == 0:
        spacings = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError(
            f"jnp.gradient: expected 0, 1 or {len(axes)} spacing arguments, got "
            f"{len(varargs)}{mlir.where_suffix()}"
        )
    outs = [_gradient_along(f, h, ax) for h, ax in zip(spacings, axes, strict=True)]
    return outs[0] if len(outs) == 1 else outs


_gradient = _eager(_gradient_impl, static_argnames=_STATIC)


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int | None = None) -> Any:
    """Derivative estimates by central differences inside and one-sided at the edges.

    Args:
      f: the sampled values.
      varargs: none (unit spacing), one scalar spacing for all axes, or one scalar spacing or
        1-D coordinate array per axis.
      axis: the axis or axes to differentiate along (all by default).
      edge_order: only 1 (or None) is supported, as in JAX.

    Returns:
      One array per axis (a list), or a single array when there is one axis.
    """
    if edge_order is not None and edge_order != 1:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    return _gradient(f, tuple(varargs), axis)


def _trapezoid_impl(y, x=None, dx=1.0, axis=-1):
    # NumPy's formula and broadcasting: sum(d * (y[1:] + y[:-1]) / 2) along `axis`, where d is
    # dx or diff(x) (a 1-D x laid along `axis`), broadcast against the sums from the right.
    if x is None:
        (y,) = promote_dtypes_inexact(y)
    else:  # together, as JAX (int4 y and x promote to float32)
        y, x = promote_dtypes_inexact(y, x)
    y_axis = single_axis(axis, y.aval.ndim, "trapezoid")
    later, earlier = _shifted_pair(y, y_axis)
    if x is None:
        if dx is None:
            raise TypeError(
                f"jnp.trapezoid: dx must be a number or an array, got None{mlir.where_suffix()}"
            )
        widths = lax.convert_element_type(asarray(dx), y.aval.dtype)
    else:
        if x.aval.ndim == 0:  # NumPy's and JAX's class (their diff of x)
            raise ValueError(
                f"jnp.trapezoid: x must be at least one-dimensional, got {x.aval.str_short()}"
                f"{mlir.where_suffix()}"
            )
        if x.aval.ndim == 1:
            shape = [1] * y.aval.ndim
            shape[y_axis] = x.aval.shape[0]
            x, x_axis = lax.reshape(x, tuple(shape)), y_axis
        else:
            x_axis = single_axis(axis, x.aval.ndim, "trapezoid")
        x_later, x_earlier = _shifted_pair(x, x_axis)
        widths = lax.sub(x_later, x_earlier)
        y_dtype = dtypes.result_type(widths, later)
        later, earlier, widths = (
            lax.convert_element_type(v, y_dtype) for v in (later, earlier, widths)
        )
    sums = lax.add(later, earlier)
    shape = broadcast_shapes("jnp.trapezoid", widths.aval.shape, sums.aval.shape)
    terms = lax.mul(broadcast_to_shape(widths, shape), broadcast_to_shape(sums, shape))
    total = lax.reduce_sum(terms, (axis if axis >= 0 else len(shape) + axis,))
    return lax.mul(total, np.asarray(0.5, total.aval.dtype))


_trapezoid = _eager(_trapezoid_impl, static_argnames=_STATIC)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """Integral of `y` along `axis` by the trapezoidal rule, at points `x` or spacing `dx`."""
    return _trapezoid(y, x, dx, axis)


def _unwrap_impl(p, discont=None, axis=-1, period=2 * math.pi):
    # p and period promote together (JAX's rule): integers stay integers for an integer period.
    check_arraylike("unwrap", p)
    p, period = promote_dtypes(p, period)
    if p.aval.dtype.kind == "c":
        raise ValueError(f"jnp.unwrap does not support complex inputs{mlir.where_suffix()}")
    axis = single_axis(axis, p.aval.ndim, "unwrap")
    if p.aval.shape[axis] == 0:  # the promoted p as it is: weak for ints and a Python period
        return p
    if p.aval.shape[axis] == 1:
        return lax.convert_element_type(p, p.aval.dtype, weak_type=False)  # strong, as JAX
    half = division.floor_divide(period, 2) if p.aval.dtype.kind in "iub" else lax.div(period, 2.0)
    discont = division.true_divide(period, 2) if discont is None else discont
    later, earlier = _shifted_pair(p, axis)
    dd = lax.sub(later, earlier)
    shape = dd.aval.shape
    half, period = (broadcast_to_shape(v, shape) for v in (half, period))
    low = lax.neg(half)
    wrapped = lax.add(_mod(lax.sub(dd, low), period), low)
    # A jump of exactly +period/2 stays positive, as in NumPy.
    positive = lax.gt(dd, lax.full_like(dd, 0))
    wrapped = lax.select(lax.bitwise_and(lax.eq(wrapped, low), positive), half, wrapped)
    small = broadcast_to_shape(_ufuncs.less(_ufuncs.absolute(dd), discont), shape)
    correction = lax.select(small, lax.full_like(dd, 0), lax.sub(wrapped, dd))
    head = lax.slice_in_dim(p, 0, 1, axis=axis)
    out = lax.concatenate([head, lax.add(later, lax.cumsum(correction, axis))], axis)
    return lax.convert_element_type(out, out.aval.dtype, weak_type=False)  # strong, as JAX


_unwrap = _eager(_unwrap_impl, static_argnames=_STATIC)


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * math.pi) -> Any:
    """Removes jumps larger than `discont` by adding multiples of `period` (NumPy's `unwrap`)."""
    return _unwrap(p, discont, axis, period)


__all__ = [
    "cumsum",
    "cumprod",
    "nancumsum",
    "nancumprod",
    "cumulative_sum",
    "cumulative_prod",
    "diff",
    "ediff1d",
    "gradient",
    "trapezoid",
    "unwrap",
]
