"""lax.igamma, igammac, igamma_grad_a, random_gamma_grad: values against scipy and recorded JAX
outputs, derivatives against finite differences, jit and vmap."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax.test_util import check_grads

A_GRID, X_GRID = np.meshgrid(np.geomspace(1e-3, 100, 25), np.geomspace(1e-4, 200, 25))


def _assert_close_to_scipy(got, want, dtype):
    # float32: relative 5e-5 (exp of a*log(x) - x - lgamma(a) loses ~|log P| ulps), plus an
    # absolute floor for Q = 1 - P computed by cancellation, as in XLA.
    rtol, atol = (5e-5, 1e-5) if dtype == np.float32 else (1e-10, 1e-13)
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fun, reference", [(lax.igamma, sp.gammainc), (lax.igammac, sp.gammaincc)])
def test_values_match_scipy_on_a_grid(x64, fun, reference, dtype):
    a, x = A_GRID.astype(dtype), X_GRID.astype(dtype)
    got = fun(a, x)
    assert got.dtype == dtype and got.shape == a.shape
    _assert_close_to_scipy(got, reference(a.astype(np.float64), x.astype(np.float64)), dtype)


@settings(max_examples=25, deadline=None)
@given(
    # Up to a = 50: nearer a = x = 100 the float32 algorithm (JAX's, which stablax matches bit
    # for bit: igamma(99.2576, 99.2539) = 0.51315796 in both) is off by ~1e-4 relative.
    a=st.floats(1e-3, 50.0),
    x=st.floats(1e-4, 200.0),
)
def test_values_match_scipy_at_random_points(a, x):
    a32, x32 = np.float32(a), np.float32(x)
    want = sp.gammainc(np.float64(a32), np.float64(x32))
    _assert_close_to_scipy(lax.igamma(a32, x32), want, np.float32)
    _assert_close_to_scipy(lax.igammac(a32, x32), 1 - want, np.float32)


# Recorded with jax 0.10.2 (float32): domain edges, NaNs, infinities and underflow.
EDGE_A = np.array([0.0, 0.0, 1.0, -1.0, 1.0, 2.0, np.nan, 1.0, 0.5, 1e-3], np.float32)
EDGE_X = np.array([0.0, 1.0, 0.0, 1.0, -1.0, np.inf, 1.0, np.nan, 1e-30, 1e-4], np.float32)
nan = np.nan
EDGE_JAX = {
    lax.igamma: [nan, 1, 0, nan, nan, 1, nan, nan, 1.1283793e-15, 9.9140412e-01],
    lax.igammac: [nan, 0, 1, nan, nan, 0, nan, nan, 1, 0.00859588],
    lax.igamma_grad_a: [nan, nan, 0, nan, nan, nan, nan, nan, -7.798686e-14, -8.560643],
    lax.random_gamma_grad: [nan, nan, 0, nan, nan, nan, nan, nan, 1.3822808e-28, 8.6357301e-01],
}


@pytest.mark.parametrize("fun", list(EDGE_JAX), ids=lambda f: f.__name__)
def test_domain_edges_match_jax(fun):
    np.testing.assert_allclose(fun(EDGE_A, EDGE_X), EDGE_JAX[fun], rtol=1e-6)


# Recorded with jax 0.10.2.
POINTS_A = np.array([0.01, 0.5, 1.0, 3.0, 30.0, 0.2])
POINTS_X = np.array([0.3, 0.01, 2.5, 3.5, 25.0, 40.0])
SAMPLE_GRAD_F64 = [37.034760047760756, 0.0935440337053915, 1.79703223326168, 1.1407089488065463,
                   0.9166815997356533, 8.82942194304388]  # fmt: skip
SAMPLE_GRAD_F32 = [37.03478240966797, 0.09354404360055923, 1.797031283378601, 1.1407088041305542,
                   0.9166818261146545, 8.829421997070312]  # fmt: skip
GRAD_A_F64 = [-0.9087458022685478, -0.5225143377974829, -0.1475093883943868, -0.21098435618983494,
              -0.04995487742583563, -4.271815568352976e-19]  # fmt: skip


def test_derivatives_in_a_match_jax(x64):
    np.testing.assert_allclose(lax.random_gamma_grad(POINTS_A, POINTS_X), SAMPLE_GRAD_F64, 1e-12)
    np.testing.assert_allclose(lax.igamma_grad_a(POINTS_A, POINTS_X), GRAD_A_F64, 1e-12)
    a32, x32 = POINTS_A.astype(np.float32), POINTS_X.astype(np.float32)
    np.testing.assert_allclose(lax.random_gamma_grad(a32, x32), SAMPLE_GRAD_F32, 1e-6)


def test_derivatives_in_a_match_scipy_finite_differences(x64):
    a, x = A_GRID[::3, ::3], X_GRID[::3, ::3]
    a, x = a[(a > 0.05)], x[(a > 0.05)]  # keep a - h well inside the domain
    h = 1e-5 * a
    dp_da = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    np.testing.assert_allclose(lax.igamma_grad_a(a, x), dp_da, rtol=1e-6, atol=1e-9)
    # Implicit derivative: the sample x moves with a so that the CDF value stays put.
    u = sp.gammainc(a, x)
    keep = (u > 1e-8) & (u < 1 - 1e-8)
    a, x, u, h = a[keep], x[keep], u[keep], h[keep]
    dx_da = (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(lax.random_gamma_grad(a, x), dx_da, rtol=1e-5)


@pytest.mark.parametrize("fun", [lax.igamma, lax.igammac], ids=lambda f: f.__name__)
def test_grads_match_finite_differences(x64, fun):
    # both branches: the series (x <= max(a, 1)) and the continued fraction
    a = np.array([0.7, 2.5, 12.0, 0.3, 1.5])
    x = np.array([0.4, 4.0, 9.0, 2.0, 1.0])
    check_grads(fun, (a, x), 1, rtol=1e-6)


def test_grad_matches_jax_and_second_order_is_refused():
    # jax.grad(lax.igamma, (0, 1))(1.5, 2.0) and jax.grad(lax.igammac, (0, 1))(1.5, 0.5)
    np.testing.assert_allclose(stablax.grad(lax.igamma, (0, 1))(1.5, 2.0), [-0.27743337, 0.2159638])
    np.testing.assert_allclose(
        stablax.grad(lax.igammac, (0, 1))(1.5, 0.5), [0.29409865, -0.4839413], rtol=1e-6
    )
    with pytest.raises(NotImplementedError, match="igamma_grad_a"):
        stablax.grad(stablax.grad(lax.igamma))(1.5, 2.0)
    with pytest.raises(NotImplementedError, match="random_gamma_grad"):
        stablax.grad(lax.random_gamma_grad)(1.5, 2.0)


@pytest.mark.parametrize(
    "fun",
    [lax.igamma, lax.random_gamma_grad],  # the value and derivative modes of both loops
    ids=lambda f: f.__name__,
)
def test_jit_and_vmap_agree_with_eager(fun):
    a = np.array([[0.2, 1.0, 4.0], [9.0, 0.5, 30.0]], np.float32)
    x = np.array([[0.1, 3.0, 2.0], [12.0, 0.5, 28.0]], np.float32)
    eager = np.asarray(fun(a, x))
    np.testing.assert_array_equal(stablax.jit(fun)(a, x), eager)
    np.testing.assert_array_equal(stablax.vmap(fun)(a, x), eager)
    np.testing.assert_array_equal(stablax.vmap(fun, (0, None))(a, x[0]), [fun(r, x[0]) for r in a])


def test_dtypes_weak_types_and_errors():
    out = lax.igamma(1.5, 2.0)
    assert out.dtype == np.float32 and out.weak_type
    for dtype in (np.float16, jnp.bfloat16):
        a = jnp.array([0.5, 2.0], dtype)
        got = lax.igammac(a, a)
        assert got.dtype == dtype
        np.testing.assert_allclose(np.float32(got), sp.gammaincc([0.5, 2.0], [0.5, 2.0]), 1e-2)
    np.testing.assert_allclose(lax.igamma(np.ones(3, np.float32), 2.0), [0.8646648] * 3, 1e-6)
    with pytest.raises(TypeError, match="lax.igamma requires arguments to have the same dtypes"):
        lax.igamma(np.ones(3, np.float32), np.ones(3, np.float16))
    with pytest.raises(TypeError, match="lax.igammac does not accept dtype int32"):
        lax.igammac(np.ones(3, np.int32), np.ones(3, np.int32))
    with pytest.raises(TypeError, match="igamma_grad_a got incompatible shapes"):
        lax.igamma_grad_a(np.ones(3, np.float32), np.ones(2, np.float32))


@pytest.mark.parametrize("name", ["igamma", "igammac", "igamma_grad_a"])
def test_incomplete_gamma_checks_an_arrays_dtype_before_adopting_a_python_scalar(name):
    # JAX 0.10.2 refuses the integer dtypes (TypeError); stablax adopted 300 into int8 first and
    # raised OverflowError (fuzz seed 3812)
    with pytest.raises(TypeError, match="does not accept dtype int8"):
        getattr(lax, name)(300, np.ones(3, np.int8))
    with pytest.raises(TypeError, match="does not accept dtype int8"):
        getattr(lax, name)(np.ones(3, np.int8), 300)


def test_betainc_checks_the_arrays_dtypes_before_adopting_a_python_scalar():
    # JAX 0.10.2: TypeError for the uint8 arrays; stablax adopted -1 into uint8 first and raised
    # OverflowError (fuzz seed 3812)
    u8 = np.ones(3, np.uint8)
    with pytest.raises(TypeError, match="does not accept dtype uint8"):
        stablax.jit(lambda a, x: lax.betainc(a, -1, x))(u8, u8)
