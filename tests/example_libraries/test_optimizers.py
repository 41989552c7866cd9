"""stablax.example_libraries.optimizers: every optimizer's update against its hand-written rule
in NumPy and against JAX's recorded trajectories, eagerly and under jit; schedules, norms,
state packing and the decorator's errors.
"""

from __future__ import annotations

import json
import pathlib
import pickle

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import tree_util
from stablax.example_libraries import optimizers

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "example_libraries"
ALL_CASES = json.loads((DATA / "cases.json").read_text())
CASES = ALL_CASES["optimizers"]
SCHEDULES = ALL_CASES["schedules"]
VALUES = np.load(DATA / "values.npz")


def _sgd(lr):
    def init(x):
        return {}

    def update(i, g, x, s):
        return x - lr(i) * g

    return init, update


def _momentum(lr, mass, nesterov=False):
    def init(x):
        return {"v": np.zeros_like(x)}

    def update(i, g, x, s):
        s["v"] = mass * s["v"] + g
        return x - lr(i) * (mass * s["v"] + g if nesterov else s["v"])

    return init, update


def _adagrad(lr, momentum=0.9):
    def init(x):
        return {"G": np.zeros_like(x), "m": np.zeros_like(x)}

    def update(i, g, x, s):
        s["G"] = s["G"] + g**2
        scaled = np.where(s["G"] > 0, g / np.sqrt(np.where(s["G"] > 0, s["G"], 1)), 0)
        s["m"] = (1 - momentum) * scaled + momentum * s["m"]
        return x - lr(i) * s["m"]

    return init, update


def _rmsprop(lr, gamma=0.9, eps=1e-8, momentum=None):
    def init(x):
        return {"a": np.zeros_like(x), "m": np.zeros_like(x)}

    def update(i, g, x, s):
        s["a"] = gamma * s["a"] + (1 - gamma) * g**2
        step = lr(i) * g / np.sqrt(s["a"] + eps)
        if momentum is None:
            return x - step
        s["m"] = momentum * s["m"] + step
        return x - s["m"]

    return init, update


def _adam(lr, b1=0.9, b2=0.999, eps=1e-8):
    def init(x):
        return {"m": np.zeros_like(x), "v": np.zeros_like(x)}

    def update(i, g, x, s):
        s["m"] = (1 - b1) * g + b1 * s["m"]
        s["v"] = (1 - b2) * g**2 + b2 * s["v"]
        m_hat, v_hat = s["m"] / (1 - b1 ** (i + 1)), s["v"] / (1 - b2 ** (i + 1))
        return x - lr(i) * m_hat / (np.sqrt(v_hat) + eps)

    return init, update


def _adamax(lr, b1=0.9, b2=0.999, eps=1e-8):
    def init(x):
        return {"m": np.zeros_like(x), "u": np.zeros_like(x)}

    def update(i, g, x, s):
        s["m"] = (1 - b1) * g + b1 * s["m"]
        s["u"] = np.maximum(b2 * s["u"], np.abs(g))
        return x - lr(i) / (1 - b1 ** (i + 1)) * s["m"] / (s["u"] + eps)

    return init, update


def _sm3(lr, momentum=0.9):
    # One accumulator per index of each axis; an element's estimate is the minimum of its
    # row/column/... accumulators plus g**2, and each accumulator keeps the max over its slice.
    def init(x):
        x1 = np.atleast_1d(x)
        return {"acc": [np.zeros(n) for n in x1.shape], "m": np.zeros_like(x1)}

    def update(i, g, x, s):
        shape = np.shape(x)
        g = np.atleast_1d(g)
        nd = g.ndim
        estimate = np.full(g.shape, np.inf)
        for axis, acc in enumerate(s["acc"]):
            others = [d for d in range(nd) if d != axis]
            estimate = np.minimum(estimate, np.expand_dims(acc, others))
        nu = estimate + g**2
        scaled = np.where(nu > 0, g / np.sqrt(np.where(nu > 0, nu, 1)), 0)
        s["m"] = (1 - momentum) * scaled + momentum * s["m"]
        s["acc"] = [nu.max(axis=tuple(d for d in range(nd) if d != a)) for a in range(nd)]
        return (np.atleast_1d(x) - lr(i) * s["m"]).reshape(shape)

    return init, update


