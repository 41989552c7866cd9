"""Confluent (1F1) and Gauss (2F1) hypergeometric functions: power series, asymptotic
expansions, and the linear transformations of Abramowitz & Stegun 15.3 near and beyond x = 1.

Every loop runs elementwise with a mask until all entries converge (at most 250 terms, as JAX).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.lax._control_flow_while import while_loop
from stablax._src.scipy.args import const, inexact_args, reject_complex
from stablax._src.scipy.special.gamma_functions import _real_gamma

_MAX_TERMS = 250


def _sum_series(first, ratio, weight=None):
    """sum_k weight(k) t_k with t_0 = first and t_{k+1} = t_k ratio(k), until the added terms
    fall below eps relative to the sum (or _MAX_TERMS); k is a float array."""
    eps = float(dtypes.finfo(first.dtype).eps)

    def cond(state):
        k, _, _, active = state
        return jnp.any(active) & (k < _MAX_TERMS)

    def body(state):
        k, total, term, active = state
        added = term if weight is None else term * weight(k)
        new_total = total + added
        converged = jnp.abs(added) <= eps * jnp.abs(new_total)
        new_term = term * ratio(k)
        keep = lambda new, old: jnp.where(active, new, old)  # noqa: E731
        # Stop once both this and the next term are negligible, or the series has terminated
        # (a zero term stays zero; the next ratio may be 0/0 at a pole of (c)_k).
        negligible = converged & (jnp.abs(new_term) <= eps * jnp.abs(new_total))
        still = active & ~negligible & (term != 0)
        return k + 1, keep(new_total, total), keep(new_term, term), still

    k0 = jnp.zeros((), first.dtype)
    init = (k0, jnp.zeros_like(first), first, jnp.ones_like(first, dtype=bool))
    return while_loop(cond, body, init)[1]


def _nonpositive_integer(v):
    return (v <= 0) & (v == jnp.round(v))


# --- 1F1 -----------------------------------------------------------------------------------


def _hyp1f1_series(a, b, x):
    return _sum_series(jnp.ones_like(x), lambda k: (a + k) / (b + k) * x / (k + 1))


def _hyp1f1_value(a, b, x):
    big = jnp.abs(x) >= 100
    terminating = _nonpositive_integer(a)
    # Large x: the exponentially growing term Gamma(b)/Gamma(a) e^x x^(a-b) sum (b-a)_k (1-a)_k
    # / (k! x^k). Large -x: the algebraic term Gamma(b)/Gamma(b-a) (-x)^-a sum (a)_k (a-b+1)_k
    # / (k! (-x)^k). A non-positive integer a makes the series a polynomial: sum it directly.
    x_pos = jnp.where(big & (x > 0), x, const(x, 100))
    positive = _sum_series(jnp.ones_like(x), lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x_pos)
    positive = _real_gamma(b) / _real_gamma(a) * jnp.exp(x_pos) * x_pos ** (a - b) * positive
    x_neg = jnp.where(big & (x < 0), -x, const(x, 100))
    negative = _sum_series(jnp.ones_like(x), lambda k: (a + k) * (a - b + 1 + k) / (k + 1) / -x_neg)
    negative = _real_gamma(b) / _real_gamma(b - a) * x_neg ** (-a) * negative
    # ... unless b - a is a non-positive integer: then only e^x 1F1(b-a; b; -x) remains.
    kummer = jnp.exp(-x_neg) * _hyp1f1_series(b - a, b, x_neg)
    negative = jnp.where(_nonpositive_integer(b - a), kummer, negative)
    x_small = jnp.where(big & ~terminating, const(x, 0), x)
    value = jnp.where(
        big & ~terminating, jnp.where(x > 0, positive, negative), _hyp1f1_series(a, b, x_small)
    )
    value = jnp.where((b == 0) & (a != 0), const(x, np.inf), value)
    value = jnp.where((a == b) & (a != 0), jnp.exp(x), value)
    return jnp.where(a == 0, jnp.ones_like(x), value)


def _hyp1f1_parameter_derivative(a, b, x, weight):
    # The power series' terms from t_1 = a x / b on, each times its weight(k): d/da or d/db of
    # (a)_{k+1} / (b)_{k+1} is the term times a difference of digammas.
    return _sum_series(a / b * x, lambda k: (a + k + 1) / (b + k + 1) * x / (k + 2), weight)


@jit
def _hyp1f1_by_a(a, b, x):
    return _hyp1f1_parameter_derivative(a, b, x, lambda k: lax.digamma(a + k + 1) - lax.digamma(a))


@jit
def _hyp1f1_by_b(a, b, x):
    return _hyp1f1_parameter_derivative(a, b, x, lambda k: lax.digamma(b) - lax.digamma(b + k + 1))


_hyp1f1 = custom_jvp(jit(_hyp1f1_value))
_hyp1f1.defjvps(
    lambda da, out, a, b, x: _hyp1f1_by_a(a, b, x) * da,
    lambda db, out, a, b, x: _hyp1f1_by_b(a, b, x) * db,
    lambda dx, out, a, b, x: a / b * _hyp1f1_value(a + 1, b + 1, x) * dx,
)


def hyp1f1(a: Any, b: Any, x: Any) -> Any:
    """Kummer's confluent hypergeometric function `1F1(a; b; x) = sum (a)_k/(b)_k x^k/k!`.

    The power series for |x| < 100, the asymptotic expansions beyond (with the algebraic one
    for large negative x). Differentiable in all three arguments (the parameter derivatives
    from their power series, as JAX).

    Args:
      a: real parameter.
      b: real parameter.
      x: real argument.

    Returns:
      `1F1(a; b; x)`, as `scipy.special.hyp1f1`.
    """
    a, b, x = inexact_args("hyp1f1", a, b, x)
    reject_complex("hyp1f1", x)
    return _hyp1f1(a, b, x)


# --- 2F1 -----------------------------------------------------------------------------------


def _hyp2f1_series(a, b, c, x):
    return _sum_series(jnp.ones_like(x), lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x)


def _hyp2f1_near_one_integer(a, b, c, x):
    # c - a - b = m a non-negative integer (A&S 15.3.10-11), in powers of s = 1 - x:
    # Gamma(m) Gamma(c)/(Gamma(a+m) Gamma(b+m)) sum_{n<m} (a)_n (b)_n/(n! (1-m)_n) s^n
    # - (-s)^m Gamma(c)/(Gamma(a) Gamma(b)) sum_n (a+m)_n (b+m)_n/(n! (n+m)!) s^n
    #     [log s - psi(n+1) - psi(n+m+1) + psi(a+n+m) + psi(b+n+m)].
    s = 1 - x
    m = jnp.round(c - a - b)
    log_s = jnp.log(s)

    def log_term(n):
        return (
            log_s
            - lax.digamma(n + 1)
            - lax.digamma(n + m + 1)
            + lax.digamma(a + n + m)
            + lax.digamma(b + n + m)
        )

    first = 1 / _real_gamma(m + 1)
    infinite = _sum_series(
        first, lambda n: (a + m + n) * (b + m + n) / ((n + 1) * (n + m + 1)) * s, log_term
    )
    infinite = (-s) ** m * _real_gamma(c) / (_real_gamma(a) * _real_gamma(b)) * infinite

    def finite_body(state):
        n, total, term = state
        active = n < m
        total = jnp.where(active, total + term, total)
        term = jnp.where(active, term * (a + n) * (b + n) / ((n + 1) * (1 - m + n)) * s, term)
        return n + 1, total, term

    _, finite, _ = while_loop(
        lambda st: jnp.any(st[0] < m),
        finite_body,
        (jnp.zeros((), x.dtype), jnp.zeros_like(x), jnp.ones_like(x)),
    )
    m_safe = jnp.where(m > 0, m, jnp.ones_like(m))
    finite = jnp.where(
        m > 0,
        _real_gamma(m_safe) * _real_gamma(c) / (_real_gamma(a + m) * _real_gamma(b + m)) * finite,
        jnp.zeros_like(finite),
    )
    return finite - infinite


def _hyp2f1_near_one(a, b, c, x):
    # A&S 15.3.6 for non-integer d = c - a - b:
    # F = G(c)G(d)/(G(c-a)G(c-b)) F(a, b; 1-d; 1-x)
    #   + (1-x)^d G(c)G(-d)/(G(a)G(b)) F(c-a, c-b; 1+d; 1-x).
    d = c - a - b
    s = 1 - x
    first = _real_gamma(c) * _real_gamma(d) / (_real_gamma(c - a) * _real_gamma(c - b))
    second = _real_gamma(c) * _real_gamma(-d) / (_real_gamma(a) * _real_gamma(b))
    return first * _hyp2f1_series(a, b, 1 - d, s) + s**d * second * _hyp2f1_series(
        c - a, c - b, 1 + d, s
    )


def _hyp2f1_unit_interval(a, b, c, x):
    """2F1 for a non-terminating series and x in [-1/2, 1)."""
    eps50 = 50 * float(dtypes.finfo(x.dtype).eps)
    s = 1 - x
    # Euler's transformation F = s^d F(c-a, c-b; c; x) makes c - a - b > -1.
    d = c - a - b
    euler = d <= -1
    factor = jnp.where(euler, s**d, jnp.ones_like(x))
    a, b = jnp.where(euler, c - a, a), jnp.where(euler, c - b, b)
    d = c - a - b
    integer_d = jnp.abs(d - jnp.round(d)) < eps50
    near_one = x > 0.9
    x_near = jnp.where(near_one, x, const(x, 0.95))
    d_safe = jnp.where(integer_d, const(d, 0.5), d)
    transformed = jnp.where(
        integer_d,
        _hyp2f1_near_one_integer(a, b, a + b + jnp.round(d), x_near),
        _hyp2f1_near_one(a, b, a + b + d_safe, x_near),
    )
    series = _hyp2f1_series(a, b, c, jnp.where(near_one, const(x, 0), x))
    return factor * jnp.where(near_one, transformed, series)


def _hyp2f1_value(a, b, c, x):
    s = 1 - x
    terminating = _nonpositive_integer(a) | _nonpositive_integer(b)
    # A non-positive integer a or b makes the series a polynomial (finite for every x) unless c
    # is a pole reached before the series stops.
    stop = jnp.maximum(
        jnp.where(_nonpositive_integer(a), a, -np.inf),
        jnp.where(_nonpositive_integer(b), b, -np.inf),
    )
    c_pole = (c == 0) | (_nonpositive_integer(c) & ~(terminating & (stop > c)))
    polynomial = _hyp2f1_series(a, b, c, jnp.where(terminating, x, const(x, 0)))
    # Pfaff's transformation F = s^-a F(a, c-b; c; x/(x-1)) maps x < -1/2 into (1/3, 1).
    pfaff = x < -0.5
    inner_x = jnp.where(pfaff, x / (x - 1), x)
    inner_x = jnp.where(terminating | (inner_x >= 1), const(x, 0), inner_x)
    inner = _hyp2f1_unit_interval(a, jnp.where(pfaff, c - b, b), c, inner_x)
    value = jnp.where(pfaff, s ** (-a) * inner, inner)
    # Closed forms at x = 1 (Gauss) and for b == c or a == c; x > 1 is outside the domain.
    d = c - a - b
    gauss = _real_gamma(c) * _real_gamma(d) / (_real_gamma(c - a) * _real_gamma(c - b))
    value = jnp.where(x == 1, jnp.where(d <= 0, const(x, np.inf), gauss), value)
    value = jnp.where((x < 1) & (a == c), s ** (-b), value)
    value = jnp.where((x < 1) & (b == c), s ** (-a), value)
    value = jnp.where(x > 1, const(x, np.inf), value)
    value = jnp.where(terminating, polynomial, value)
    value = jnp.where(c_pole, const(x, np.inf), value)
    return jnp.where((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), jnp.ones_like(x), value)


def _hyp2f1_parameter_derivative(a, b, c, x, weight):
    first = a * b / c * x
    return _sum_series(
        first, lambda k: (a + k + 1) * (b + k + 1) / (c + k + 1) / (k + 2) * x, weight
    )


_hyp2f1_by_a = jit(
    lambda a, b, c, x: _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: lax.digamma(a + k + 1) - lax.digamma(a)
    )
)
_hyp2f1_by_b = jit(
    lambda a, b, c, x: _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: lax.digamma(b + k + 1) - lax.digamma(b)
    )
)
_hyp2f1_by_c = jit(
    lambda a, b, c, x: _hyp2f1_parameter_derivative(
        a, b, c, x, lambda k: lax.digamma(c) - lax.digamma(c + k + 1)
    )
)

_hyp2f1 = custom_jvp(jit(_hyp2f1_value))
_hyp2f1.defjvps(
    lambda da, out, a, b, c, x: _hyp2f1_by_a(a, b, c, x) * da,
    lambda db, out, a, b, c, x: _hyp2f1_by_b(a, b, c, x) * db,
    lambda dc, out, a, b, c, x: _hyp2f1_by_c(a, b, c, x) * dc,
    lambda dx, out, a, b, c, x: a * b / c * _hyp2f1_value(a + 1, b + 1, c + 1, x) * dx,
)


def hyp2f1(a: Any, b: Any, c: Any, x: Any) -> Any:
    """Gauss's hypergeometric function `2F1(a, b; c; x) = sum (a)_k (b)_k / (c)_k x^k / k!`.

    The power series on [-1/2, 0.9]; Euler's transformation when c - a - b <= -1, Pfaff's for
    x < -1/2, and A&S 15.3.6/15.3.10 (in powers of 1 - x) above 0.9. `inf` for x > 1, as JAX.

    Args:
      a: real parameter.
      b: real parameter.
      c: real parameter.
      x: real argument, at most 1.

    Returns:
      `2F1(a, b; c; x)`, as `scipy.special.hyp2f1` for real arguments.
    """
    a, b, c, x = inexact_args("hyp2f1", a, b, c, x)
    reject_complex("hyp2f1", x)
    return _hyp2f1(a, b, c, x)
