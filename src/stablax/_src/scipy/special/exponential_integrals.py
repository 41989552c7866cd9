"""Exponential and trigonometric integrals: Ei (expi), E_n (expn, exp1) and Si/Ci (sici), after
Cephes: rational approximations by range, a power series and a continued fraction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.lax._control_flow_while import while_loop
from stablax._src.scipy.args import const, horner, inexact_args, reject_complex
from stablax._src.scipy.special import cephes

_EULER = float(np.euler_gamma)

# (upper end of the range, numerator, denominator) of Ei(x) = e^x/x (1 + A(1/x)/B(1/x)/x).
_EI_RANGES = (
    (4.0, cephes.EI_2_4_A, cephes.EI_2_4_B),
    (8.0, cephes.EI_4_8_A, cephes.EI_4_8_B),
    (16.0, cephes.EI_8_16_A, cephes.EI_8_16_B),
    (32.0, cephes.EI_16_32_A, cephes.EI_16_32_B),
    (64.0, cephes.EI_32_64_A, cephes.EI_32_64_B),
    (np.inf, cephes.EI_64_INF_A, cephes.EI_64_INF_B),
)


def _expi_positive(x):
    # (0, 2]: Ei(x) = gamma + log x + x A(x)/B(x); beyond, one rational function per octave.
    x_small = jnp.where(x <= 2, x, const(x, 1))
    small = (
        x_small * horner(cephes.EI_0_2_A, x_small) / horner(cephes.EI_0_2_B, x_small)
        + _EULER
        + jnp.log(x_small)
    )
    x_large = jnp.where(x > 2, x, const(x, 4))
    w = 1 / x_large
    result = small
    lower = 2.0
    for upper, numerator, denominator in _EI_RANGES:
        piece = jnp.exp(x_large) * w * (1 + w * horner(numerator, w) / horner(denominator, w))
        result = jnp.where((x > lower) & (x <= upper), piece, result)
        lower = upper
    return result


def _expi_impl(x):
    negative = x < 0
    positive = _expi_positive(jnp.where(negative, const(x, 1), x))
    from_exp1 = -_expn_value(jnp.ones_like(x), jnp.where(negative, -x, const(x, 1)))
    value = jnp.where(negative, from_exp1, positive)
    return jnp.where(x == 0, const(x, -np.inf), value)


_expi = custom_jvp(jit(_expi_impl))
_expi.defjvps(lambda dx, ans, x: jnp.exp(x) / x * dx)


def expi(x: Any) -> Any:
    """The exponential integral `Ei(x) = -PV int_{-x}^inf exp(-t)/t dt`.

    Args:
      x: real input array.

    Returns:
      `Ei(x)` (-inf at 0), as `scipy.special.expi`.
    """
    (x,) = inexact_args("expi", x)
    reject_complex("expi", x)
    return _expi(x)


def _expn_series(n, x):
    # x <= 1: E_n(x) = (-x)^(n-1)/(n-1)! (psi(n) - log x) - sum_{k != n-1} (-x)^k / (k! (k-n+1)).
    eps = float(dtypes.finfo(x.dtype).eps)
    one = jnp.ones_like(x)
    psi = -_EULER - jnp.log(x)

    def harmonic(state):
        i, total = state
        return i + 1, total + jnp.where(i < n, one / i, jnp.zeros_like(total))

    _, psi = while_loop(lambda s: jnp.any(s[0] < n), harmonic, (one, psi))
    n_safe = jnp.where(n == 1, const(n, 2), n)
    init = (
        jnp.zeros_like(x),  # k
        one,  # (-x)^k / k!
        1 - n,  # k - n + 1
        jnp.where(n == 1, jnp.zeros_like(x), one / (1 - n_safe)),
        (x > 0) & ~jnp.isnan(x),
    )

    def body(state):
        k, term, denominator, total, active = state
        k = k + 1
        term = term * (-x) / k
        denominator = denominator + 1
        increment = jnp.where(denominator != 0, term / denominator, jnp.zeros_like(term))
        new_total = total + increment
        converged = jnp.abs(jnp.where(new_total != 0, term / new_total, one)) <= eps
        keep = lambda new, old: jnp.where(active, new, old)  # noqa: E731
        return (
            keep(k, state[0]),
            keep(term, state[1]),
            keep(denominator, state[2]),
            keep(new_total, total),
            active & ~converged,
        )

    _, _, _, total, _ = while_loop(lambda s: jnp.any(s[4]), body, init)
    return (-x) ** (n - 1) * psi / jnp.exp(lax.lgamma(n)) - total


def _expn_continued_fraction(n, x):
    # x > 1: E_n(x) = e^-x / (x + n / (1 + 1 / (x + (n + 1) / (1 + 2 / (x + ...))))).
    eps = float(dtypes.finfo(x.dtype).eps)
    big = const(x, 1.44115188075855872e17)
    one = jnp.ones_like(x)
    init = (one, one, x, one, x + n, one / (x + n), x > 0)

    def body(state):
        k, p2, q2, p1, q1, answer, active = state
        k = k + 1
        odd = lax.rem(k, const(k, 2)) == 1
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - 1) / 2, k / 2)
        p = p1 * yk + p2 * xk
        q = q1 * yk + q2 * xk
        nonzero = q != 0
        ratio = jnp.where(nonzero, p / jnp.where(nonzero, q, one), answer)
        change = jnp.where(nonzero, jnp.abs((answer - ratio) / ratio), one)
        scale = jnp.where(jnp.abs(p) > big, 1 / big, one)
        keep = lambda new, old: jnp.where(active, new, old)  # noqa: E731
        return (
            keep(k, state[0]),
            keep(p1 * scale, p2),
            keep(q1 * scale, q2),
            keep(p * scale, p1),
            keep(q * scale, q1),
            keep(ratio, answer),
            active & (change > eps),
        )

    answer = while_loop(lambda s: jnp.any(s[6]), body, init)[5]
    return answer * jnp.exp(-x)


def _expn_asymptotic(n, x):
    # n >= 5000: E_n(x) ~ e^-x/(x+n) (1 + n/(x+n)^2 + n(n-2x)/(x+n)^4 + n(6x^2-8nx+n^2)/(x+n)^6).
    xk = x + n
    yk = 1 / (xk * xk)
    answer = yk * n * (6 * x * x - 8 * n * x + n * n)
    answer = yk * (answer + n * (n - 2 * x))
    answer = yk * (answer + n)
    return (answer + 1) * jnp.exp(-x) / xk


def _expn_value(n, x):
    invalid = (n < 0) | (x < 0) | jnp.isnan(x) | jnp.isnan(n)
    at_zero = x == 0
    use_fraction = x > 1
    x_series = jnp.where(use_fraction | at_zero | invalid, const(x, 0.5), x)
    x_fraction = jnp.where(use_fraction, x, const(x, 2))
    n_safe = jnp.where(invalid, jnp.ones_like(n), n)
    value = jnp.where(
        use_fraction,
        _expn_continued_fraction(n_safe, x_fraction),
        _expn_series(n_safe, x_series),
    )
    value = jnp.where(n >= 5000, _expn_asymptotic(n_safe, x), value)
    value = jnp.where(n == 0, jnp.exp(-x) / x, value)
    n_minus_1 = jnp.where(n < 2, const(n, 1), n - 1)
    value = jnp.where(at_zero, jnp.where(n < 2, const(x, np.inf), 1 / n_minus_1), value)
    return jnp.where(invalid, const(x, np.nan), value)


_expn = custom_jvp(jit(_expn_value))


@_expn.defjvp
def _expn_jvp(primals, tangents):
    # E_n' = -E_{n-1}; the order is discrete, so it gets no derivative.
    (n, x), (_, dx) = primals, tangents
    return _expn_value(n, x), -dx * _expn_value(n - 1, x)


def expn(n: Any, x: Any) -> Any:
    """The generalised exponential integral `E_n(x) = int_1^inf exp(-x t) / t^n dt`.

    Args:
      n: non-negative integer orders.
      x: non-negative real input array.

    Returns:
      `E_n(x)` (NaN for negative n or x), as `scipy.special.expn`.
    """
    n, x = inexact_args("expn", n, x)
    reject_complex("expn", x)
    return _expn(n, x)


def exp1(x: Any) -> Any:
    """The exponential integral `E_1(x) = int_x^inf exp(-t)/t dt`.

    Args:
      x: non-negative real input array.

    Returns:
      `E_1(x)`, as `scipy.special.exp1`.
    """
    (x,) = inexact_args("exp1", x)
    reject_complex("exp1", x)
    return _expn(jnp.ones_like(x), x)


def _sici_impl(x):
    ax = jnp.abs(x)
    # |x| <= 4: rational functions of x^2.
    small = jnp.where(ax <= 4, ax, const(x, 1))
    t = small * small
    si_small = small * horner(cephes.SICI_SN, t) / horner(cephes.SICI_SD, t)
    ci_small = _EULER + jnp.log(small) + t * horner(cephes.SICI_CN, t) / horner(cephes.SICI_CD, t)
    si_small = jnp.where(ax == 0, jnp.zeros_like(x), si_small)
    ci_small = jnp.where(ax == 0, const(x, -np.inf), ci_small)
    # 4 < |x| <= 1e9: auxiliary functions f, g of 1/x^2 (one fit below 8, one above).
    large = jnp.where(ax > 4, ax, const(x, 5))
    z = 1 / (large * large)
    below8 = large < 8.0
    f = jnp.where(
        below8,
        horner(cephes.SICI_FN4, z) / (large * horner(cephes.SICI_FD4, z)),
        horner(cephes.SICI_FN8, z) / (large * horner(cephes.SICI_FD8, z)),
    )
    g = z * jnp.where(
        below8,
        horner(cephes.SICI_GN4, z) / horner(cephes.SICI_GD4, z),
        horner(cephes.SICI_GN8, z) / horner(cephes.SICI_GD8, z),
    )
    s, c = jnp.sin(large), jnp.cos(large)
    si_asymptotic = np.pi / 2 - f * c - g * s
    ci_asymptotic = f * s - g * c
    # Beyond 1e9 only the leading terms matter.
    si_far = np.pi / 2 - c / large
    ci_far = s / large
    si_far = jnp.where(jnp.isposinf(ax), const(x, np.pi / 2), si_far)
    ci_far = jnp.where(jnp.isposinf(ax), jnp.zeros_like(x), ci_far)
    near, mid = ax <= 4, ax <= 1e9
    si = jnp.where(near, si_small, jnp.where(mid, si_asymptotic, si_far))
    ci = jnp.where(near, ci_small, jnp.where(mid, ci_asymptotic, ci_far))
    return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), const(x, np.nan), ci)


_sici = custom_jvp(jit(_sici_impl))


@_sici.defjvp
def _sici_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _sici_impl(x), (jnp.sinc(x / np.pi) * dx, jnp.cos(x) / x * dx)


def sici(x: Any) -> tuple[Any, Any]:
    """The sine and cosine integrals `Si(x) = int_0^x sin t / t dt`,
    `Ci(x) = gamma + log x + int_0^x (cos t - 1) / t dt`.

    Args:
      x: real input array.

    Returns:
      `(Si(x), Ci(|x|))`, as `scipy.special.sici` for real arguments.
    """
    (x,) = inexact_args("sici", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    return _sici(x)