def _decay(lr, steps, rate):
    return lambda i: lr * rate ** (i / steps)


def _constant(lr):
    return lambda i: lr


# case id -> the NumPy rule for one array: (init(x) -> state dict, update(i, g, x, state) -> x)
NUMPY_RULES = {
    "sgd": _sgd(_constant(0.1)),
    "sgd_schedule": _sgd(_decay(0.1, 2, 0.5)),
    "momentum": _momentum(_constant(0.1), 0.9),
    "nesterov": _momentum(_constant(0.05), 0.8, nesterov=True),
    "adagrad": _adagrad(_constant(0.1)),
    "adagrad_momentum": _adagrad(_constant(0.2), momentum=0.5),
    "rmsprop": _rmsprop(_constant(0.01)),
    "rmsprop_momentum": _rmsprop(_constant(0.01), gamma=0.8, momentum=0.7),
    "adam": _adam(_constant(0.1)),
    "adam_args": _adam(_constant(0.05), b1=0.5, b2=0.9, eps=1e-4),
    "adamax": _adamax(_constant(0.1)),
    "sm3": _sm3(_constant(0.1)),
    "sm3_momentum": _sm3(_constant(0.3), momentum=0.0),
}


def _params(case_id, prefix="param"):
    # the recorded parameters are the pytree {'b', 's', 'w'}, leaves in key order
    b, s, w = (VALUES[f"{case_id}/{prefix}{k}"] for k in range(3))
    return {"w": w, "b": b, "s": s}


def _optimizer(case):
    return eval(case["expr"], {"optimizers": optimizers})


def _run(case, jit: bool):
    init_fun, update_fun, get_params = _optimizer(case)
    update = stablax.jit(update_fun) if jit else update_fun
    state = init_fun(tree_util.tree_map(jnp.asarray, _params(case["id"])))
    for step in range(case["steps"]):
        grads = _params(case["id"], f"grad{step}_")
        state = update(step, tree_util.tree_map(jnp.asarray, grads), state)
        yield step, state, get_params(state)


