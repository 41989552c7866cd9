"""Regularized incomplete gamma functions P(a, x), Q(a, x), dP/da, and the implicit derivative
of Gamma(a) samples, composed from elementwise ops and `while_loop` (no primitives of their own).

As in Cephes and XLA: a power series for P when x <= max(a, 1), a continued fraction for Q
otherwise. Both loops also carry the derivative in `a` of their partial sums, so the same two
loops give the values, dP/da and -(dP/da) / (dP/dx). Each element iterates until its own
correction is below eps; finished elements are frozen by `select`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src.avals import aval_of
from stablax._src.interpreters.ad import jvp_not_implemented
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.lax._control_flow_while import while_loop
from stablax._src.lax._conveniences import broadcast_shapes
from stablax._src.lax._elementwise import (
    _binary_rule,
    bitwise_and,
    bitwise_or,
    div,
    eq,
    ge,
    gt,
    le,
    lt,
    ne,
    select,
)
from stablax._src.lax._elementwise_common import (
    FLOAT,
    _prepare,
    aval_or_none,
    check_array_dtypes,
)
from stablax._src.lax._elementwise_unary import abs as _abs
from stablax._src.lax._elementwise_unary import (
    bitwise_not,
    digamma,
    exp,
    lgamma,
    log,
    neg,
)
from stablax._src.lax._reduce_monoids import reduce_or
from stablax._src.lax._shapes import broadcast_in_dim, convert_element_type, full_like

_VALUE, _GRAD_A, _SAMPLE_GRAD = "value", "grad_a", "sample_grad"
_CONTINUED_FRACTION_MAX_TERMS = 2000


def _any(mask: Any) -> Any:
    return reduce_or(mask, tuple(range(mask.ndim)))


def _series(ax: Any, x: Any, a: Any, enabled: Any, mode: str) -> Any:
    # P(a, x) = ax / a * sum_n x^n / ((a+1)...(a+n)), with ax = x^a e^-x / Gamma(a).
    eps = float(dtypes.finfo(a.dtype).eps)

    def body(state):
        active, r, term, total, dterm_da, dtotal_da = state
        r_next = r + 1
        dterm_next = dterm_da * (x / r_next) - term * x / (r_next * r_next)
        dtotal_next = dtotal_da + dterm_next
        term_next = term * (x / r_next)
        total_next = total + term_next
        if mode == _VALUE:
            going = gt(term_next / total_next, eps)
        else:
            going = gt(_abs(dterm_next / dtotal_next), eps)
        new = (r_next, term_next, total_next, dterm_next, dtotal_next)
        kept = tuple(select(active, n, o) for n, o in zip(new, state[1:], strict=True))
        return (bitwise_and(active, going), *kept)

    one, zero = full_like(a, 1), full_like(a, 0)
    _, _, _, total, _, dtotal_da = while_loop(
        lambda state: _any(state[0]), body, (enabled, a, one, one, zero, zero)
    )
    if mode == _VALUE:
        return total * ax / a
    dlogax_da = log(x) - digamma(a + 1)
    if mode == _GRAD_A:
        return ax * (total * dlogax_da + dtotal_da) / a
    return neg(dtotal_da + total * dlogax_da) * x / a


def _continued_fraction(ax: Any, x: Any, a: Any, enabled: Any, mode: str) -> Any:
    # Q(a, x) = ax * (convergent pk / qk of Legendre's continued fraction), with d/da carried
    # through the three-term recurrences; pk, qk are rescaled by eps when they grow large.
    eps = float(dtypes.finfo(a.dtype).eps)

    def body(state):
        active, ans, y, z, count, pkm1, qkm1, pkm2, qkm2, dpkm1, dqkm1, dpkm2, dqkm2, dans = state
        count, y, z = count + 1, y + 1, z + 2
        yc = y * count
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        qk_nonzero = ne(qk, full_like(qk, 0))
        ratio = pk / qk
        change = select(qk_nonzero, _abs((ans - ratio) / ratio), full_like(ratio, 1))
        ans_next = select(qk_nonzero, ratio, ans)
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * count
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * count
        dans_next = select(qk_nonzero, div(dpk - ans_next * dqk, qk), dans)
        dchange = select(qk_nonzero, _abs(dans_next - dans), full_like(dans, 1))
        rescale = gt(_abs(pk), 1 / eps)
        recurrences = (pk, qk, pkm1, qkm1, dpk, dqk, dpkm1, dqkm1)
        recurrences = tuple(select(rescale, v * eps, v) for v in recurrences)
        going = gt(change if mode == _VALUE else dchange, eps)
        new = (ans_next, y, z)
        kept = tuple(select(active, n, o) for n, o in zip(new, state[1:4], strict=True))
        kept_rec = tuple(
            select(active, n, o) for n, o in zip(recurrences, state[5:13], strict=True)
        )
        return (
            bitwise_and(active, going),
            *kept,
            count,
            *kept_rec,
            select(active, dans_next, dans),
        )

    def going(state):
        return bitwise_and(lt(state[4], float(_CONTINUED_FRACTION_MAX_TERMS)), _any(state[0]))

    y = 1 - a
    z = x + y + 1
    pkm1, qkm1 = x + 1, z * x
    ans = pkm1 / qkm1
    zero = full_like(x, 0)
    init = (enabled, ans, y, z, full_like(a, 0, shape=()), pkm1, qkm1, full_like(x, 1), x)
    init += (zero, neg(x), zero, zero, ans * x / qkm1)
    state = while_loop(going, body, init)
    ans, dans_da = state[1], state[13]
    if mode == _VALUE:
        return ans * ax
    dlogax_da = log(x) - digamma(a)
    if mode == _GRAD_A:
        return ax * (ans * dlogax_da + dans_da)
    return neg(dans_da + ans * dlogax_da) * x


def _log_ax(a: Any, x: Any) -> tuple[Any, Any]:
    # ax = x^a e^-x / Gamma(a), and whether it underflows.
    log_ax = a * log(x) - x - lgamma(a)
    underflow = lt(log_ax, -float(np.log(dtypes.finfo(a.dtype).max)))
    return exp(log_ax), underflow


def _isnan(v: Any) -> Any:
    return ne(v, v)


def _any_of(*masks: Any) -> Any:
    out = masks[0]
    for m in masks[1:]:
        out = bitwise_or(out, m)
    return out


def _nan_like(a: Any) -> Any:
    return full_like(a, float("nan"))


def _domain(a: Any, x: Any) -> tuple[Any, Any, Any, Any]:
    # P and Q are undefined for x < 0, a < 0, a == x == 0, and NaN inputs.
    x_is_zero, a_is_zero = eq(x, 0.0), eq(a, 0.0)
    is_nan = bitwise_or(_isnan(a), _isnan(x))
    domain_error = _any_of(lt(x, 0.0), lt(a, 0.0), bitwise_and(a_is_zero, x_is_zero), is_nan)
    return x_is_zero, a_is_zero, eq(x, float("inf")), domain_error


@jit
def _igamma_value(a: Any, x: Any) -> Any:
    x_is_zero, _, x_is_inf, domain_error = _domain(a, x)
    use_fraction = bitwise_and(ge(x, 1.0), gt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = bitwise_not(_any_of(x_is_zero, domain_error, underflow, x_is_inf))
    from_fraction = 1 - _continued_fraction(ax, x, a, bitwise_and(enabled, use_fraction), _VALUE)
    from_series = _series(ax, x, a, bitwise_and(enabled, bitwise_not(use_fraction)), _VALUE)
    out = select(use_fraction, from_fraction, from_series)
    out = select(x_is_zero, full_like(out, 0), out)
    out = select(x_is_inf, full_like(out, 1), out)
    return select(domain_error, _nan_like(out), out)


@jit
def _igammac_value(a: Any, x: Any) -> Any:
    _, a_is_zero, x_is_inf, domain_error = _domain(a, x)
    use_series = bitwise_or(lt(x, 1.0), lt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = bitwise_not(_any_of(domain_error, underflow, x_is_inf, a_is_zero))
    from_series = 1 - _series(ax, x, a, bitwise_and(enabled, use_series), _VALUE)
    from_fraction = _continued_fraction(
        ax, x, a, bitwise_and(enabled, bitwise_not(use_series)), _VALUE
    )
    out = select(use_series, from_series, from_fraction)
    out = select(bitwise_or(x_is_inf, a_is_zero), full_like(out, 0), out)
    return select(domain_error, _nan_like(out), out)


def _derivative_in_a(a: Any, x: Any, mode: str) -> Any:
    # dP/da (mode _GRAD_A) or the sample derivative -(dP/da) / (dP/dx) (mode _SAMPLE_GRAD).
    x_is_zero = eq(x, 0.0)
    is_nan = bitwise_or(_isnan(a), _isnan(x))
    domain_error = bitwise_or(lt(x, 0.0), le(a, 0.0))
    use_fraction = bitwise_and(gt(x, 1.0), gt(x, a))
    ax, underflow = _log_ax(a, x)
    enabled = bitwise_not(_any_of(x_is_zero, domain_error, underflow, is_nan))
    from_fraction = neg(_continued_fraction(ax, x, a, bitwise_and(enabled, use_fraction), mode))
    from_series = _series(ax, x, a, bitwise_and(enabled, bitwise_not(use_fraction)), mode)
    out = select(use_fraction, from_fraction, from_series)
    out = select(x_is_zero, full_like(out, 0), out)
    return select(bitwise_or(domain_error, is_nan), _nan_like(out), out)


_igamma_grad_a_value = jit(lambda a, x: _derivative_in_a(a, x, _GRAD_A))
_random_gamma_grad_value = jit(lambda a, x: _derivative_in_a(a, x, _SAMPLE_GRAD))


# --- public functions: dtype checks, float16/bfloat16 computed in float32, derivative rules ----


def _operands(name: str, a: Any, x: Any) -> tuple[Any, Any]:
    check_array_dtypes(name, (a, x), (FLOAT,))
    a, x = _prepare(name, a, x)
    _binary_rule(name, (FLOAT,))(aval_of(a), aval_of(x))
    return a, x


def _in_float32_if_narrow(fun: Any, a: Any, x: Any) -> Any:
    dtype = aval_of(a).dtype
    if dtype.itemsize >= 4:
        return fun(a, x)
    wide = fun(convert_element_type(a, np.float32), convert_element_type(x, np.float32))
    return convert_element_type(wide, dtype)


def _gamma_density(a: Any, x: Any) -> Any:
    # dP/dx = x^(a-1) e^-x / Gamma(a)
    return exp(neg(x) + (a - 1) * log(x) - lgamma(a))


_igamma_grad_a = custom_jvp(lambda a, x: _igamma_grad_a_value(a, x))
_igamma_grad_a.defjvp(jvp_not_implemented("lax.igamma_grad_a"))
_random_gamma_grad = custom_jvp(lambda a, x: _random_gamma_grad_value(a, x))
_random_gamma_grad.defjvp(jvp_not_implemented("lax.random_gamma_grad"))

_igamma = custom_jvp(lambda a, x: _igamma_value(a, x))
_igamma.defjvps(
    lambda ta, _, a, x: ta * _igamma_grad_a(a, x),
    lambda tx, _, a, x: tx * _gamma_density(a, x),
)
_igammac = custom_jvp(lambda a, x: _igammac_value(a, x))
_igammac.defjvps(
    lambda ta, _, a, x: neg(ta * _igamma_grad_a(a, x)),
    lambda tx, _, a, x: neg(tx * _gamma_density(a, x)),
)


def igamma(a: Any, x: Any) -> Any:
    """Regularized lower incomplete gamma P(a, x) = gamma(a, x) / Gamma(a), elementwise.

    Args:
      a: the shape parameter, a float array (a >= 0).
      x: the integration limit, same shape and dtype as `a` (x >= 0).

    Returns:
      P(a, x); NaN outside the domain. Like `scipy.special.gammainc`.
    """
    return _in_float32_if_narrow(_igamma, *_operands("igamma", a, x))


def igammac(a: Any, x: Any) -> Any:
    """Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x), elementwise.

    Computed directly (not as 1 - P) so it keeps its relative accuracy where Q is tiny. Like
    `scipy.special.gammaincc`.
    """
    return _in_float32_if_narrow(_igammac, *_operands("igammac", a, x))


def igamma_grad_a(a: Any, x: Any) -> Any:
    """The derivative dP(a, x)/da of the regularized lower incomplete gamma, elementwise."""
    return _in_float32_if_narrow(_igamma_grad_a, *_operands("igamma_grad_a", a, x))


def random_gamma_grad(a: Any, x: Any) -> Any:
    """The derivative in `a` of a Gamma(a, 1) sample `x`, by implicit reparameterisation.

    Holding the CDF value P(a, x) fixed, dx/da = -(dP/da) / (dP/dx); computed without forming
    dP/dx, which underflows for large x.

    As JAX's: the operands broadcast to NumPy's common shape, each one's axes leading; a 16-bit
    float `a` computes in float32, with `x` converted whatever its dtype.
    """
    shapes = [np.shape(v) if aval_or_none(v) is None else v.aval.shape for v in (a, x)]
    shape = broadcast_shapes(*shapes)
    a, x = (
        v if s in (shape, ()) else broadcast_in_dim(v, shape, tuple(range(len(s))))
        for v, s in zip((a, x), shapes, strict=True)
    )
    a, x = _prepare("random_gamma_grad", a, x)
    dtype = aval_of(a).dtype
    if dtype in (dtypes.bfloat16, np.float16):
        wide = _random_gamma_grad(*(convert_element_type(v, np.float32) for v in (a, x)))
        return convert_element_type(wide, dtype)
    return _random_gamma_grad(*_operands("random_gamma_grad", a, x))
