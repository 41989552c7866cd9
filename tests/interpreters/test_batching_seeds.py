"""The vmap examples users meet first (JAX's README, tutorials and talks; /work/shared/seeds),
run as written except for random keys (NumPy generators here), against the explicit computation.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import stablax.numpy as jnp
from stablax import grad, jit, tree_util, vmap


def _np(x):
    return np.asarray(x)


@pytest.fixture
def mat_and_batch(rng):
    mat = rng.normal(size=(150, 100)).astype(np.float32)
    batched_x = rng.normal(size=(10, 100)).astype(np.float32)
    return jnp.asarray(mat), jnp.asarray(batched_x)


def _close(actual, expected):
    np.testing.assert_allclose(_np(actual), expected, rtol=2e-5, atol=2e-5)


# --- "A bird's-eye view of Google JAX": matrix-vector products ---------------------------------


def test_matrix_vector_products_in_axes_none_0(mat_and_batch):
    mat, batched_x = mat_and_batch
    expected = _np(batched_x) @ _np(mat).T
    _close(vmap(lambda mat, v: jnp.dot(mat, v), (None, 0))(mat, batched_x), expected)

    def apply_matrix(v):
        return jnp.dot(mat, v)

    _close(vmap(apply_matrix, 0)(batched_x), expected)
    _close(jit(vmap(apply_matrix))(batched_x), expected)


def test_in_axes_1_and_out_axes_1(mat_and_batch, rng):
    mat, _ = mat_and_batch
    columns = jnp.asarray(rng.normal(size=(100, 10)).astype(np.float32))

    def apply_matrix(v):
        return jnp.dot(mat, v)

    _close(vmap(apply_matrix, 1, 0)(columns), (_np(mat) @ _np(columns)).T)
    _close(vmap(apply_matrix, 1, 1)(columns), _np(mat) @ _np(columns))


def test_matrix_matrix_product_from_vdot_by_nested_vmap(mat_and_batch):
    mat, batched_x = mat_and_batch

    def vv(v1, v2):
        return jnp.vdot(v1, v2)

    mv = vmap(vv, (0, None), 0)  # ([b,a], [a]) -> [b]
    mm = vmap(mv, (None, 1), 0)  # ([b,a], [a,c]) -> [c,b]
    expected = _np(batched_x) @ _np(mat).T
    _close(mv(mat, batched_x[0]), _np(mat) @ _np(batched_x)[0])
    _close(mm(mat, batched_x.T), expected)
    _close(vmap(mv, (None, 0), 0)(mat, batched_x), expected)
    _close(jit(mm)(mat, batched_x.T), expected)


# --- JAX's README: predictions and per-example gradients of an MLP -----------------------------


def _init(rng, sizes):
    return [
        (
            jnp.asarray((rng.normal(size=(n, m)) / np.sqrt(m)).astype(np.float32)),
            jnp.asarray(rng.normal(size=n).astype(np.float32)),
        )
        for m, n in zip(sizes[:-1], sizes[1:], strict=True)
    ]


def predict(params, input_vec):
    assert input_vec.ndim == 1
    for W, b in params:
        output_vec = jnp.dot(W, input_vec) + b  # `input_vec` on the right-hand side!
        input_vec = jnp.tanh(output_vec)
    return output_vec


def logprob_fun(params, inputs, targets):
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)


def test_vmap_of_a_single_example_predictor(rng):
    params = _init(rng, [5, 7, 3])
    input_batch = jnp.asarray(rng.normal(size=(4, 5)).astype(np.float32))
    predictions = vmap(partial(predict, params))(input_batch)
    looped = np.stack(list(map(lambda x: _np(predict(params, x)), input_batch)))
    _close(predictions, looped)


def test_readme_per_example_gradients(rng):
    params = _init(rng, [5, 7, 3])
    inputs = jnp.asarray(rng.normal(size=(6, 5)).astype(np.float32))
    targets = jnp.asarray(rng.normal(size=(6, 3)).astype(np.float32))
    grad_fun = jit(grad(logprob_fun))  # compiled gradient evaluation function
    perex_grads = jit(
        lambda params, inputs, targets: vmap(partial(grad_fun, params))(inputs, targets)
    )
    batched = perex_grads(params, inputs, targets)
    also = vmap(grad(logprob_fun), in_axes=(None, 0, 0))(params, inputs, targets)
    for i in range(6):
        expected = grad_fun(params, inputs[i], targets[i])
        for got, other, want in zip(
            tree_util.tree_leaves(batched),
            tree_util.tree_leaves(also),
            tree_util.tree_leaves(expected),
            strict=True,
        ):
            _close(_np(got)[i], _np(want))
            _close(_np(other)[i], _np(want))


# --- "JAX 12": per-example gradients with in_axes=(None, 0) over a (inputs, targets) batch -----


def mnist_predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def loss(params, batch):
    inputs, targets = batch
    preds = mnist_predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)  # SME


def test_preexample_grads_over_a_batch_tuple(rng):
    params = [(w.T, b) for w, b in _init(rng, [8, 6, 2])]
    inputs = jnp.asarray(rng.normal(size=(5, 8)).astype(np.float32))
    targets = jnp.asarray(rng.normal(size=(5, 2)).astype(np.float32))
    preexample_grads = vmap(grad(loss), in_axes=(None, 0))
    grads = preexample_grads(params, (inputs, targets))
    for i in range(5):
        expected = grad(loss)(params, (inputs[i], targets[i]))
        for got, want in zip(
            tree_util.tree_leaves(grads), tree_util.tree_leaves(expected), strict=True
        ):
            _close(_np(got)[i], _np(want))


# --- "JAX: compiles the future": vmap(grad(g), in_axes=(None, 0, 0)) ---------------------------


def _sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def f(w, x):
    return _sigmoid(w * x)


def g(w, x, y):
    return (f(w, x) - y) ** 2


def test_grad_batched_with_shared_weight(rng):
    w = jnp.asarray(np.float32(0.7))
    xs = rng.normal(size=16).astype(np.float32)
    ys = rng.uniform(size=16).astype(np.float32)
    grad_batched = vmap(grad(g), in_axes=(None, 0, 0))
    batched = grad_batched(w, xs, ys)
    s = 1.0 / (1.0 + np.exp(-0.7 * xs.astype(np.float64)))
    expected = 2.0 * (s - ys) * s * (1.0 - s) * xs  # d/dw (sigmoid(w x) - y)^2
    np.testing.assert_allclose(_np(batched), expected, rtol=1e-5, atol=1e-6)
    looped = [_np(grad(g)(w, x, y)) for x, y in zip(xs, ys, strict=True)]
    np.testing.assert_allclose(_np(batched), looped, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(_np(jit(grad_batched)(w, xs, ys)), looped, rtol=1e-6, atol=1e-7)
