"""The gamma family of scipy.special: gamma, log-gamma (real and complex), its sign, beta and
log-beta, factorial, comb, poch, multigammaln, digamma, polygamma, Hurwitz zeta and the
Bernoulli numbers.
"""

from __future__ import annotations

import operator
from fractions import Fraction
from math import factorial as _int_factorial
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.lax._control_flow_while import while_loop
from stablax._src.scipy.args import const, inexact_args, is_complex, reject_complex
from stablax._src.transforms.ad_forward import jvp


def gammaln(x: Any) -> Any:
    """Log of the absolute value of the gamma function (`lax.lgamma`).

    Args:
      x: real input array.

    Returns:
      `log|Gamma(x)|`, as `scipy.special.gammaln`.
    """
    (x,) = inexact_args("gammaln", x)
    return lax.lgamma(x)


@jit
def _gammasgn(x):
    floor_x = jnp.floor(x)
    negative = x < 0
    undefined = (negative & (x == floor_x)) | jnp.isnan(x)
    minus = (negative & (jnp.fmod(floor_x, 2) != 0)) | ((x == 0) & jnp.signbit(x))
    return jnp.where(undefined, const(x, np.nan), jnp.where(minus, const(x, -1), const(x, 1)))


def gammasgn(x: Any) -> Any:
    """Sign of the gamma function: -1 or 1 (NaN at the poles 0, -1, -2, ... and for NaN; -0 is
    -1).

    Args:
      x: real input array.

    Returns:
      The sign, as `scipy.special.gammasgn`.
    """
    (x,) = inexact_args("gammasgn", x)
    if is_complex(x):
        raise ValueError("gammasgn does not support complex-valued inputs.")
    return _gammasgn(x)


# Lanczos approximation, g = 7 and 9 terms (the coefficients of Numerical Recipes/Wikipedia).
_LANCZOS_G = 7.0
_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)


def _lanczos_loggamma(z):
    # log Gamma(z) for Re z >= 1/2: sqrt(2 pi) t^(z - 1/2) e^-t A(z), t = z + g - 1/2.
    w = z - 1.0
    series = const(z, _LANCZOS[0])
    for k, c in enumerate(_LANCZOS[1:], start=1):
        series = series + const(z, c) / (w + k)
    t = w + _LANCZOS_G + 0.5
    return const(z, 0.5 * np.log(2 * np.pi)) + (w + 0.5) * jnp.log(t) - t + jnp.log(series)


def _complex_loggamma_reflected(z):
    # Gamma(z) Gamma(1 - z) = pi / sin(pi z) for Re z < 1/2.
    reflect = jnp.real(z) < 0.5
    lanczos = _lanczos_loggamma(jnp.where(reflect, 1.0 - z, z))
    z_safe = jnp.where(reflect, z, const(z, 0.5))
    reflected = jnp.log(const(z, np.pi)) - jnp.log(jnp.sin(np.pi * z_safe)) - lanczos
    return jnp.where(reflect, reflected, lanczos)


def _poles(z):
    re = jnp.real(z)
    return (jnp.imag(z) == 0) & (re == jnp.floor(re)) & (re <= 0)


@jit
def _complex_gamma(z):
    bad = _poles(z) | jnp.isnan(z)
    safe = jnp.where(bad, jnp.ones_like(z), z)
    return jnp.where(
        bad, const(z, complex(np.nan, np.nan)), jnp.exp(_complex_loggamma_reflected(safe))
    )


@jit
def _complex_loggamma(z):
    # SciPy's branch: shift Re z up to >= 1/2 with log Gamma(z) = log Gamma(z + n) - sum log(z + k),
    # so the imaginary part is continuous (no reflection formula).
    bad = _poles(z) | jnp.isnan(z)
    safe = jnp.where(bad, jnp.ones_like(z), z)
    n = jnp.maximum(0, jnp.ceil(0.5 - jnp.real(safe))).astype(np.int32)

    def body(state):
        k, total = state
        active = k < n
        term = jnp.log(jnp.where(active, safe + k.astype(safe.dtype), jnp.ones_like(safe)))
        return k + 1, total + jnp.where(active, term, jnp.zeros_like(total))

    _, total = while_loop(lambda s: jnp.any(s[0] < n), body, (np.int32(0), jnp.zeros_like(safe)))
    shifted = _lanczos_loggamma(safe + n.astype(safe.dtype)) - total
    return jnp.where(bad, const(z, complex(np.nan, np.nan)), shifted)


def loggamma(x: Any) -> Any:
    """Principal branch of log Gamma.

    Args:
      x: real or complex input array.

    Returns:
      For real `x`: `lgamma(x)` where `x > 0`, NaN elsewhere. For complex `x`: log Gamma with
      SciPy's branch (continuous imaginary part), as `scipy.special.loggamma`.
    """
    (x,) = inexact_args("loggamma", x)
    if is_complex(x):
        return _complex_loggamma(x)
    return jnp.where(x > 0, lax.lgamma(x), const(x, np.nan))


