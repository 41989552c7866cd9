"""Spence's function (the dilogarithm) and the Fresnel integrals, after Cephes."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.scipy.args import const, horner, inexact_args
from stablax._src.scipy.special import cephes

_PI2_6 = np.pi**2 / 6


@jit
def _spence(x):
    # spence(x) = int_1^x log(t) / (1 - t) dt, reduced to w in [-1/2, 1/2] where a rational
    # function fits: x > 2 through x -> 1/x, x > 1.5 through 1/x - 1, x < 1/2 through -x.
    bad = (x < 0) | (x == 0) | (x == 1) | jnp.isnan(x)
    xs = jnp.where(bad, const(x, 1.25), x)
    inverted = xs > 2.0
    xs = jnp.where(inverted, 1.0 / xs, xs)
    above = xs > 1.5
    below = xs < 0.5
    w = jnp.where(above, 1.0 / xs - 1.0, jnp.where(below, -xs, xs - 1.0))
    y = -w * horner(cephes.SPENCE_A, w) / horner(cephes.SPENCE_B, w)
    y = jnp.where(below, _PI2_6 - jnp.log(xs) * jnp.log(1.0 - xs) - y, y)
    log_x = jnp.log(xs)
    y = jnp.where(inverted | above, -0.5 * log_x * log_x - y, y)
    y = jnp.where(x == 1, jnp.zeros_like(y), y)
    y = jnp.where(x == 0, const(x, _PI2_6), y)
    return jnp.where((x < 0) | jnp.isnan(x), const(x, np.nan), y)


def spence(x: Any) -> Any:
    """Spence's function `int_1^x log(t) / (1 - t) dt` for x >= 0 (NaN for x < 0).

    Args:
      x: float32 or float64 array.

    Returns:
      `spence(x)`, as `scipy.special.spence` for real arguments.
    """
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    return _spence(x)


def _sin_cos_half_pi_square(x):
    # sin and cos of pi x^2 / 2 with the argument reduced exactly: for s = x mod 2,
    # x^2 / 2 = s (x - s/2) (mod 2), so no precision is lost for large x.
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sin = jnp.where(
        r < 0.5,
        jnp.sin(np.pi * r),
        jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))),
    )
    cos = jnp.where(
        r == 0.5,
        jnp.zeros_like(r),
        jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)), jnp.sin(np.pi * (r - 1.5))),
    )
    return sin, cos


def _fresnel_impl(x):
    original = x.dtype
    if original not in (np.float32, np.float64):
        x = x.astype(np.float32)
    double = x.dtype == np.float64
    ax = jnp.abs(x)
    x2 = ax * ax
    # Small |x|: power series in x^4 (a rational function in double precision).
    t = x2 * x2
    if double:
        s_small = ax * x2 * horner(cephes.FRESNEL64_SN, t) / horner(cephes.FRESNEL64_SD, t)
        c_small = ax * horner(cephes.FRESNEL64_CN, t) / horner(cephes.FRESNEL64_CD, t)
    else:
        s_small = ax * x2 * horner(cephes.FRESNEL32_SN, t)
        c_small = ax * horner(cephes.FRESNEL32_CN, t)
    # Otherwise: auxiliary functions f, g of 1 / (pi x^2).
    sin, cos = _sin_cos_half_pi_square(ax)
    pix2 = np.pi * x2
    u = 1.0 / (pix2 * pix2)
    inv = 1.0 / pix2
    if double:
        f = 1.0 - u * horner(cephes.FRESNEL64_FN, u) / horner(cephes.FRESNEL64_FD, u)
        g = inv * horner(cephes.FRESNEL64_GN, u) / horner(cephes.FRESNEL64_GD, u)
        c_large = 0.5 + sin / (np.pi * ax)
        s_large = 0.5 - cos / (np.pi * ax)
    else:
        f = 1.0 - u * horner(cephes.FRESNEL32_FN, u)
        g = inv * horner(cephes.FRESNEL32_GN, u)
        c_large = s_large = jnp.full_like(ax, 0.5)
    pix = np.pi * ax
    c_mid = 0.5 + (f * sin - g * cos) / pix
    s_mid = 0.5 - (f * cos + g * sin) / pix
    small, large, infinite = x2 < 2.5625, ax > 36974.0, jnp.isinf(x)
    half = jnp.full_like(ax, 0.5)
    s = jnp.where(infinite, half, jnp.where(small, s_small, jnp.where(large, s_large, s_mid)))
    c = jnp.where(infinite, half, jnp.where(small, c_small, jnp.where(large, c_large, c_mid)))
    negative = x < 0
    s, c = jnp.where(negative, -s, s), jnp.where(negative, -c, c)
    return s.astype(original), c.astype(original)


_fresnel = custom_jvp(_fresnel_impl)


@_fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    sin, cos = _sin_cos_half_pi_square(x)
    return _fresnel_impl(x), (sin * dx, cos * dx)


def fresnel(x: Any) -> tuple[Any, Any]:
    """The Fresnel integrals `S(x) = int_0^x sin(pi t^2/2) dt`, `C(x) = int_0^x cos(pi t^2/2) dt`.

    Args:
      x: real input array (float16/bfloat16 are computed in float32).

    Returns:
      `(S(x), C(x))`, as `scipy.special.fresnel` for real arguments.
    """
    (x,) = inexact_args("fresnel", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    return _fresnel(x)
