"""Exponentially scaled modified Bessel function of order 0, i0e(x) = exp(-|x|) I0(x).

StableHLO and CHLO have no i0e op (CHLO has only `bessel_i1e`), so it is composed from
elementwise ops: Cephes' Chebyshev expansions in |x| / 2 - 2 on [0, 8] and in 32 / |x| - 2
beyond 8 (divided by sqrt(|x|) there), summed with Clenshaw's recurrence. float32 keeps only
the low-order terms of each float64 series, as Cephes' i0f does; float16 and bfloat16 are
computed in float32, since the series' coefficients need float32's precision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src.avals import aval_of
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.jit import jit
from stablax._src.lax._elementwise import (
    le,
    select,
    sign,
)
from stablax._src.lax._elementwise_common import (
    FLOAT,
    _prepare,
    check_dtype,
)
from stablax._src.lax._elementwise_unary import abs as _abs
from stablax._src.lax._elementwise_unary import (
    bessel_i1e,
    sqrt,
)
from stablax._src.lax._shapes import convert_element_type, full_like

# Chebyshev coefficients, highest order first (Cephes i0.c); float32 keeps the last terms only.
_SMALL_X_COEFFICIENTS = (
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
)
_LARGE_X_COEFFICIENTS = (
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)
# How many trailing terms Cephes' float32 version (i0f.c) keeps.
_FLOAT32_TERMS = {"small": 18, "large": 7}


def _chebyshev_sum(t: Any, coefficients: tuple[float, ...]) -> Any:
    # Clenshaw: b_k = t * b_{k+1} - b_{k+2} + c_k, from the highest order down; the series
    # sum_k c_k T_k(t / 2) with the constant term halved is (b_0 - b_2) / 2.
    b0, b1, b2 = full_like(t, coefficients[0]), full_like(t, 0), None
    for c in coefficients[1:]:
        b0, b1, b2 = t * b0 - b1 + c, b0, b1
    return (b0 - b2) * 0.5


@jit
def _i0e_value(x: Any) -> Any:
    wide = aval_of(x).dtype == np.float64
    small = _SMALL_X_COEFFICIENTS if wide else _SMALL_X_COEFFICIENTS[-_FLOAT32_TERMS["small"] :]
    large = _LARGE_X_COEFFICIENTS if wide else _LARGE_X_COEFFICIENTS[-_FLOAT32_TERMS["large"] :]
    ax = _abs(x)
    near = _chebyshev_sum(ax * 0.5 - 2.0, small)
    far = _chebyshev_sum(32.0 / ax - 2.0, large) / sqrt(ax)
    return select(le(ax, 8.0), near, far)


_i0e = custom_jvp(lambda x: _i0e_value(x))
# d/dx i0e(x) = i1e(x) - sign(x) i0e(x)
_i0e.defjvps(lambda t, y, x: t * (bessel_i1e(x) - sign(x) * y))


def bessel_i0e(x: Any) -> Any:
    """Exponentially scaled modified Bessel function of order 0, exp(-|x|) I0(x), elementwise.

    Like `scipy.special.i0e`; float16 and bfloat16 are computed in float32.
    """
    (x,) = _prepare("bessel_i0e", x)
    dtype = aval_of(x).dtype
    check_dtype("bessel_i0e", dtype, (FLOAT,))
    if dtype.itemsize >= 4:
        return _i0e(x)
    return convert_element_type(_i0e(convert_element_type(x, np.float32)), dtype)
