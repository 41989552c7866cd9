"""stablax.example_libraries.stax: JAX's names, JAX's parameter bits for the same keys (recorded
by scripts/record_example_libraries.py), every layer's output against a NumPy forward pass,
output shapes against init's, and a short training run that lowers the loss.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import random, tree_util
from stablax.example_libraries import optimizers, stax
from stablax.nn import initializers as init

from . import stax_numpy as ref

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "example_libraries"
CASES = json.loads((DATA / "cases.json").read_text())["stax"]
VALUES = np.load(DATA / "values.npz")
API = pathlib.Path(__file__).resolve().parent.parent / "api"

NHWC = ("NHWC", "HWIO", "NHWC")
# case id -> the NumPy forward pass of the case's layer (dropout is checked on its own)
NUMPY_FORWARD = {
    "dense": ref.dense,
    "dense_init": ref.dense,
    "conv": ref.conv(NHWC, (2, 2), "SAME"),
    "conv_valid": ref.conv(NHWC, None, "VALID"),
    "general_conv": ref.conv(("NCHW", "OIHW", "NCHW"), None, "SAME"),
    "conv_transpose": ref.conv_transpose(NHWC, (2, 2), "VALID"),
    "conv1d_transpose": ref.conv_transpose(("NHC", "HIO", "NHC"), None, "SAME"),
    "general_conv_transpose": ref.conv_transpose(("NCH", "OIH", "NCH"), (2,), "VALID"),
    "batchnorm": ref.batchnorm((0, 1, 2)),
    "batchnorm_axis": ref.batchnorm(0, center=False),
    "maxpool": ref.pool("max", (2, 2), (2, 2)),
    "sumpool_same": ref.pool("sum", (3, 3), None, "SAME"),
    "avgpool_same": ref.pool("avg", (2, 3), (2, 1), "SAME"),
    "avgpool_spec": ref.pool("avg", (2, 2), None, "VALID", "NCHW"),
    "dropout_test": ref.identity,
    "mlp": ref.serial(ref.dense, ref.elementwise("Relu"), ref.dense, ref.elementwise("LogSoftmax")),
    "mlp_all_activations": ref.serial(
        *[
            f
            for name in (
                "Tanh",
                "Sigmoid",
                "Elu",
                "LeakyRelu",
                "Selu",
                "Gelu",
                "Softplus",
                "Exp",
                "Softmax",
            )  # fmt: skip
            for f in (ref.dense, ref.elementwise(name))
        ]
    ),
    "cnn": ref.serial(
        ref.conv(NHWC, None, "SAME"),
        ref.elementwise("Relu"),
        ref.pool("max", (2, 2), (2, 2)),
        ref.flatten,
        ref.dense,
        ref.elementwise("LogSoftmax"),
    ),
    "residual": ref.serial(
        ref.dense,
        ref.fan_out(2),
        ref.parallel(ref.serial(ref.dense, ref.elementwise("Relu")), ref.identity),
        ref.fan_in_sum,
    ),
    "concat": ref.serial(
        ref.fan_out(3),
        ref.parallel(ref.dense, ref.dense, ref.elementwise("Tanh")),
        ref.fan_in_concat(),
    ),
    "shape_dependent": ref.dense,
}
DROPOUT = {"dropout": 0.7, "serial_dropout": None}


def _layer(case):
    return eval(case["expr"], {"stax": stax, "init": init})


def _init(case):
    init_fun, apply_fun = _layer(case)
    out_shape, params = init_fun(random.PRNGKey(case["seed"]), tuple(case["shape"]))
    return apply_fun, out_shape, params


def _apply(case, apply_fun, params):
    x = jnp.asarray(VALUES[f"{case['id']}/input"])
    kwargs = {} if case["apply_seed"] is None else {"rng": random.PRNGKey(case["apply_seed"])}
    return apply_fun(params, x, **kwargs)


def _host64(tree):
    return tree_util.tree_map(lambda a: np.asarray(a, np.float64), tree)


@pytest.mark.parametrize("module", ["stax", "optimizers"])
def test_every_jax_name_is_there(module):
    names = (API / f"jax.example_libraries.{module}.txt").read_text().split()
    ours = {"stax": stax, "optimizers": optimizers}[module]
    assert [n for n in names if not hasattr(ours, n)] == []


def test_every_case_has_an_oracle():
    assert {c["id"] for c in CASES} == set(NUMPY_FORWARD) | set(DROPOUT)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_init_matches_jax_bits_and_shape(case):
    _, out_shape, params = _init(case)
    assert [int(d) for d in out_shape] == case["out_shape"]
    leaves = tree_util.tree_leaves(params)
    assert len(leaves) == case["num_params"]
    for k, leaf in enumerate(leaves):
        np.testing.assert_array_equal(np.asarray(leaf), VALUES[f"{case['id']}/params{k}"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_apply_matches_numpy_and_jax(case):
    apply_fun, out_shape, params = _init(case)
    out = np.asarray(_apply(case, apply_fun, params))
    batch = case["shape"][0]
    assert out.shape == tuple(batch if d in (-1, 0) else d for d in out_shape)
    np.testing.assert_allclose(out, VALUES[f"{case['id']}/output"], rtol=2e-5, atol=2e-6)
    x = VALUES[f"{case['id']}/input"].astype(np.float64)
    if case["id"] in DROPOUT:
        return  # the NumPy check of dropout is test_dropout_keeps_and_scales
    want = NUMPY_FORWARD[case["id"]](_host64(params), x)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)


def test_dropout_keeps_and_scales():
    rate = 0.7
    _, apply_fun = stax.Dropout(rate)
    x = jnp.asarray(np.random.default_rng(0).uniform(1.0, 2.0, (200, 50)), jnp.float32)
    out = np.asarray(apply_fun((), x, rng=random.PRNGKey(3)))
    kept = out != 0
    np.testing.assert_allclose(out[kept], np.asarray(x)[kept] / rate, rtol=1e-6)
    assert abs(kept.mean() - rate) < 0.02
    test_out = stax.Dropout(rate, mode="test")[1]((), x, rng=random.PRNGKey(3))
    np.testing.assert_array_equal(np.asarray(test_out), np.asarray(x))
    with pytest.raises(ValueError, match="needs a PRNG key"):
        apply_fun((), x)


def test_serial_splits_apply_keys_per_layer():
    # Two dropout layers in serial draw from different keys, so their masks differ.
    init_fun, apply_fun = stax.serial(stax.Dropout(0.5), stax.Dropout(0.5))
    _, params = init_fun(random.PRNGKey(0), (1, 4000))
    out = np.asarray(apply_fun(params, jnp.ones((1, 4000)), rng=random.PRNGKey(1)))
    assert set(np.unique(out)) <= {0.0, 4.0}
    assert 0.2 < (out != 0).mean() < 0.3


def test_layers_compose_under_jit_grad_and_vmap():
    init_fun, apply_fun = stax.serial(stax.Dense(6), stax.Gelu, stax.Dense(3), stax.LogSoftmax)
    _, params = init_fun(random.PRNGKey(0), (-1, 4))
    x = random.normal(random.PRNGKey(1), (5, 4))
    eager = apply_fun(params, x)
    np.testing.assert_allclose(stablax.jit(apply_fun)(params, x), eager, rtol=1e-6, atol=1e-6)
    per_example = stablax.vmap(apply_fun, in_axes=(None, 0))(params, x)
    np.testing.assert_allclose(per_example, eager, rtol=1e-6, atol=1e-6)
    grads = stablax.grad(lambda p: -apply_fun(p, x)[:, 0].sum())(params)
    assert tree_util.tree_structure(grads) == tree_util.tree_structure(params)


def test_training_lowers_the_loss():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 2)).astype(np.float32)
    labels = (x[:, 0] * x[:, 1] > 0).astype(np.int32)  # XOR of the signs: needs the hidden layer
    targets = np.eye(2, dtype=np.float32)[labels]
    init_fun, apply_fun = stax.serial(stax.Dense(16), stax.Tanh, stax.Dense(2), stax.LogSoftmax)
    _, params = init_fun(random.PRNGKey(0), (-1, 2))
    opt_init, opt_update, get_params = optimizers.adam(0.05)

    def loss(p):
        return -jnp.mean(jnp.sum(apply_fun(p, x) * targets, axis=1))

    @stablax.jit
    def step(i, state):
        return opt_update(i, stablax.grad(loss)(get_params(state)), state)

    state = opt_init(params)
    before = float(loss(params))
    for i in range(150):
        state = step(i, state)
    after = float(loss(get_params(state)))
    assert after < 0.5 * before
    predictions = np.argmax(np.asarray(apply_fun(get_params(state), x)), axis=1)
    assert (predictions == labels).mean() > 0.9


def test_combinator_shapes():
    init_fun, _ = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Identity))
    out_shape, params = init_fun(random.PRNGKey(0), (-1, 5))
    assert [tuple(s) for s in out_shape] == [(-1, 3), (-1, 5)]
    assert stax.FanInConcat(axis=1)[0](None, [(2, 3), (2, 4)])[0] == (2, 7)
    assert stax.Flatten[0](None, (-1, 2, 3, 4))[0] == (-1, 24)


def test_aliases_are_jax_aliases():
    assert stax.glorot is stax.glorot_normal and stax.randn is stax.normal
    assert stax.logsoftmax is stax.log_softmax
    assert stax.relu is stablax.nn.relu and stax.standardize is stablax.nn.standardize
