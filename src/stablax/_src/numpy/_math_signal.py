"""1-D signal helpers: convolve and correlate (one `stablehlo.convolution`), interp, select."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import sequence
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import (
    broadcast_shapes,
    broadcast_to_shape,
    promote_dtypes,
    promote_dtypes_inexact,
)
from stablax._src.numpy._sorting import searchsorted
from stablax._src.numpy._ufuncs import _to_bool
from stablax._src.numpy._ufuncs_division import _mod

_MODES = ("full", "same", "valid")


def _correlate_1d(a, v, mode, precision, preferred_element_type):
    # Inputs are promoted 1-D arrays with len(a) >= len(v); this is sum_k a[n + k] * v[k].
    n, m = a.aval.shape[0], v.aval.shape[0]
    if mode == "full":
        padding = (m - 1, m - 1)
    elif mode == "same":
        padding = (m // 2, m - 1 - m // 2)
    else:
        padding = (0, 0)
    out = lax.conv_general_dilated(
        lax.reshape(a, (1, 1, n)),
        lax.reshape(v, (1, 1, m)),
        (1,),
        [padding],
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
    return lax.reshape(out, (out.aval.shape[2],))


def _conv_impl(a, v, mode, precision, preferred_element_type, name, flip_kernel):
    a, v = asarray(a), asarray(v)  # the arrays first, then mode: JAX's order
    if mode not in _MODES:
        raise ValueError(
            f"jnp.{name}: mode must be one of {_MODES}, got {mode!r}{mlir.where_suffix()}"
        )
    # As JAX: inexact by default (NumPy's convolutions), the operands' own type with a
    # preferred_element_type (integers and bools then accumulate in it).
    a, v = promote_dtypes_inexact(a, v) if preferred_element_type is None else promote_dtypes(a, v)
    if a.aval.ndim != 1 or v.aval.ndim != 1:
        raise ValueError(
            f"jnp.{name}() only supports 1-dimensional inputs, got shapes {a.aval.shape} and "
            f"{v.aval.shape}{mlir.where_suffix()}"
        )
    if a.aval.shape[0] == 0 or v.aval.shape[0] == 0:
        raise ValueError(f"jnp.{name}: inputs cannot be empty{mlir.where_suffix()}")
    swapped = v.aval.shape[0] > a.aval.shape[0]
    if swapped:  # the longer array slides under the shorter one
        a, v = v, a
    if flip_kernel:  # convolution is symmetric: correlate with the reversed kernel
        return _correlate_1d(a, lax.rev(v, (0,)), mode, precision, preferred_element_type)
    if a.aval.dtype.kind == "c":  # correlate(a, v) = sum_k a[n + k] conj(v[k])
        if swapped:
            a = lax.conj(a)
        else:
            v = lax.conj(v)
    out = _correlate_1d(a, v, mode, precision, preferred_element_type)
    # With the operands exchanged, correlate(a, v) = reversed correlate(v, a), conjugated; the
    # conjugation is already folded into conj(a) above.
    return lax.rev(out, (0,)) if swapped else out


_conv = _eager(
    _conv_impl,
    static_argnames=("mode", "precision", "preferred_element_type", "name", "flip_kernel"),
)


def convolve(
    a: Any,
    v: Any,
    mode: str = "full",
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """Discrete linear convolution of two 1-D arrays (NumPy's `convolve`).

    Args:
      a, v: 1-D arrays (integers are promoted to floats, as in JAX).
      mode: "full" (length n + m - 1), "same" (length max(n, m)) or "valid".
      precision: a `lax.Precision` for the underlying `stablehlo.convolution`.
      preferred_element_type: the accumulation/result dtype.
    """
    return _conv(a, v, mode, precision, preferred_element_type, "convolve", True)


def correlate(
    a: Any,
    v: Any,
    mode: str = "valid",
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """Cross-correlation of two 1-D arrays, sum_k a[n + k] * conj(v[k]) (NumPy's `correlate`)."""
    return _conv(a, v, mode, precision, preferred_element_type, "correlate", False)


def _searchsorted_right(xp: Any, x: Any) -> Any:
    """JAX's binary search: the same segment as JAX even where xp is not sorted (a count of
    xp <= x gives another one there)."""
    flat = lax.reshape(x, (x.aval.size,))
    return lax.convert_element_type(searchsorted(xp, flat, side="right"), np.int32)


def _take(values: Any, index: Any) -> Any:
    return lax.index_take(values, [index], [0])


def _interp_impl(x, xp, fp, left=None, right=None, period=None):
    x, xp = asarray(x), asarray(xp)
    fp = asarray(fp)
    if xp.aval.ndim != 1 or fp.aval.ndim != 1 or xp.aval.shape != fp.aval.shape:
        raise ValueError(
            f"jnp.interp: xp and fp must be one-dimensional arrays of equal size, got "
            f"{xp.aval.shape} and {fp.aval.shape}{mlir.where_suffix()}"
        )
    if xp.aval.shape[0] == 0:  # NumPy's check and class (JAX fails indexing the empty xp)
        raise ValueError(f"jnp.interp: the array of sample points is empty{mlir.where_suffix()}")
    (x, xp) = promote_dtypes_inexact(x, xp)
    (fp,) = promote_dtypes_inexact(fp)
    if x.aval.dtype.kind == "c":  # JAX's class
        raise ValueError(f"jnp.interp: complex x values are not supported{mlir.where_suffix()}")
    fp = promote_dtypes(x, fp)[1]  # the result's type is x's and fp's together, as JAX
    if period is not None:
        period = lax.abs(lax.convert_element_type(asarray(period), x.aval.dtype))
        x = _mod(x, broadcast_to_shape(period, x.aval.shape))
        xp = _mod(xp, broadcast_to_shape(period, xp.aval.shape))
        xp, fp = lax.sort_key_val(xp, fp, 0)
        xp = lax.concatenate([lax.sub(xp[-1:], period), xp, lax.add(xp[:1], period)], 0)
        fp = lax.concatenate([fp[-1:], fp, fp[:1]], 0)
    shape = x.aval.shape
    size = xp.aval.shape[0]
    hi = lax.clamp(np.int32(1), _searchsorted_right(xp, x), np.int32(max(size - 1, 1)))
    lo = lax.sub(hi, np.int32(1))
    x_lo, x_hi, f_lo, f_hi = _take(xp, lo), _take(xp, hi), _take(fp, lo), _take(fp, hi)
    flat = lax.reshape(x, (x.aval.size,))
    dx = lax.sub(x_hi, x_lo)
    # A segment narrower than the spacing of eps is flat: it gives its left value (as JAX;
    # only unsorted or repeated sample points make one) and divides by 1, for no NaN gradient.
    eps = dtypes.finfo(xp.aval.dtype)
    flat_dx = lax.le(lax.abs(dx), lax.full_like(dx, np.spacing(eps.eps)))
    # JAX's order, (x - x_lo) / dx first, for its rounding
    ratio = lax.div(lax.sub(flat, x_lo), lax.select(flat_dx, lax.full_like(dx, 1), dx))
    ratio = lax.convert_element_type(ratio, fp.aval.dtype)
    f = lax.add(f_lo, lax.mul(ratio, lax.sub(f_hi, f_lo)))
    f = lax.select(flat_dx, f_lo, f)
    if period is None:
        if not (isinstance(left, str) and left == "extrapolate"):
            fill = _take(fp, lax.full_like(lo, 0)) if left is None else _fill(left, f)
            f = lax.select(lax.lt(flat, _take(xp, lax.full_like(lo, 0))), fill, f)
        if not (isinstance(right, str) and right == "extrapolate"):
            fill = _take(fp, lax.full_like(lo, size - 1)) if right is None else _fill(right, f)
            f = lax.select(lax.gt(flat, _take(xp, lax.full_like(lo, size - 1))), fill, f)
    return lax.reshape(f, shape)


def _fill(value: Any, like: Any) -> Any:
    return broadcast_to_shape(
        lax.convert_element_type(asarray(value), like.aval.dtype), like.aval.shape
    )


_interp_jit = _eager(_interp_impl, static_argnames=())


def interp(
    x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None
) -> Any:
    """Piecewise-linear interpolation of (xp, fp) at x (NumPy's `interp`).

    `left`/`right` give the values below xp[0] and above xp[-1] (default fp[0], fp[-1]), or
    "extrapolate" to extend the end segments; `period` interpolates a periodic function.
    """
    for name, bound in (("left", left), ("right", right)):
        if isinstance(bound, str) and bound != "extrapolate":
            raise ValueError(f"jnp.interp: {name}={bound!r} is not a valid option")
    if isinstance(left, str) or isinstance(right, str):
        return _interp_static(x, xp, fp, left, right, period)
    return _interp_jit(x, xp, fp, left, right, period)


_interp_static = _eager(_interp_impl, static_argnames=("left", "right"))


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """Elementwise the choice of the first true condition, else `default` (NumPy's `select`)."""
    condlist = sequence(condlist, "condlist", "jnp.select")
    choicelist = sequence(choicelist, "choicelist", "jnp.select")
    if len(condlist) != len(choicelist):
        raise ValueError(
            "jnp.select: condlist must have length equal to choicelist "
            f"({len(condlist)} vs {len(choicelist)})"
        )
    if len(condlist) == 0:
        raise ValueError("jnp.select: condlist must be non-empty")
    return _select(list(condlist), list(choicelist), default)


@_eager
def _select(condlist, choicelist, default):
    conds = [asarray(c) for c in condlist]  # any dtype: nonzero is true, as in JAX
    values = promote_dtypes(default, *choicelist)
    shape = broadcast_shapes(
        "jnp.select", *[asarray(v).aval.shape for v in values], *[c.aval.shape for c in conds]
    )
    out = broadcast_to_shape(values[0], shape)
    for cond, value in reversed(list(zip(conds, values[1:], strict=True))):
        out = lax.select(
            broadcast_to_shape(_to_bool(cond), shape), broadcast_to_shape(value, shape), out
        )
    return out


__all__ = ["convolve", "correlate", "interp", "select"]
