"""The autodiff examples users meet first (JAX's README and tutorials), run as written.

See /work/shared/seeds: grad of tanh, grad through Python branches, the logistic-regression
training loop, a custom pytree class, and the jit(jacfwd(jacrev(f))) Hessian.
"""

from __future__ import annotations

import numpy as np

import stablax
import stablax.numpy as jnp
from stablax import grad, jacfwd, jacrev, jit, tree_util


def tanh(x):  # the README's definition
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


def test_grad_tanh_float32():
    expected = np.float32(0.41997434)
    for f in (grad(tanh), jit(grad(tanh)), grad(jnp.tanh)):
        g = f(1.0)
        assert g.dtype == np.float32
        # XLA may fuse into an FMA: allow one ulp (JAX's jit(grad(tanh)) gives 0.4199743 too).
        np.testing.assert_array_max_ulp(np.float32(g), expected, maxulp=1)


def test_grad_tanh_float64(x64):
    for f in (grad(tanh), grad(jnp.tanh)):
        g = f(1.0)
        assert g.dtype == np.float64
        np.testing.assert_allclose(float(g), 0.41997434161402603, rtol=1e-15)


def abs_val(x):
    if x > 0:
        return x
    else:
        return -x


def test_grad_through_python_branch():
    abs_val_grad = grad(abs_val)
    assert float(abs_val_grad(1.0)) == 1.0
    assert float(abs_val_grad(-1.0)) == -1.0  # abs_val is re-evaluated


def _sigmoid(x):
    return 0.5 * (jnp.tanh(x / 2.0) + 1)


def _logistic_predictions(weights, inputs):
    return _sigmoid(jnp.dot(inputs, weights))


def _loss(weights, inputs, targets):
    preds = _logistic_predictions(weights, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -jnp.sum(jnp.log(label_probs))


INPUTS = [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
TARGETS = [True, True, False, True]


def _numpy_training(steps: int) -> tuple[np.ndarray, list[float]]:
    x, t = np.array(INPUTS), np.array(TARGETS, np.float64)
    w = np.zeros(3)
    losses = []
    for step in range(steps + 1):
        p = 0.5 * (np.tanh(x @ w / 2) + 1)
        label_probs = p * t + (1 - p) * (1 - t)
        losses.append(-np.sum(np.log(label_probs)))
        if step < steps:  # d loss / d p = -(2t - 1) / label_prob; d p / d z = p (1 - p)
            w = w - 0.1 * (x.T @ (-(2 * t - 1) / label_probs * p * (1 - p)))
    return w, losses


def test_logistic_regression_training_loop():
    inputs = jnp.array(INPUTS)
    targets = jnp.array(TARGETS)
    training_gradient_fun = jit(grad(_loss))
    weights = jnp.array([0.0, 0.0, 0.0])
    losses = [float(_loss(weights, inputs, targets))]
    for _ in range(100):
        weights -= 0.1 * training_gradient_fun(weights, inputs, targets)
        losses.append(float(_loss(weights, inputs, targets)))
    expected_w, expected_losses = _numpy_training(100)
    assert weights.dtype == np.float32
    np.testing.assert_allclose(np.asarray(weights), expected_w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-5, atol=1e-5)
    assert np.all(np.diff(losses) < 0)
    assert f"{losses[0]:0.2f}" == "2.77" and losses[-1] < 1.1


def test_logistic_regression_eager_grad_matches_jit():
    inputs, targets = jnp.array(INPUTS), jnp.array(TARGETS)
    w = jnp.array([0.3, -0.2, 0.1])
    np.testing.assert_allclose(
        np.asarray(grad(_loss)(w, inputs, targets)),
        np.asarray(jit(grad(_loss))(w, inputs, targets)),
        rtol=1e-6,
    )


@tree_util.register_pytree_node_class
class Point:
    def __init__(self, x, y, z):
        self.x = x
        self.y = y
        self.z = z

    def __repr__(self):
        return f"Point({self.x}, {self.y}, {self.z})"

    def tree_flatten(self):
        return ((self.x, self.y, self.z), None)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children)


def dist_orig(pt: Point):
    return jnp.sqrt(pt.x**2 + pt.y**2 + pt.z**2)


def test_point_pytree_gradient():
    g = grad(dist_orig)(Point(1.0, 2.0, 3.0))
    assert isinstance(g, Point)
    np.testing.assert_allclose(
        [float(g.x), float(g.y), float(g.z)], np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0), rtol=1e-6
    )
    assert repr(g).startswith("Point(")


def hessian(fun):
    return jit(jacfwd(jacrev(fun)))


def test_jit_jacfwd_jacrev_hessian():
    def fun(x):
        return jnp.sum(jnp.sin(x) * x[0]) + x[1] ** 3

    x = np.array([0.5, -1.2, 2.0], np.float32)
    h = hessian(fun)(x)
    # f = x0 * sum_i sin(x_i) + x1^3
    expected = np.diag(-x[0] * np.sin(x))
    expected[0, :] += np.cos(x)
    expected[:, 0] += np.cos(x)
    expected[1, 1] += 6 * x[1]
    np.testing.assert_allclose(np.asarray(h), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(stablax.hessian(fun)(x)), expected, rtol=1e-5, atol=1e-5)