def test_every_case_has_a_rule():
    assert {c["id"] for c in CASES} == set(NUMPY_RULES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_update_matches_the_numpy_rule(case):
    init, update = NUMPY_RULES[case["id"]]
    params = {k: np.asarray(v, np.float64) for k, v in _params(case["id"]).items()}
    states = {k: init(v) for k, v in params.items()}
    for step, _, ours in _run(case, jit=False):
        grads = _params(case["id"], f"grad{step}_")
        for k in params:
            params[k] = update(step, np.asarray(grads[k], np.float64), params[k], states[k])
            np.testing.assert_allclose(np.asarray(ours[k]), params[k], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_trajectory_matches_jax(case, jit):
    # JAX's run was eager; a compiled update fuses multiply-adds, so allow a few ulps more
    rtol, atol = (1e-5, 1e-6) if jit else (1e-6, 1e-7)
    for step, state, params in _run(case, jit):
        want = [VALUES[f"{case['id']}/params{step}_{k}"] for k in range(3)]
        got = tree_util.tree_leaves(params)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=atol)
        leaves = tree_util.tree_leaves(state)
        assert len(leaves) == case["num_state"]
        for k, leaf in enumerate(leaves):
            np.testing.assert_allclose(
                np.asarray(leaf), VALUES[f"{case['id']}/state{step}_{k}"], rtol=rtol, atol=atol
            )


@pytest.mark.parametrize("case", SCHEDULES, ids=lambda c: c["id"])
def test_schedule_matches_jax(case):
    schedule = eval(case["expr"], {"optimizers": optimizers})
    got = np.array([np.float32(schedule(i)) for i in range(20)])
    np.testing.assert_allclose(got, VALUES[f"{case['id']}/values"], rtol=1e-6)


def test_schedule_formulas_and_errors():
    i = np.arange(20.0)
    expect = {
        "exponential_decay": 0.5 * 0.3 ** (i / 4),
        "inverse_time_decay": 0.5 / (1 + 2.0 * i / 3),
        "inverse_time_decay_staircase": 0.5 / (1 + 2.0 * np.floor(i / 3)),
        "polynomial_decay": (1 - np.minimum(i, 10) / 10) ** 2 * 0.9 + 0.1,
        "piecewise_constant": np.where(i > 8, 0.1, np.where(i > 3, 0.5, 1.0)),
    }
    for case in SCHEDULES:
        if case["id"] in expect:
            np.testing.assert_allclose(
                VALUES[f"{case['id']}/values"], expect[case["id"]], rtol=1e-6
            )
    schedule = optimizers.exponential_decay(0.5, 4, 0.3)
    assert stablax.jit(schedule)(3) == pytest.approx(0.5 * 0.3**0.75, rel=1e-6)
    assert optimizers.make_schedule(0.1)(7) == 0.1
    assert optimizers.make_schedule(schedule) is schedule
    with pytest.raises(TypeError):
        optimizers.make_schedule(np.ones(3))
    with pytest.raises(ValueError, match="one shorter"):
        optimizers.piecewise_constant([1, 2], [1.0, 2.0])
    with pytest.raises(ValueError, match="sequences"):
        optimizers.piecewise_constant(1, [1.0, 2.0])


def test_l2_norm_and_clip_grads():
    tree = {"a": jnp.array([3.0, 0.0]), "b": [jnp.array([[4.0]])]}
    assert float(optimizers.l2_norm(tree)) == pytest.approx(5.0)
    clipped = optimizers.clip_grads(tree, 1.0)
    np.testing.assert_allclose(clipped["a"], [0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(clipped["b"][0], [[0.8]], rtol=1e-6)
    unclipped = optimizers.clip_grads(tree, 10.0)
    np.testing.assert_array_equal(unclipped["a"], tree["a"])


def test_pack_unpack_round_trip_through_pickle():
    init_fun, update_fun, get_params = optimizers.adam(0.1)
    params = {"w": jnp.ones((2, 2)), "b": [jnp.zeros(3)]}
    state = update_fun(0, tree_util.tree_map(jnp.ones_like, params), init_fun(params))
    marked = optimizers.unpack_optimizer_state(state)
    assert isinstance(marked["w"], optimizers.JoinPoint)
    restored = optimizers.pack_optimizer_state(pickle.loads(pickle.dumps(marked)))
    assert restored.tree_def == state.tree_def
    assert tuple(restored.subtree_defs) == tuple(state.subtree_defs)
    for a, b in zip(tree_util.tree_leaves(restored), tree_util.tree_leaves(state), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(TypeError, match="JoinPoint"):
        optimizers.pack_optimizer_state({"w": 1.0})


def test_optimizer_decorator_checks_structures():
    init_fun, update_fun, get_params = optimizers.sgd(0.1)
    state = init_fun({"w": jnp.ones(2)})
    with pytest.raises(TypeError, match="did not match the parameter tree"):
        update_fun(0, {"v": jnp.ones(2)}, state)

    @optimizers.optimizer
    def broken():
        return (lambda x: {"x": x}, lambda i, g, s: {"x": s["x"], "v": g}, lambda s: s["x"])

    init_fun, update_fun, get_params = broken()
    with pytest.raises(TypeError, match="did not match its input structure"):
        update_fun(0, jnp.zeros(3), init_fun(jnp.zeros(3)))


def test_state_is_a_pytree_with_static_structure():
    init_fun, update_fun, get_params = optimizers.momentum(0.1, 0.9)
    state = init_fun((jnp.ones(2), {"k": jnp.zeros((1, 3))}))
    assert isinstance(state, optimizers.OptimizerState)
    assert len(tree_util.tree_leaves(state)) == 4  # (x, velocity) per parameter
    assert isinstance(init_fun, object) and optimizers.Optimizer._fields == (
        "init_fn",
        "update_fn",
        "params_fn",
    )
    step = stablax.jit(update_fun)
    state = step(0, (jnp.ones(2), {"k": jnp.ones((1, 3))}), state)
    np.testing.assert_allclose(get_params(state)[0], [0.9, 0.9], rtol=1e-6)


def test_strict_map_and_zip():
    assert optimizers.map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    assert optimizers.zip([1, 2], "ab") == [(1, "a"), (2, "b")]
    assert optimizers.unzip2([(1, "a"), (2, "b")]) == ((1, 2), ("a", "b"))
    with pytest.raises(ValueError):
        optimizers.safe_zip([1, 2], [1])