def gamma(x: Any) -> Any:
    """The gamma function.

    Args:
      x: real or complex input array.

    Returns:
      `Gamma(x)` (NaN at the poles), as `scipy.special.gamma`.
    """
    (x,) = inexact_args("gamma", x)
    if is_complex(x):
        return _complex_gamma(x)
    return _gammasgn(x) * lax.exp(lax.lgamma(x))


# Coefficients of the asymptotic series of log Gamma(b) - log Gamma(a + b) for b >= 8
# (W. Fullerton / cdflib's `algdiv`).
_ALGDIV = (
    0.833333333333333e-01,
    -0.277777777760991e-02,
    0.793650666825390e-03,
    -0.595202931351870e-03,
    0.837308034031215e-03,
    -0.165322962780713e-02,
)


def _log_gamma_ratio(a, b):
    # log(Gamma(b) / Gamma(a + b)) for a <= b, b >= 8: Stirling's series for both gammas with
    # their leading terms combined so nothing cancels.
    # (JAX 0.10.2 uses h / (1 + h) for x below, which costs it ~6e-7 absolute in float64.)
    h = a / b
    c = h / (1 + h)
    x = 1 / (1 + h)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    c0, c1, c2, c3, c4, c5 = _ALGDIV
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = (b + (a - 0.5)) * jnp.log1p(a / b)
    v = a * (jnp.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def _betaln(a, b):
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _log_gamma_ratio(a, b)
    return jnp.where(b < 8, small_b, large_b)


def betaln(a: Any, b: Any) -> Any:
    """Log of the absolute value of the beta function, accurate for large arguments.

    Args:
      a: real input array.
      b: real input array.

    Returns:
      `log|B(a, b)|`, as `scipy.special.betaln`.
    """
    a, b = inexact_args("betaln", a, b)
    return _betaln(a, b)


def beta(a: Any, b: Any) -> Any:
    """The beta function `Gamma(a) Gamma(b) / Gamma(a + b)`.

    Args:
      a: real input array.
      b: real input array.

    Returns:
      `B(a, b)`, as `scipy.special.beta`.
    """
    a, b = inexact_args("beta", a, b)
    reject_complex("beta", a)
    sign = _gammasgn(a) * _gammasgn(b) * _gammasgn(a + b)
    return sign * lax.exp(_betaln(a, b))


def factorial(n: Any, exact: bool = False) -> Any:
    """`n!` as `Gamma(n + 1)` (0 for negative `n`).

    Args:
      n: input array.
      exact: must be False (exact integer factorials are not supported, as in JAX).

    Returns:
      The factorial, as `scipy.special.factorial`.
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = inexact_args("factorial", n)
    return jnp.where(n < 0, const(n, 0), lax.exp(lax.lgamma(n + 1)))


def comb(N: Any, k: Any, *, repetition: bool = False) -> Any:  # noqa: N803 (SciPy's name)
    """The number of combinations of `N` things taken `k` at a time, through log-gamma.

    Args:
      N: number of things.
      k: number of elements taken.
      repetition: count combinations with repetition (`comb(N + k - 1, k)`).

    Returns:
      The (floating-point) binomial coefficient, 0 outside `0 <= k <= N`, as
      `scipy.special.comb` with `exact=False`.
    """
    N, k = inexact_args("comb", N, k)  # noqa: N806
    if repetition:
        result = comb(N + k - 1, k)
        return jnp.where((k == 0) & (N >= 0), const(result, 1), result)
    valid = (k <= N) & (N >= 0) & (k >= 0)
    n_safe = jnp.where(valid, N, const(N, 0))
    k_safe = jnp.where(valid, k, const(k, 0))
    value = lax.exp(
        lax.lgamma(n_safe + 1) - lax.lgamma(k_safe + 1) - lax.lgamma(n_safe + 1 - k_safe)
    )
    return jnp.where(valid, value, const(value, 0))


def _poch(z, m):
    value = _real_gamma(z + m) / _real_gamma(z)
    return jnp.where(m == 0, const(z, 1), value)


def _real_gamma(x):
    return _gammasgn(x) * lax.exp(lax.lgamma(x))


_poch_jvp = custom_jvp(_poch)
_poch_jvp.defjvps(
    lambda dz, out, z, m: (lax.digamma(z + m) - lax.digamma(z)) * _poch(z, m) * dz,
    lambda dm, out, z, m: lax.digamma(z + m) * _poch(z, m) * dm,
)


def poch(z: Any, m: Any) -> Any:
    """The Pochhammer symbol (rising factorial) `Gamma(z + m) / Gamma(z)`.

    Args:
      z: real input array.
      m: real input array.

    Returns:
      `(z)_m` (1 where `m == 0`), as `scipy.special.poch`.
    """
    z, m = inexact_args("poch", z, m)
    if is_complex(z):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return _poch_jvp(z, m)


def multigammaln(a: Any, d: Any) -> Any:
    """Log of the multivariate gamma function of dimension `d`.

    Args:
      a: input array.
      d: the dimension, a concrete positive integer.

    Returns:
      `d (d - 1) / 4 log(pi) + sum_j lgamma(a - j / 2)`, as `scipy.special.multigammaln`.
    """
    try:
        d = int(d)
    except TypeError:
        raise TypeError(
            "multigammaln: the d argument must be a concrete integer (static under jit)"
        ) from None
    a, d_arr = inexact_args("multigammaln", a, d)
    constant = 0.25 * d_arr * (d_arr - 1) * jnp.log(const(a, np.pi))
    halves = jnp.arange(d, dtype=d_arr.dtype) / const(a, 2)
    res = jnp.sum(lax.lgamma(jnp.expand_dims(a, -1) - halves), axis=-1)
    return res + constant


def digamma(x: Any) -> Any:
    """The digamma function `d/dx log Gamma(x)` (`lax.digamma`).

    Args:
      x: real input array.

    Returns:
      `psi(x)`, as `scipy.special.digamma`.
    """
    (x,) = inexact_args("digamma", x)
    return lax.digamma(x)


def polygamma(n: Any, x: Any) -> Any:
    """The n-th derivative of the digamma function (`lax.polygamma`).

    Args:
      n: integer array of orders.
      x: real input array.

    Returns:
      `psi^(n)(x)`, as `scipy.special.polygamma`.
    """
    n_dtype = np.result_type(n) if not hasattr(n, "dtype") else n.dtype
    if not dtypes.issubdtype(n_dtype, np.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
    n, x = inexact_args("polygamma", n, x)
    reject_complex("polygamma", x)
    return lax.polygamma(n, x)


def _bernoulli_even(count: int) -> list[Fraction]:
    """B_2, B_4, ..., B_2count exactly (Akiyama-Tanigawa)."""
    size = 2 * count + 1
    row = [Fraction(0)] * (size + 1)
    numbers = []
    for m in range(size + 1):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])
    return [numbers[2 * j] for j in range(1, count + 1)]


# B_2j / (2j)! for the Euler-Maclaurin tail of the Hurwitz zeta function.
_ZETA_TAIL = tuple(
    float(b / _int_factorial(2 * j)) for j, b in enumerate(_bernoulli_even(16), start=1)
)


def _zeta_series(s, a):
    # Euler-Maclaurin: sum_{k<N} (a+k)^-s + (a+N)^(1-s)/(s-1) + (a+N)^-s/2
    #   + sum_j B_2j/(2j)! s (s+1) ... (s+2j-2) (a+N)^(-s-2j+1).
    terms = 8 if a.dtype == np.float32 else 16
    head = sum((a + k) ** -s for k in range(terms))
    an = a + terms
    integral = an ** (1 - s) / (s - 1)
    tail = const(a, 0.5)
    rising = s / an
    for j in range(terms):
        tail = tail + const(a, _ZETA_TAIL[j]) * rising
        rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2) / (an * an)
    return head + integral + an**-s * tail


def _zeta(x, q):
    return lax.zeta(x, q)


_zeta_jvp = custom_jvp(_zeta)


@_zeta_jvp.defjvp
def _zeta_jvp_rule(primals, tangents):
    # The derivative of the Euler-Maclaurin expansion, which converges with its derivatives.
    _, tangent = jvp(_zeta_series, primals, tangents)
    return _zeta(*primals), tangent


def zeta(x: Any, q: Any = None) -> Any:
    """The Hurwitz zeta function `sum_k (q + k)^-x` (`lax.zeta`).

    Differentiable in both arguments through the Euler-Maclaurin expansion.

    Args:
      x: the exponent.
      q: the offset; None (the Riemann zeta function) is not supported, as in JAX.

    Returns:
      `zeta(x, q)`, as `scipy.special.zeta`.
    """
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz Zeta "
            "function."
        )
    x, q = inexact_args("zeta", x, q)
    return _zeta_jvp(x, q)


def _to_float(value: Fraction) -> float:
    try:
        return float(value)
    except OverflowError:
        return float(np.copysign(np.inf, value))


def bernoulli(n: int) -> Any:
    """The Bernoulli numbers B_0 ... B_n (with B_1 = -1/2).

    Args:
      n: a concrete non-negative integer.

    Returns:
      A float array of length n + 1, as `scipy.special.bernoulli`.
    """
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    values = [1.0, -0.5, 1.0 / 6][: n + 1]
    if n >= 3:
        evens = _bernoulli_even(n // 2)
        values = values + [0.0] * (n + 1 - len(values))
        for j in range(2, n // 2 + 1):
            values[2 * j] = _to_float(evens[j - 1])
    with np.errstate(over="ignore"):  # B_n overflows float32 beyond n = 60, as in JAX
        host = np.array(values, dtype=np.float64).astype(dtypes.default_float_dtype())
    return jnp.asarray(host)
