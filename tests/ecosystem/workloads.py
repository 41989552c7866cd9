"""Training steps of the JAX ecosystem libraries, written exactly as for JAX.

Run with the real JAX by scripts/record_ecosystem.py (which commits the numbers to
tests/data/ecosystem/) and under `python -m stablax.as_jax` by tests/ecosystem (which compares).
`python workloads.py LIBRARY OUT.npz` runs one library's workloads and saves every result as
`<workload>/<name>` arrays; a workload that raises is saved as `<workload>/__error__`.
"""

from __future__ import annotations

import inspect
import sys
import traceback

import numpy as np

STEPS = 8


def _data(n=32, d=4, out=1, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    w = rng.normal(size=(d, out)).astype(np.float32)
    y = (x @ w + 0.1 * rng.normal(size=(n, out))).astype(np.float32)
    return x, y


def _leaves(tree):
    import jax

    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def _pack(losses, params):
    out = {"losses": np.asarray(losses, dtype=np.float32)}
    for i, leaf in enumerate(_leaves(params)):
        out[f"param{i}"] = leaf
    return out


# --- optax -------------------------------------------------------------------------------------


def _optax_regression(make_tx):
    import jax
    import jax.numpy as jnp
    import optax

    x, y = _data()
    params = {"w": jnp.zeros((4, 1)), "b": jnp.zeros((1,))}
    tx = make_tx(optax)
    state = tx.init(params)

    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    @jax.jit
    def step(p, s):
        loss, g = jax.value_and_grad(loss_fn)(p)
        updates, s = tx.update(g, s, p)
        return optax.apply_updates(p, updates), s, loss

    losses = []
    for _ in range(STEPS):
        params, state, loss = step(params, state)
        losses.append(loss)
    return _pack(losses, params)


def optax_workloads():
    return {
        "adam": lambda: _optax_regression(lambda o: o.adam(1e-1)),
        "adamw": lambda: _optax_regression(lambda o: o.adamw(1e-1, weight_decay=1e-2)),
        "sgd": lambda: _optax_regression(lambda o: o.sgd(1e-2, momentum=0.9)),
        "losses": _optax_losses,
        "chain": lambda: _optax_regression(
            lambda o: o.chain(o.clip_by_global_norm(1.0), o.scale_by_adam(), o.scale(-0.1))
        ),
    }


def _optax_losses():
    import jax.numpy as jnp
    import optax

    rng = np.random.default_rng(3)
    logits = jnp.asarray(rng.normal(size=(4, 5)).astype(np.float32))
    labels = jnp.array([0, 3, 1, 4])
    target = jnp.asarray(rng.normal(size=(4, 5)).astype(np.float32))
    return {
        "softmax_ce_int": optax.softmax_cross_entropy_with_integer_labels(logits, labels),
        "softmax_ce": optax.softmax_cross_entropy(logits, jnp.eye(5)[labels]),
        "sigmoid_bce": optax.sigmoid_binary_cross_entropy(logits, target > 0),
        "l2": optax.l2_loss(logits, target),
        "huber": optax.huber_loss(logits, target),
        "cosine": optax.cosine_distance(logits, target),
    }


def zoo_names(optax):
    """The optimizers of `optax.__all__`: the functions taking a `learning_rate`."""
    names = []
    for name in sorted(optax.__all__):
        fn = getattr(optax, name, None)
        if not inspect.isfunction(fn):
            continue
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        if "learning_rate" in params:
            names.append(name)
    return names


def _zoo_one(name):
    import jax
    import jax.numpy as jnp
    import optax

    x, y = _data()
    params = {"w": jnp.full((4, 1), 0.5), "b": jnp.zeros((1,))}

    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    per_example = name == "dpsgd"  # differentially private SGD clips per-example gradients
    extra = {"l2_norm_clip": 1.0, "noise_multiplier": 0.1, "seed": 0} if per_example else {}
    tx = optax.with_extra_args_support(getattr(optax, name)(learning_rate=1e-2, **extra))
    state = tx.init(params)

    def example_loss(p, xi, yi):
        return jnp.mean((xi @ p["w"] + p["b"] - yi) ** 2)

    losses = []
    for _ in range(2):
        loss, g = jax.value_and_grad(loss_fn)(params)
        if per_example:
            g = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
        updates, state = tx.update(g, state, params, value=loss, grad=g, value_fn=loss_fn)
        params = optax.apply_updates(params, updates)
        losses.append(loss)
    return _pack(losses, params)


def optax_zoo_workloads():
    import optax

    return {name: (lambda name=name: _zoo_one(name)) for name in zoo_names(optax)}


# --- equinox -----------------------------------------------------------------------------------


def _equinox_mlp(activation=None):
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import optax

    x, y = _data()
    extra = {} if activation is None else {"activation": getattr(jax.numpy, activation)}
    model = eqx.nn.MLP(4, 1, width_size=16, depth=2, key=jax.random.PRNGKey(0), **extra)
    tx = optax.adam(1e-2)
    state = tx.init(eqx.filter(model, eqx.is_array))

    @eqx.filter_value_and_grad
    def loss_fn(m):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)

    @eqx.filter_jit
    def step(m, s):
        loss, g = loss_fn(m)
        updates, s = tx.update(g, s, eqx.filter(m, eqx.is_array))
        return eqx.apply_updates(m, updates), s, loss

    losses = []
    for _ in range(STEPS):
        model, state, loss = step(model, state)
        losses.append(loss)
    return _pack(losses, eqx.filter(model, eqx.is_array))


