"""The early paths stablax.experimental.stax / optimizers / minmax, and the first JAX README's
stax + minmax example.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import grad, jit, random, tree_util
from stablax.example_libraries import optimizers, stax
from stablax.experimental import minmax
from stablax.experimental import optimizers as experimental_optimizers
from stablax.experimental import stax as experimental_stax
from stablax.experimental.stax import Conv, Dense, Flatten, MaxPool, Relu, Softmax


@pytest.mark.parametrize(
    "early, module", [(experimental_stax, stax), (experimental_optimizers, optimizers)]
)
def test_early_paths_hold_the_same_objects(early, module):
    assert early.__all__ == module.__all__
    for name in module.__all__:
        assert getattr(early, name) is getattr(module, name), name


def test_seed_readme_example():
    # The README of December 2018, with three fixes any JAX needs to run it: Flatten and
    # Softmax imported (the README spells it SoftMax), init_fun's PRNG key (stax has taken one
    # since early 2019), and an image-shaped input for the Conv layers. Channels are narrowed
    # to keep the test fast.
    net_init, net_apply = experimental_stax.serial(
        Conv(4, (3, 3), padding="SAME"), Relu,
        Conv(8, (3, 3), padding="SAME"), Relu,
        MaxPool((2, 2)), Flatten,
        Dense(16), Relu,
        Dense(10), Softmax,
    )  # fmt: skip
    in_shape = (-1, 8, 8, 1)
    out_shape, net_params = net_init(random.PRNGKey(0), in_shape)
    assert out_shape[-1] == 10  # the batch size is JAX's (0 after MaxPool's shape rule)
    inputs = random.normal(random.PRNGKey(1), (6, 8, 8, 1))
    targets = jnp.eye(10)[jnp.arange(6)]
    predictions = net_apply(net_params, inputs)
    np.testing.assert_allclose(np.asarray(predictions).sum(axis=1), np.ones(6), rtol=1e-5)

    def loss(params, batch):
        x, y = batch
        return -jnp.mean(jnp.sum(jnp.log(net_apply(params, x)) * y, axis=1))

    # from here on exactly as printed (step size raised so that 20 steps show progress)
    opt_init, opt_update = minmax.momentum(step_size=2e-2, mass=0.9)

    @jit
    def step(i, opt_state, batch):
        params = minmax.get_params(opt_state)
        g = grad(loss)(params, batch)
        return opt_update(i, g, opt_state)

    batch = (inputs, targets)
    opt_state = opt_init(net_params)
    for i in range(20):
        opt_state = step(i, opt_state, batch)
    trained = minmax.get_params(opt_state)
    assert float(loss(trained, batch)) < 0.5 * float(loss(net_params, batch))
    assert tree_util.tree_structure(trained) == tree_util.tree_structure(net_params)


@pytest.mark.parametrize(
    "name, args",
    [
        ("sgd", (0.1,)),
        ("momentum", (0.1, 0.9)),
        ("nesterov", (0.1, 0.9)),
        ("adagrad", (0.1,)),
        ("rmsprop", (0.1,)),
        ("rmsprop_momentum", (0.1,)),
        ("adam", (0.1,)),
        ("adamax", (0.1,)),
        ("sm3", (0.1,)),
    ],
)
def test_pairs_follow_the_optimizers(name, args):
    pair = getattr(minmax, name)(*args)
    assert len(pair) == 2
    opt_init, opt_update = pair
    init_fun, update_fun, get_params = getattr(optimizers, name)(*args)
    params = {"w": jnp.array([[1.0, -2.0], [0.5, 3.0]]), "b": jnp.array([0.1, -0.1])}
    grads = tree_util.tree_map(lambda p: 0.5 * p - 1.0, params)
    ours, theirs = opt_init(params), init_fun(params)
    for i in range(3):
        ours, theirs = opt_update(i, grads, ours), update_fun(i, grads, theirs)
    for a, b in zip(
        tree_util.tree_leaves(minmax.get_params(ours)),
        tree_util.tree_leaves(get_params(theirs)),
        strict=True,
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert minmax.iterate is minmax.get_params


def test_get_params_rejects_other_states():
    init_fun, _, _ = optimizers.sgd(0.1)
    with pytest.raises(TypeError, match="minmax.get_params"):
        minmax.get_params(init_fun(jnp.ones(2)))


def test_minmax_optimizer_decorator():
    @minmax.optimizer
    def halve():
        return (lambda x: x, lambda i, g, x: x - 0.5 * g, lambda x: x)

    opt_init, opt_update = halve()
    state = stablax.jit(opt_update)(0, [jnp.ones(2)], opt_init([jnp.ones(2)]))
    np.testing.assert_allclose(minmax.get_params(state)[0], [0.5, 0.5])
