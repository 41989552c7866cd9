"""Per-example gradients: `vmap(grad(loss))` against a Python loop of `grad` calls.

    python examples/per_example_grads.py          # batch of 256, about 10 s on a 2-core CPU
    python examples/per_example_grads.py --quick  # batch of 16

The per-example gradients of a small MLP's loss, once vectorised with vmap (one compiled
program for the whole batch) and once with a loop of jitted grad calls; both agree, and the
timings show what vectorising buys.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import stablax as jax
import stablax.numpy as jnp
from stablax import grad, jit, random, vmap
from stablax.example_libraries import stax

init_fun, apply_fun = stax.serial(
    stax.Dense(64), stax.Tanh, stax.Dense(64), stax.Tanh, stax.Dense(1)
)


def loss(params, x, y):
    """The squared error of one example (x: a feature vector, y: a scalar target)."""
    prediction = apply_fun(params, x[None, :])[0, 0]
    return (prediction - y) ** 2


def best_time(fn, repeat: int = 5) -> float:
    jax.block_until_ready(fn())
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a batch of 16")
    args = parser.parse_args()
    batch = 16 if args.quick else 256

    k_params, k_x, k_y = random.split(random.PRNGKey(0), 3)
    _, params = init_fun(k_params, (-1, 10))
    xs = random.normal(k_x, (batch, 10))
    ys = random.normal(k_y, (batch,))

    per_example = jit(vmap(grad(loss), in_axes=(None, 0, 0)))
    one_example = jit(grad(loss))

    def loop():
        return [one_example(params, xs[i], ys[i]) for i in range(batch)]

    vectorised = per_example(params, xs, ys)
    looped = jax.tree_util.tree_map(lambda *gs: jnp.stack(gs), *loop())
    error = max(
        float(jnp.max(jnp.abs(a - b)))
        for a, b in zip(jax.tree_util.tree_leaves(vectorised), jax.tree_util.tree_leaves(looped))
    )
    shapes = [tuple(leaf.shape) for leaf in jax.tree_util.tree_leaves(vectorised)]
    print(f"per-example gradients of {batch} examples, leaf shapes {shapes}")
    print(f"largest difference between vmap and the loop: {error:.2e}")
    np.testing.assert_allclose(
        np.concatenate([np.ravel(a) for a in jax.tree_util.tree_leaves(vectorised)]),
        np.concatenate([np.ravel(a) for a in jax.tree_util.tree_leaves(looped)]),
        rtol=1e-4,
        atol=1e-5,
    )
    t_vmap = best_time(lambda: per_example(params, xs, ys))
    t_loop = best_time(loop, repeat=3)
    print(f"vmap(grad): {t_vmap * 1e3:8.3f} ms for the batch")
    print(f"loop of grad: {t_loop * 1e3:6.1f} ms ({t_loop / batch * 1e6:.0f} us per example)")
    print(f"vmap is {t_loop / t_vmap:.0f}x faster")


if __name__ == "__main__":
    main()