def equinox_workloads():
    return {"mlp": _equinox_mlp, "mlp_tanh": lambda: _equinox_mlp("tanh")}


# --- flax --------------------------------------------------------------------------------------


def _nnx_model(seed):
    from flax import nnx

    class Model(nnx.Module):
        def __init__(self, rngs):
            self.l1 = nnx.Linear(4, 16, rngs=rngs)
            self.l2 = nnx.Linear(16, 1, rngs=rngs)

        def __call__(self, x):
            return self.l2(nnx.relu(self.l1(x)))

    return Model(nnx.Rngs(seed))


def _nnx_train():
    import jax.numpy as jnp
    import optax
    from flax import nnx

    x, y = _data()
    model = _nnx_model(0)
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)

    @nnx.jit
    def step(m, opt):
        def loss_fn(m):
            return jnp.mean((m(x) - y) ** 2)

        loss, g = nnx.value_and_grad(loss_fn)(m)
        opt.update(m, g)
        return loss

    losses = [step(model, optimizer) for _ in range(STEPS)]
    return _pack(losses, nnx.state(model, nnx.Param))


def _nnx_linear():
    import jax
    import optax
    from flax import nnx

    x, y = _data()
    model = nnx.Linear(4, 1, rngs=nnx.Rngs(1))
    optimizer = nnx.Optimizer(model, optax.sgd(1e-1), wrt=nnx.Param)

    def loss_fn(m):
        return ((m(x) - y) ** 2).mean()

    losses = []
    for _ in range(STEPS):
        loss, g = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, g)
        losses.append(loss)
    jax.block_until_ready(losses)
    return _pack(losses, nnx.state(model, nnx.Param))


def _nnx_save_restore():
    """A model's state taken out as plain arrays and put into a fresh model (split/merge too)."""
    import jax
    from flax import nnx

    x, _ = _data()
    model = _nnx_model(0)
    saved = jax.tree_util.tree_map(np.asarray, nnx.state(model).to_pure_dict())
    other = _nnx_model(5)
    before = np.asarray(other(x))
    state = nnx.state(other)
    state.replace_by_pure_dict(saved)
    nnx.update(other, state)
    graphdef, split_state = nnx.split(other)
    merged = nnx.merge(graphdef, split_state)
    return {
        "reference": np.asarray(model(x)),
        "restored": np.asarray(other(x)),
        "merged": np.asarray(merged(x)),
        "before": before,
    }


def _linen_mlp():
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import optax

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Dense(16)(x))
            return nn.Dense(1)(x)

    x, y = _data()
    model = MLP()
    params = model.init(jax.random.PRNGKey(0), x)
    tx = optax.sgd(1e-2, momentum=0.9)
    state = tx.init(params)

    @jax.jit
    def step(p, s):
        def loss_fn(p):
            return jnp.mean((model.apply(p, x) - y) ** 2)

        loss, g = jax.value_and_grad(loss_fn)(p)
        updates, s = tx.update(g, s, p)
        return optax.apply_updates(p, updates), s, loss

    losses = []
    for _ in range(STEPS):
        params, state, loss = step(params, state)
        losses.append(loss)
    return _pack(losses, params)


def _nnx_cnn():
    """Conv, BatchNorm and Dropout (random bits drawn from nnx.Rngs) in a jitted train step."""
    import jax.numpy as jnp
    import optax
    from flax import nnx

    class CNN(nnx.Module):
        def __init__(self, rngs):
            self.conv = nnx.Conv(2, 4, (3, 3), rngs=rngs)
            self.bn = nnx.BatchNorm(4, rngs=rngs)
            self.drop = nnx.Dropout(0.25, rngs=rngs)
            self.out = nnx.Linear(4 * 6 * 6, 1, rngs=rngs)

        def __call__(self, x):
            h = self.drop(nnx.relu(self.bn(self.conv(x))))
            return self.out(h.reshape(h.shape[0], -1))

    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 6, 6, 2)).astype(np.float32)
    y = rng.normal(size=(4, 1)).astype(np.float32)
    model = CNN(nnx.Rngs(0, dropout=1))
    optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)

    @nnx.jit
    def step(m, opt):
        loss, g = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(m)
        opt.update(m, g)
        return loss

    losses = [step(model, optimizer) for _ in range(3)]
    model.eval()
    out = _pack(losses, nnx.state(model, nnx.Param))
    out["eval"] = np.asarray(model(x))
    return out


