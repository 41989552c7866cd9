"""stablax.scipy.optimize.minimize: BFGS and L-BFGS against SciPy's minimizers and known optima."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize as so

import stablax
import stablax.numpy as jnp
from stablax.scipy.optimize import OptimizeResults, minimize

METHODS = ["BFGS", "l-bfgs-experimental-do-not-rely-on-this"]


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def rosenbrock_np(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def quadratic(x, center, scale):
    return jnp.sum(scale * (x - center) ** 2)


@pytest.mark.parametrize("method", METHODS)
def test_rosenbrock_converges_to_scipys_minimum(method, x64):
    x0 = np.array([-1.2, 1.0, 0.5, 0.3])
    result = minimize(rosenbrock, x0, method=method)
    assert isinstance(result, OptimizeResults)
    expected = so.minimize(rosenbrock_np, x0, method="BFGS").x
    np.testing.assert_allclose(result.x, expected, atol=1e-4)
    assert bool(result.success) and int(result.status) == 0
    np.testing.assert_allclose(result.fun, rosenbrock_np(np.asarray(result.x)), rtol=1e-12)
    assert np.max(np.abs(np.asarray(result.jac))) < 1e-5
    assert int(result.nit) > 0 and int(result.nfev) >= int(result.nit)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quadratic_with_args(method, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    center, scale = np.array([1.0, -2.0, 3.0], dtype), np.array([1.0, 2.0, 0.5], dtype)
    result = minimize(quadratic, np.zeros(3, dtype), (center, scale), method=method)
    assert result.x.dtype == dtype
    np.testing.assert_allclose(result.x, center, atol=1e-4)
    if method == "BFGS":  # the inverse Hessian estimate approaches diag(1 / (2 scale))
        np.testing.assert_allclose(np.diag(result.hess_inv), 1 / (2 * scale), rtol=0.2)
    else:
        assert result.hess_inv is None


def test_minimize_runs_under_jit_and_vmap():
    centers = np.array([[1.0, 2.0], [-1.0, 0.5]], np.float32)

    def solve(c):
        return minimize(lambda x: jnp.sum((x - c) ** 2), jnp.zeros(2), method="BFGS").x

    np.testing.assert_allclose(stablax.jit(solve)(centers[0]), centers[0], atol=1e-5)
    np.testing.assert_allclose(stablax.vmap(solve)(centers), centers, atol=1e-5)


def test_maxiter_sets_status_one(x64):
    result = minimize(rosenbrock, np.array([-1.2, 1.0]), method="BFGS", options={"maxiter": 3})
    assert int(result.nit) == 3 and int(result.status) == 1 and not bool(result.success)


def test_errors():
    with pytest.raises(ValueError, match="Method nelder-mead not recognized"):
        minimize(rosenbrock, np.zeros(2), method="nelder-mead")
    with pytest.raises(TypeError, match="must be a tuple"):
        minimize(quadratic, np.zeros(2), [1.0, 2.0], method="BFGS")
