"""lax.bessel_i0e (composed from elementwise ops) and the derivative of lax.bessel_i1e: values
against scipy at the precision of Cephes' series, edges, and derivatives through zero."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sp

import stablax
from stablax import lax
from stablax.test_util import check_grads

# Dense on both Chebyshev ranges, with the switch at |x| = 8 and its neighbours, and far out.
GRID = np.concatenate(
    [np.linspace(-30.0, 30.0, 1201), [0.0, 8.0, -8.0, 7.9999, 8.0001, 1e-30, 500.0, 1e5]]
)
RTOL = {np.float32: 1e-6, np.float64: 1e-13}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_i0e_matches_scipy(x64, dtype):
    x = GRID.astype(dtype)
    want = sp.i0e(x.astype(np.float64))
    for fun in (lax.bessel_i0e, stablax.jit(lax.bessel_i0e)):
        got = fun(x)
        assert got.dtype == dtype
        np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=RTOL[dtype], atol=0)


def test_i0e_edges_and_dtypes():
    # i0e(0) = 1 comes out one ulp low in float32, as in Cephes and JAX
    np.testing.assert_allclose(
        lax.bessel_i0e(np.array([np.inf, -np.inf, np.nan, 0.0], np.float32)),
        [0, 0, np.nan, 1],
        rtol=2e-7,
    )
    assert lax.bessel_i0e(1.0).aval.weak_type
    for dtype in (np.float16, ml_dtypes.bfloat16):
        x = np.array([-9.0, -1.0, 0.5, 12.0], dtype)
        got = lax.bessel_i0e(x)
        assert got.dtype == dtype
        np.testing.assert_allclose(
            np.asarray(got, np.float64), sp.i0e(x.astype(np.float64)), rtol=1e-2
        )
    with pytest.raises(TypeError, match=r"^lax\.bessel_i0e does not accept dtype int32"):
        lax.bessel_i0e(np.array([1, 2], np.int32))


def _d_i1e(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0.5, sp.i0e(x) - sp.i1e(x) * (np.sign(x) + 1 / x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_derivatives_match_closed_forms(x64, dtype):
    x = np.concatenate([GRID, [-1e-30, -1e-8]]).astype(dtype)
    x64_ = x.astype(np.float64)
    atol = 5e-7 if dtype == np.float32 else 2e-15
    d_i0e = stablax.vmap(stablax.grad(lax.bessel_i0e))(x)
    want_i0e = sp.i1e(x64_) - np.sign(x64_) * sp.i0e(x64_)
    np.testing.assert_allclose(np.asarray(d_i0e, np.float64), want_i0e, rtol=0, atol=atol)
    d_i1e = stablax.jit(stablax.vmap(stablax.grad(lax.bessel_i1e)))(x)
    np.testing.assert_allclose(np.asarray(d_i1e, np.float64), _d_i1e(x64_), rtol=0, atol=atol)
    assert np.asarray(stablax.grad(lax.bessel_i1e)(dtype(0.0))) == 0.5


@pytest.mark.parametrize("fun", [lax.bessel_i0e, lax.bessel_i1e], ids=lambda f: f.__name__)
def test_second_order_grads(x64, fun):
    x = np.array([-9.5, -2.0, -0.3, 0.7, 4.0, 8.5, 15.0])
    check_grads(fun, (x,), order=2, modes=("fwd", "rev"))
