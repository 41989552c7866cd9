"""stablax.experimental.ode.odeint: solutions against SciPy's solve_ivp and closed forms; the
adjoint-method derivatives against finite differences (float64)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import stablax
import stablax.numpy as jnp
from stablax.experimental.ode import odeint


def decay(y, t, rate):
    return -rate * y + jnp.sin(t)


def _solve_ivp(f, y0, ts, *args):
    return solve_ivp(lambda t, y: f(y, t, *args), (ts[0], ts[-1]), y0, t_eval=ts,
                     rtol=1e-11, atol=1e-11).y.T  # fmt: skip


def test_matches_solve_ivp(x64):
    ts = np.linspace(0.0, 3.0, 7)
    y0, rate = np.array([1.0, -0.5, 2.0]), 0.8
    ys = odeint(decay, y0, ts, rate)
    np.testing.assert_allclose(ys, _solve_ivp(lambda y, t, r: -r * y + np.sin(t), y0, ts, rate),
                               rtol=1e-7, atol=1e-7)  # fmt: skip


def test_float32_and_pytree_state():
    ts = jnp.linspace(0.0, 1.0, 4)

    def rotate(state, t):
        return {"x": -state["y"], "y": state["x"]}

    out = odeint(rotate, {"x": jnp.float32(1.0), "y": jnp.float32(0.0)}, ts)
    assert out["x"].shape == (4,) and out["x"].dtype == np.float32
    np.testing.assert_allclose(out["x"], np.cos(np.asarray(ts)), atol=1e-5)
    np.testing.assert_allclose(out["y"], np.sin(np.asarray(ts)), atol=1e-5)


def _finite_difference_gradient(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    return grad


def test_adjoint_gradients_match_finite_differences(x64):
    ts = np.array([0.0, 0.4, 1.1, 2.0])
    y0, rate = np.array([1.0, 2.0]), np.array(0.7)

    @stablax.jit  # traced once: the finite differences below reuse the compiled program
    def loss(y0, ts, rate):
        return jnp.sum(odeint(decay, y0, ts, rate, rtol=1e-10, atol=1e-10) ** 2)

    g_y0, g_ts, g_rate = stablax.grad(loss, argnums=(0, 1, 2))(y0, ts, rate)
    np.testing.assert_allclose(g_y0, _finite_difference_gradient(lambda v: loss(v, ts, rate), y0),
                               rtol=1e-6, atol=1e-6)  # fmt: skip
    np.testing.assert_allclose(g_ts, _finite_difference_gradient(lambda v: loss(y0, v, rate), ts),
                               rtol=1e-6, atol=1e-6)  # fmt: skip
    np.testing.assert_allclose(g_rate, _finite_difference_gradient(lambda v: loss(y0, ts, v), rate),
                               rtol=1e-6, atol=1e-6)  # fmt: skip


def test_gradient_through_closed_over_values_and_jit(x64):
    ts = np.linspace(0.0, 1.5, 3)
    y0 = np.array([0.5])

    @stablax.jit
    def loss(k):
        return odeint(lambda y, t: -k * y**2, y0, ts)[-1, 0]  # k is closed over

    exact = lambda k: 0.5 / (1 + 0.5 * k * 1.5)  # noqa: E731  y' = -k y^2
    np.testing.assert_allclose(loss(2.0), exact(2.0), rtol=1e-7)
    np.testing.assert_allclose(stablax.jit(stablax.grad(loss))(2.0),
                               _finite_difference_gradient(exact, 2.0), rtol=1e-6)  # fmt: skip


def test_errors():
    with pytest.raises(TypeError, match="t must be an array of floats"):
        odeint(decay, np.ones(2), np.arange(3), 1.0)
    with pytest.raises(TypeError, match="must be arrays or scalars"):
        odeint(decay, np.ones(2), np.linspace(0, 1, 3), "fast")
