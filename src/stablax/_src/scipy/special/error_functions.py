"""Error functions and the normal distribution: erf, erfc, erfinv, erfcx, the Faddeeva function
wofz, Dawson's integral, ndtr, ndtri, log_ndtr and Owen's T function.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.scipy import args as _args
from stablax._src.scipy.args import const, horner, inexact_args, is_complex
from stablax._src.scipy.special import cephes

_SQRT_PI = math.sqrt(math.pi)


def erf(x: Any) -> Any:
    """The error function `2/sqrt(pi) int_0^x exp(-t^2) dt` (`lax.erf`).

    Args:
      x: input array.

    Returns:
      `erf(x)`, as `scipy.special.erf`.
    """
    (x,) = inexact_args("erf", x)
    return lax.erf(x)


def erfc(x: Any) -> Any:
    """The complementary error function `1 - erf(x)` (`lax.erfc`), accurate for large `x`.

    Args:
      x: input array.

    Returns:
      `erfc(x)`, as `scipy.special.erfc`.
    """
    (x,) = inexact_args("erfc", x)
    return lax.erfc(x)


def erfinv(x: Any) -> Any:
    """The inverse error function (`lax.erf_inv`).

    Args:
      x: input array in [-1, 1].

    Returns:
      `y` with `erf(y) == x`, as `scipy.special.erfinv`.
    """
    (x,) = inexact_args("erfinv", x)
    return lax.erf_inv(x)


# --- the Faddeeva function w(z) = exp(-z^2) erfc(-iz) ------------------------------------------

_WEIDEMAN_L = math.sqrt(32 / math.sqrt(2))  # sqrt(N / sqrt(2)) for N = 32 terms


def _wofz_upper(z):
    # Weideman (1994): for Im z >= 0, with Z = (L + iz)/(L - iz),
    # w(z) = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)).
    iz = lax.complex(-jnp.imag(z), jnp.real(z))
    denominator = _WEIDEMAN_L - iz
    p = horner(cephes.WOFZ_WEIDEMAN_32, (_WEIDEMAN_L + iz) / denominator)
    return 2 * p / (denominator * denominator) + const(z, 1 / _SQRT_PI) / denominator


def _wofz_impl(z):
    upper = jnp.imag(z) >= 0
    w_upper = _wofz_upper(jnp.where(upper, z, -z))
    # w(-z) = 2 exp(-z^2) - w(z) reflects the lower half-plane.
    return jnp.where(upper, w_upper, 2 * jnp.exp(-z * z) - w_upper)


_wofz = custom_jvp(_wofz_impl)
_wofz.defjvps(lambda g, ans, z: g * (-2 * z * ans + const(z, 2j / _SQRT_PI)))


def wofz(z: Any) -> Any:
    """The Faddeeva function `w(z) = exp(-z^2) erfc(-i z)`.

    Args:
      z: input array (promoted to complex).

    Returns:
      `w(z)`, as `scipy.special.wofz`.
    """
    (z,) = inexact_args("wofz", z)
    if not is_complex(z):
        z = z.astype(np.result_type(z.dtype, np.complex64))
    return _wofz(z)


# --- scaled complementary error function ----------------------------------------------------------


def _erfcx_asymptotic(x, terms):
    # erfcx(x) ~ 1/(x sqrt(pi)) sum_n (-1)^n (2n-1)!! / (2 x^2)^n.
    coefficients = [(-1) ** n * math.prod(range(1, 2 * n, 2)) / 2**n for n in range(terms)]
    return horner(coefficients[::-1], 1 / (x * x)) / (x * const(x, _SQRT_PI))


def _erfcx_real(x):
    if x.dtype not in (np.float32, np.float64):
        return _erfcx_real(x.astype(np.float32)).astype(x.dtype)
    terms = 9 if x.dtype == np.float64 else 5
    threshold = math.sqrt(math.log(float(dtypes.finfo(x.dtype).max)))
    large = x > threshold
    safe = jnp.where(large, const(x, 1), x)
    return jnp.where(large, _erfcx_asymptotic(x, terms), jnp.exp(safe * safe) * lax.erfc(safe))


_erfcx = custom_jvp(_erfcx_real)
_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - const(x, 2 / _SQRT_PI)))


def erfcx(x: Any) -> Any:
    """The scaled complementary error function `exp(x^2) erfc(x)`, without overflow for large x.

    Args:
      x: real or complex input array.

    Returns:
      `erfcx(x)`, as `scipy.special.erfcx`.
    """
    (x,) = inexact_args("erfcx", x)
    if is_complex(x):
        return _wofz(lax.complex(-jnp.imag(x), jnp.real(x)))
    return _erfcx(x)


# --- Dawson's integral ----------------------------------------------------------------------------


def _dawsn_impl(x):
    if x.dtype not in (np.float32, np.float64):
        return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)
    ax = jnp.abs(x)
    small = ax < 3.25
    middle = (ax >= 3.25) & (ax < 6.25)
    # Each branch sees safe arguments so the unused ones cannot produce NaN or overflow.
    ax_small = jnp.where(small, ax, const(x, 1))
    x2 = ax_small * ax_small
    near = ax_small * horner(cephes.DAWSN_AN, x2) / horner(cephes.DAWSN_AD, x2)
    ax_far = jnp.where(small, const(x, 4), ax)
    t = 1 / (ax_far * ax_far)
    mid = (0.5 / ax_far) * (1 + t * horner(cephes.DAWSN_BN, t) / horner(cephes.DAWSN_BD, t))
    far = (0.5 / ax_far) * (1 + t * horner(cephes.DAWSN_CN, t) / horner(cephes.DAWSN_CD, t))
    value = jnp.where(small, near, jnp.where(middle, mid, far))
    return jnp.sign(x) * value


_dawsn = custom_jvp(_dawsn_impl)
_dawsn.defjvps(lambda g, ans, x: g * (1 - 2 * x * ans))


def dawsn(x: Any) -> Any:
    """Dawson's integral `exp(-x^2) int_0^x exp(t^2) dt` (Cephes' rational approximations).

    Args:
      x: real input array.

    Returns:
      `F(x)`, as `scipy.special.dawsn`.
    """
    (x,) = inexact_args("dawsn", x)
    _args.reject_complex("dawsn", x)
    return _dawsn(x)


# --- the normal distribution function and its inverse ---------------------------------------------


def _float_dtype_only(name: str, x: Any) -> Any:
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    return x


def _ndtr(x):
    half_sqrt2 = const(x, 0.5 * math.sqrt(2))
    w = x * half_sqrt2
    z = jnp.abs(w)
    # erf near 0, erfc in the tails, so neither tail loses its relative accuracy.
    y = jnp.where(z < half_sqrt2, 1 + lax.erf(w), jnp.where(w > 0, 2 - lax.erfc(z), lax.erfc(z)))
    return 0.5 * y


def ndtr(x: Any) -> Any:
    """The standard normal cumulative distribution function.

    Args:
      x: float32 or float64 array.

    Returns:
      `Phi(x)`, as `scipy.special.ndtr`.
    """
    return _ndtr(_float_dtype_only("ndtr", x))


@jit
def _ndtri(p):
    exp_m2 = math.exp(-2.0)
    upper = p > 1 - exp_m2
    q = jnp.where(upper, 1 - p, p)
    q = jnp.where(q == 0, const(p, 0.5), q)
    # Central region: a rational function of (q - 1/2)^2.
    w = q - 0.5
    ww = w * w
    central = -(w + w * ww * horner(cephes.NDTRI_P0, ww) / horner(cephes.NDTRI_Q0, ww))
    central = central * const(p, math.sqrt(2 * math.pi))
    # Tails: sqrt(-2 log q) corrected by rational functions of its reciprocal.
    z = jnp.sqrt(-2.0 * jnp.log(q))
    first = z - jnp.log(z) / z
    rz = 1 / z
    far = first - horner(cephes.NDTRI_P2, rz) / horner(cephes.NDTRI_Q2, rz) / z
    near = first - horner(cephes.NDTRI_P1, rz) / horner(cephes.NDTRI_Q1, rz) / z
    tail = jnp.where(z >= 8.0, far, near)
    x = jnp.where(q > exp_m2, central, tail)
    x = jnp.where(upper, x, -x)
    inf = const(p, np.inf)
    return jnp.where(p == 0, -inf, jnp.where(p == 1, inf, x))


def ndtri(p: Any) -> Any:
    """The inverse of the standard normal cdf (Cephes' algorithm).

    Args:
      p: float32 or float64 probabilities.

    Returns:
      `x` with `ndtr(x) == p` (-inf at 0, inf at 1, NaN outside [0, 1]), as
      `scipy.special.ndtri`.
    """
    return _ndtri(_float_dtype_only("ndtri", p))


_LOG_NDTR_BOUNDS = {np.dtype(np.float32): (-10.0, 5.0), np.dtype(np.float64): (-20.0, 8.0)}


def _log_ndtr_asymptotic(x, series_order):
    # log Phi(x) for x -> -inf: -x^2/2 - log(-x) - log(2 pi)/2
    #   + log(1 + sum_{n=1}^{order} (-1)^n (2n - 1)!! / x^(2n)).
    x2 = x * x
    log_scale = -0.5 * x2 - jnp.log(-x) - const(x, 0.5 * math.log(2 * math.pi))
    series = jnp.ones_like(x)
    power = x2
    for n in range(1, series_order + 1):
        series = series + const(x, (-1) ** n * math.prod(range(1, 2 * n, 2))) / power
        power = power * x2
    return log_scale + jnp.log(series)


def _log_ndtr_impl(x, series_order):
    lower, upper = _LOG_NDTR_BOUNDS[x.dtype]
    above = x > upper
    # log(1 - y) ~ -y for the small upper tail y = Phi(-x).
    phi = _ndtr(jnp.where(above, -x, jnp.maximum(x, const(x, lower))))
    # For x > 0, log1p of the upper tail keeps the digits that log(1 - tiny) would lose.
    middle = jnp.where(x > 0, jnp.log1p(-_ndtr(-jnp.abs(x))), jnp.log(phi))
    far_left = _log_ndtr_asymptotic(jnp.minimum(x, const(x, lower)), series_order)
    return jnp.where(above, -phi, jnp.where(x > lower, middle, far_left))


_log_ndtr = custom_jvp(_log_ndtr_impl, nondiff_argnums=(1,))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    out = _log_ndtr_impl(x, series_order)
    log_density = -0.5 * x * x - const(x, 0.5 * math.log(2 * math.pi))
    return out, t * jnp.exp(log_density - out)


def log_ndtr(x: Any, series_order: int = 3) -> Any:
    """Log of the standard normal cdf, accurate far into both tails.

    Args:
      x: float32 or float64 array.
      series_order: terms of the asymptotic series used below -20 (float64) or -10 (float32);
        a Python int in [0, 30].

    Returns:
      `log Phi(x)`, as `scipy.special.log_ndtr`.
    """
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = jnp.asarray(x)
    if x.dtype not in _LOG_NDTR_BOUNDS:
        raise TypeError(f"x.dtype={np.dtype(x.dtype)} is not supported.")
    return _log_ndtr(x, series_order)


# --- Owen's T function -----------------------------------------------------------------------


def _owens_quadrature():
    # T(h, a) = a/(2 pi) int_0^1 exp(-h^2 (1 + a^2 t^2)/2) / (1 + a^2 t^2) dt, by the positive
    # half of a 26-point Gauss-Legendre rule on [-1, 1] (nodes t_i, integrand in t_i^2).
    nodes, weights = np.polynomial.legendre.leggauss(26)
    positive = nodes > 0
    return nodes[positive] ** 2, weights[positive] / (2 * np.pi)


_OWENS_T_NODES, _OWENS_T_WEIGHTS = _owens_quadrature()


def _owens_t_quadrature(h, a):
    r = (a * a)[..., None] * _OWENS_T_NODES.astype(a.dtype)
    integrand = jnp.exp(-0.5 * (h * h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * jnp.sum(integrand * _OWENS_T_WEIGHTS.astype(a.dtype), axis=-1)


def _owens_t_impl(h, a):
    h_abs, a_abs = jnp.abs(h), jnp.abs(a)
    sqrt2 = const(h, math.sqrt(2))
    h_scaled = h_abs / sqrt2
    # |a| > 1 uses T(h, a) = (Phi(h) + Phi(ah))/2 - Phi(h)Phi(ah) - T(ah, 1/a) (for h >= 0).
    small_a = a_abs <= 1
    a_mod = jnp.where(small_a, a_abs, 1 / a_abs)
    h_mod = jnp.where(small_a, h_abs, a_abs * h_abs)
    t = _owens_t_quadrature(h_mod, a_mod)
    t = jnp.where(h_mod == 0, jnp.arctan(a_mod) / (2 * np.pi), t)
    t = jnp.where(a_mod == 1, 0.125 * lax.erfc(-h_mod / sqrt2) * lax.erfc(h_mod / sqrt2), t)
    upper_h = lax.erfc(h_scaled)
    upper_ah = lax.erfc(a_abs * h_scaled)
    reflected = jnp.where(
        a_abs * h_abs <= 0.67,
        0.25 - 0.25 * lax.erf(h_scaled) * lax.erf(a_abs * h_scaled) - t,
        0.25 * (upper_h + upper_ah - upper_h * upper_ah) - t,
    )
    value = jnp.sign(a) * jnp.where(small_a, t, reflected)
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), const(value, np.nan), value)


_owens_t = custom_jvp(_owens_t_impl)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    out = _owens_t_impl(h, a)
    sqrt2 = const(h, math.sqrt(2))
    d_by_h = -jnp.exp(-0.5 * h * h) * lax.erf(a * h / sqrt2) / (2 * const(h, math.sqrt(2 * np.pi)))
    d_by_a = jnp.exp(-0.5 * (a * a + 1) * h * h) / (2 * np.pi * (a * a + 1))
    return out, (d_by_h * dh + d_by_a * da).astype(out.dtype)


def owens_t(h: Any, a: Any) -> Any:
    """Owen's T function `1/(2 pi) int_0^a exp(-h^2 (1 + x^2)/2) / (1 + x^2) dx`.

    Args:
      h: real input array.
      a: real input array.

    Returns:
      `T(h, a)`, as `scipy.special.owens_t`.
    """
    h, a = inexact_args("owens_t", h, a)
    return _owens_t(h, a)
