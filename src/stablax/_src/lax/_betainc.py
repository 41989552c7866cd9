"""The regularized incomplete beta function I_x(a, b) (`lax.betainc`), composed from elementwise
ops and a `while_loop`, as in XLA and JAX.

A continued fraction (DLMF 8.17.22) evaluated by the modified Lentz method, on I_x(a, b) when
x < (a + 1) / (a + b + 2) and on 1 - I_{1-x}(b, a) otherwise, where it converges fast. The
derivative in x is the beta density; derivatives in a and b are not provided (as in JAX).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.lax._control_flow_while import while_loop
from stablax._src.lax._elementwise import (
    bitwise_and,
    bitwise_or,
    div,
    eq,
    ge,
    gt,
    lt,
    ne,
    select,
)
from stablax._src.lax._elementwise_common import (
    FLOAT,
    _prepare,
    check_array_dtypes,
    check_dtype,
)
from stablax._src.lax._elementwise_unary import abs as _abs
from stablax._src.lax._elementwise_unary import bitwise_not, exp, lgamma, log, log1p, neg
from stablax._src.lax._reduce_monoids import reduce_or
from stablax._src.lax._shapes import convert_element_type, full_like


def _continued_fraction(a: Any, b: Any, x: Any) -> Any:
    """The continued fraction of DLMF 8.17.22, to relative precision eps/2 (at most 200 terms
    for float32, 600 for float64)."""
    dtype = aval_of(a).dtype
    eps = float(dtypes.finfo(dtype).eps) / 2
    max_terms = 200 if dtype == np.float32 else 600
    one, two = full_like(a, 1), full_like(a, 2)

    def numerator(n: int | Any) -> Any:
        # d_1 = 1; d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)); d_{2m} = m(b-m)x / ((a+2m-1)(a+2m))
        n = convert_element_type(n, np.int32)
        m = convert_element_type(div(n - 1, 2), dtype)
        first = neg(a + b) * x / (a + one)  # m = 0, written apart for accuracy when a ~ 0
        even = neg(a + m) * (a + b + m) * x / ((a + two * m) * (a + two * m + one))
        even = select(eq(m, full_like(m, 0)), first, even)
        odd = m * (b - m) * x / ((a + two * m - one) * (a + two * m))
        is_even = eq(n - 2 * div(n, 2), 0)
        return select(eq(n, 1), one, select(is_even, even, odd))

    def avoid_zero(v: Any) -> Any:
        tiny = full_like(v, eps)
        return select(lt(_abs(v), tiny), tiny, v)

    def body(state):
        n, _, c, d, h = state
        part = numerator(n)
        c = avoid_zero(one + div(part, c))
        d = div(one, avoid_zero(one + part * d))
        delta = c * d
        unconverged = ge(_abs(delta - one), full_like(delta, eps))
        return n + 1, reduce_or(unconverged, tuple(range(aval_of(x).ndim))), c, d, h * delta

    def going(state):
        n, unconverged, *_ = state
        return bitwise_and(lt(n, max_terms), unconverged)

    h0 = full_like(a, eps)  # b_0 = 0, replaced by the tiny value (Lentz)
    init = (np.int32(1), np.bool_(True), h0, full_like(a, 0), h0)
    return while_loop(going, body, init)[-1]


def _betainc_value(a: Any, b: Any, x: Any) -> Any:
    dtype = aval_of(a).dtype
    inf = full_like(a, np.inf)
    zero_a = bitwise_or(eq(a, full_like(a, 0)), eq(b, inf))  # I is a step at x = 0
    zero_b = bitwise_or(eq(b, full_like(b, 0)), eq(a, inf))  # I is a step at x = 1
    x_zero, x_one = eq(x, full_like(x, 0)), eq(x, full_like(x, 1))
    is_nan = bitwise_or(bitwise_or(ne(a, a), ne(b, b)), ne(x, x))
    result_zero = bitwise_or(bitwise_and(zero_b, bitwise_not(x_one)), bitwise_and(zero_a, x_zero))
    result_one = bitwise_or(bitwise_and(zero_a, bitwise_not(x_zero)), bitwise_and(zero_b, x_one))
    negative = bitwise_or(lt(a, full_like(a, 0)), lt(b, full_like(b, 0)))
    outside = bitwise_or(lt(x, full_like(x, 0)), gt(x, full_like(x, 1)))
    result_nan = bitwise_or(bitwise_or(negative, outside), bitwise_and(zero_a, zero_b))
    result_nan = bitwise_or(result_nan, is_nan)

    # Use the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction would converge slowly.
    direct = lt(x, (a + 1) / (a + b + 2))
    a, b = select(direct, a, b), select(direct, b, a)
    x = select(direct, x, 1 - x)
    fraction = _continued_fraction(a, b, x)
    # The prefactor x^a (1-x)^b / (a B(a, b)); for tiny a, a Gamma(a) -> 1 avoids 0/0.
    tiny = full_like(a, float(dtypes.finfo(dtype).tiny) * 2)
    lbeta_small_a = lgamma(b) - lgamma(a + b)
    lbeta = lgamma(a) + lbeta_small_a
    factor = select(
        lt(a, tiny),
        exp(log1p(neg(x)) * b - lbeta_small_a),
        exp(log(x) * a + log1p(neg(x)) * b - lbeta) / a,
    )
    result = fraction * factor
    result = select(direct, result, 1 - result)
    result = select(result_zero, full_like(result, 0), result)
    result = select(result_one, full_like(result, 1), result)
    return select(result_nan, full_like(result, np.nan), result)


def _no_derivative(primals, tangents):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


# Identity on a and b that refuses to be differentiated: its rule only runs when the argument
# has a nonzero tangent, so derivatives in x alone work.
_parameter = custom_jvp(lambda v: v)
_parameter.defjvp(_no_derivative)


def _density_jvp(primals, tangents):
    a, b, x = primals
    _, _, tx = tangents
    lbeta = lgamma(a) + lgamma(b) - lgamma(a + b)
    density = exp((b - 1) * log1p(neg(x)) + (a - 1) * log(x) - lbeta)
    return _betainc(a, b, x), density * tx


_betainc = custom_jvp(_betainc_value)
_betainc.defjvp(_density_jvp)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function I_x(a, b), elementwise (`scipy.special.betainc`).

    Args:
      a, b: positive parameters (float arrays of one shape and dtype; scalars broadcast).
      x: points in [0, 1].

    Returns:
      I_x(a, b); NaN outside the domain. float16 and bfloat16 are computed in float32.
      Differentiable in `x`; a derivative in `a` or `b` raises ValueError, as in JAX.
    """
    check_array_dtypes("betainc", (a, b, x), (FLOAT,))
    a, b, x = _prepare("betainc", a, b, x)
    avals = [aval_of(v) for v in (a, b, x)]
    for v in avals:
        check_dtype("betainc", v.dtype, (FLOAT,))
    if len({v.dtype for v in avals}) > 1:
        raise TypeError(
            "lax.betainc requires arguments to have the same dtypes, got "
            f"{', '.join(v.dtype.name for v in avals)}.{mlir.where_suffix()}"
        )
    dtype = avals[0].dtype
    if dtype.itemsize < 4:
        wide = [convert_element_type(v, np.float32) for v in (a, b, x)]
        return convert_element_type(betainc(*wide), dtype)
    out = _betainc(_parameter(a), _parameter(b), x)
    if all(v.weak_type for v in avals):  # weakly typed as its operands (its constants are not)
        out = convert_element_type(out, dtype, weak_type=True)
    return out
