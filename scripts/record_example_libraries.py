"""Records JAX's stax parameters/outputs and optimizer trajectories (run with a JAX install):

    /work/venv-jax/bin/python scripts/record_example_libraries.py

Each case is a Python expression over the module names `stax`, `optimizers` and `init`
(`nn.initializers`), evaluated here with JAX's modules and in the tests with stablax's, so the
case list lives in one place: tests/data/example_libraries/cases.json. Arrays go to
tests/data/example_libraries/values.npz, keyed `<case id>/<what>`:

- stax cases: `params<k>` (the k-th leaf of init_fun's parameters, drawn from PRNGKey(seed)),
  `input` (float32 from NumPy's generator), `output` (apply_fun's result, with `rng=` when the
  case has `apply_seed`), plus the recorded output shape in the JSON.
- optimizer cases: `param<k>` (initial leaves), `grad<step>_<k>` (fixed gradients), and after
  each step `params<step>_<k>` and `state<step>_<k>` (every leaf of the OptimizerState).
- schedule cases: `values` (the schedule at steps 0..19 as float32).
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from jax.example_libraries import optimizers, stax
from jax.nn import initializers as init

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "example_libraries"

# (id, layer expression, input shape, seed, apply_seed or None)
STAX = [
    ("dense", "stax.Dense(5)", [4, 3], 0, None),
    ("dense_init", "stax.Dense(4, W_init=init.he_uniform(), b_init=init.ones)", [2, 6], 3, None),
    ("conv", "stax.Conv(4, (3, 3), strides=(2, 2), padding='SAME')", [2, 7, 7, 3], 0, None),
    ("conv_valid", "stax.Conv(3, (2, 3))", [1, 5, 6, 2], 1, None),
    (
        "general_conv",
        "stax.GeneralConv(('NCHW', 'OIHW', 'NCHW'), 3, (2, 2), padding='SAME')",
        [2, 2, 5, 4],
        0,
        None,
    ),
    ("conv_transpose", "stax.ConvTranspose(3, (3, 3), (2, 2))", [1, 4, 4, 2], 0, None),
    ("conv1d_transpose", "stax.Conv1DTranspose(2, (3,), padding='SAME')", [2, 5, 3], 7, None),
    (
        "general_conv_transpose",
        "stax.GeneralConvTranspose(('NCH', 'OIH', 'NCH'), 4, (2,), strides=(2,))",
        [1, 3, 5],
        0,
        None,
    ),
    ("batchnorm", "stax.BatchNorm(beta_init=init.normal(), gamma_init=init.normal())",
     [4, 3, 3, 2], 0, None),
    ("batchnorm_axis", "stax.BatchNorm(axis=0, center=False)", [6, 3], 0, None),
    ("maxpool", "stax.MaxPool((2, 2), strides=(2, 2))", [2, 5, 5, 3], 0, None),
    ("sumpool_same", "stax.SumPool((3, 3), padding='SAME')", [1, 4, 5, 2], 0, None),
    ("avgpool_same", "stax.AvgPool((2, 3), strides=(2, 1), padding='SAME')", [1, 5, 5, 2], 0,
     None),
    ("avgpool_spec", "stax.AvgPool((2, 2), spec='NCHW')", [1, 2, 4, 4], 0, None),
    ("dropout", "stax.Dropout(0.7)", [3, 8], 0, 5),
    ("dropout_test", "stax.Dropout(0.7, mode='test')", [3, 8], 0, 5),
    ("mlp", "stax.serial(stax.Dense(16), stax.Relu, stax.Dense(10), stax.LogSoftmax)",
     [5, 8], 0, None),
    (
        "mlp_all_activations",
        "stax.serial(stax.Dense(6), stax.Tanh, stax.Dense(6), stax.Sigmoid, stax.Dense(6), "
        "stax.Elu, stax.Dense(6), stax.LeakyRelu, stax.Dense(6), stax.Selu, stax.Dense(6), "
        "stax.Gelu, stax.Dense(6), stax.Softplus, stax.Dense(6), stax.Exp, stax.Dense(4), "
        "stax.Softmax)",
        [3, 5],
        11,
        None,
    ),
    (
        "cnn",
        "stax.serial(stax.Conv(4, (3, 3), padding='SAME'), stax.Relu, stax.MaxPool((2, 2), "
        "(2, 2)), stax.Flatten, stax.Dense(5), stax.LogSoftmax)",
        [2, 6, 6, 1],
        2,
        None,
    ),
    (
        "residual",
        "stax.serial(stax.Dense(4), stax.FanOut(2), stax.parallel(stax.serial(stax.Dense(4), "
        "stax.Relu), stax.Identity), stax.FanInSum)",
        [3, 6],
        0,
        None,
    ),
    (
        "concat",
        "stax.serial(stax.FanOut(3), stax.parallel(stax.Dense(2), stax.Dense(3), stax.Tanh), "
        "stax.FanInConcat())",
        [2, 4],
        4,
        None,
    ),
    (
        "serial_dropout",
        "stax.serial(stax.Dense(8), stax.Dropout(0.5), stax.Dense(3), stax.Dropout(0.8))",
        [4, 5],
        0,
        9,
    ),
    (
        "shape_dependent",
        "stax.shape_dependent(lambda shape: stax.Dense(shape[-1] * 2))",
        [2, 3],
        0,
        None,
    ),
]

# (id, optimizer expression); every one runs STEPS steps on the same parameters and gradients
OPTIMIZERS = [
    ("sgd", "optimizers.sgd(0.1)"),
    ("sgd_schedule", "optimizers.sgd(optimizers.exponential_decay(0.1, 2, 0.5))"),
    ("momentum", "optimizers.momentum(0.1, mass=0.9)"),
    ("nesterov", "optimizers.nesterov(0.05, 0.8)"),
    ("adagrad", "optimizers.adagrad(0.1)"),
    ("adagrad_momentum", "optimizers.adagrad(0.2, momentum=0.5)"),
    ("rmsprop", "optimizers.rmsprop(0.01)"),
    ("rmsprop_momentum", "optimizers.rmsprop_momentum(0.01, gamma=0.8, momentum=0.7)"),
    ("adam", "optimizers.adam(0.1)"),
    ("adam_args", "optimizers.adam(0.05, b1=0.5, b2=0.9, eps=1e-4)"),
    ("adamax", "optimizers.adamax(0.1)"),
    ("sm3", "optimizers.sm3(0.1)"),
    ("sm3_momentum", "optimizers.sm3(0.3, momentum=0.0)"),
]
STEPS = 4

SCHEDULES = [
    ("constant", "optimizers.constant(0.3)"),
    ("exponential_decay", "optimizers.exponential_decay(0.5, 4, 0.3)"),
    ("inverse_time_decay", "optimizers.inverse_time_decay(0.5, 3, 2.0)"),
    ("inverse_time_decay_staircase", "optimizers.inverse_time_decay(0.5, 3, 2.0, staircase=True)"),
    ("polynomial_decay", "optimizers.polynomial_decay(1.0, 10, 0.1, power=2.0)"),
    ("piecewise_constant", "optimizers.piecewise_constant([3, 8], [1.0, 0.5, 0.1])"),
]


def _leaves(tree) -> list[np.ndarray]:
    return [np.asarray(x) for x in jax.tree.leaves(tree)]


def record_stax(values: dict) -> list[dict]:
    rng = np.random.default_rng(0)
    cases = []
    for case_id, expr, shape, seed, apply_seed in STAX:
        init_fun, apply_fun = eval(expr)
        out_shape, params = init_fun(jax.random.PRNGKey(seed), tuple(shape))
        x = rng.standard_normal(shape).astype(np.float32)
        kwargs = {} if apply_seed is None else {"rng": jax.random.PRNGKey(apply_seed)}
        out = apply_fun(params, jnp.asarray(x), **kwargs)
        for k, leaf in enumerate(_leaves(params)):
            values[f"{case_id}/params{k}"] = leaf
        values[f"{case_id}/input"] = x
        values[f"{case_id}/output"] = np.asarray(out)
        cases.append(
            dict(
                id=case_id,
                expr=expr,
                shape=shape,
                seed=seed,
                apply_seed=apply_seed,
                out_shape=[int(d) for d in out_shape],
                num_params=len(_leaves(params)),
            )
        )
    return cases


def record_optimizers(values: dict) -> list[dict]:
    rng = np.random.default_rng(1)
    params = {
        "w": rng.standard_normal((2, 3)).astype(np.float32),
        "b": rng.standard_normal(3).astype(np.float32),
        "s": np.float32(rng.standard_normal()),
    }
    grads = [
        jax.tree.map(lambda p: (rng.standard_normal(np.shape(p))).astype(np.float32), params)
        for _ in range(STEPS)
    ]
    cases = []
    for case_id, expr in OPTIMIZERS:
        init_fun, update_fun, get_params = eval(expr)
        state = init_fun(jax.tree.map(jnp.asarray, params))
        for k, leaf in enumerate(_leaves(params)):
            values[f"{case_id}/param{k}"] = leaf
        for step, g in enumerate(grads):
            for k, leaf in enumerate(_leaves(g)):
                values[f"{case_id}/grad{step}_{k}"] = leaf
            state = update_fun(step, jax.tree.map(jnp.asarray, g), state)
            for k, leaf in enumerate(_leaves(get_params(state))):
                values[f"{case_id}/params{step}_{k}"] = leaf
            for k, leaf in enumerate(_leaves(state)):
                values[f"{case_id}/state{step}_{k}"] = leaf
        cases.append(dict(id=case_id, expr=expr, steps=STEPS, num_state=len(_leaves(state))))
    return cases


def record_schedules(values: dict) -> list[dict]:
    cases = []
    for case_id, expr in SCHEDULES:
        schedule = eval(expr)
        values[f"{case_id}/values"] = np.array([schedule(i) for i in range(20)], np.float32)
        cases.append(dict(id=case_id, expr=expr))
    return cases


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    values: dict[str, np.ndarray] = {}
    cases = {
        "stax": record_stax(values),
        "optimizers": record_optimizers(values),
        "schedules": record_schedules(values),
    }
    (OUT / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")
    np.savez_compressed(OUT / "values.npz", **values)
    print(f"recorded {sum(map(len, cases.values()))} cases, {len(values)} arrays, jax {jax.__version__}")


if __name__ == "__main__":
    main()