def flax_workloads():
    return {
        "nnx_train": _nnx_train,
        "nnx_linear": _nnx_linear,
        "nnx_save_restore": _nnx_save_restore,
        "nnx_cnn": _nnx_cnn,
        "linen_mlp": _linen_mlp,
    }


# --- haiku -------------------------------------------------------------------------------------


def _haiku_mlp():
    import haiku as hk
    import jax
    import jax.numpy as jnp
    import optax

    x, y = _data()
    net = hk.without_apply_rng(hk.transform(lambda x: hk.nets.MLP([16, 16, 1])(x)))
    params = net.init(jax.random.PRNGKey(0), x)
    tx = optax.adam(1e-2)
    state = tx.init(params)

    @jax.jit
    def step(p, s):
        loss, g = jax.value_and_grad(lambda p: jnp.mean((net.apply(p, x) - y) ** 2))(p)
        updates, s = tx.update(g, s, p)
        return optax.apply_updates(p, updates), s, loss

    losses = []
    for _ in range(STEPS):
        params, state, loss = step(params, state)
        losses.append(loss)
    return _pack(losses, params)


def _haiku_lstm_batchnorm():
    """An LSTM unrolled over time and a BatchNorm with state, differentiated."""
    import haiku as hk
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(2)
    xs = rng.normal(size=(5, 3, 4)).astype(np.float32)

    def f(xs, is_training):
        core = hk.LSTM(6)
        hs, _ = hk.dynamic_unroll(core, xs, core.initial_state(3))
        normed = hk.BatchNorm(True, True, 0.9)(hs, is_training)
        # (a plain sum of batch-normalized values has a zero gradient: weight it)
        return jnp.sum(jnp.tanh(normed) * jnp.linspace(-1.0, 2.0, normed.shape[-1]))

    net = hk.transform_with_state(f)
    params, state = net.init(jax.random.PRNGKey(0), xs, True)
    (loss, state), grads = jax.value_and_grad(
        lambda p: net.apply(p, state, None, xs, True), has_aux=True
    )(params)
    out = _pack([loss], grads)
    for i, leaf in enumerate(_leaves(state)):
        out[f"state{i}"] = leaf
    return out


def haiku_workloads():
    return {"mlp": _haiku_mlp, "lstm_batchnorm": _haiku_lstm_batchnorm}


# --- chex --------------------------------------------------------------------------------------


def _chex_checks():
    import chex
    import jax
    import jax.numpy as jnp

    @chex.dataclass
    class Params:
        w: chex.Array
        b: chex.Array

    x, y = _data()
    p = Params(w=jnp.ones((4, 1)), b=jnp.zeros((1,)))

    @jax.jit
    @chex.assert_max_traces(n=1)
    def step(p):
        chex.assert_shape(p.w, (4, 1))
        chex.assert_rank(x, 2)
        chex.assert_type(p.w, float)
        g = jax.grad(lambda p: jnp.mean((x @ p.w + p.b - y) ** 2))(p)
        chex.assert_trees_all_equal_shapes(g, p)
        return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)

    for _ in range(STEPS):
        p = step(p)
    chex.assert_trees_all_close(p, p)
    chex.assert_tree_all_finite(p)
    return _pack([0.0], p)


def chex_workloads():
    return {"checks": _chex_checks}


LIBRARIES = {
    "optax": optax_workloads,
    "optax_zoo": optax_zoo_workloads,
    "equinox": equinox_workloads,
    "flax": flax_workloads,
    "haiku": haiku_workloads,
    "chex": chex_workloads,
}


def run(library: str) -> dict[str, np.ndarray]:
    """Every workload of `library`: `{"<workload>/<name>": array}` (errors as text arrays)."""
    out = {}
    for name, fn in LIBRARIES[library]().items():
        try:
            result = fn()
        except Exception:
            out[f"{name}/__error__"] = np.asarray(traceback.format_exc())
            continue
        for key, value in result.items():
            out[f"{name}/{key}"] = np.asarray(value)
    return out


if __name__ == "__main__":
    lib, path = sys.argv[1], sys.argv[2]
    np.savez(path, **run(lib))
