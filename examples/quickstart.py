"""A tour of stablax, after the first JAX README: arrays, jit, grad, vmap, random, devices.

    python examples/quickstart.py           # about half a minute on a 2-core CPU
    python examples/quickstart.py --quick   # smaller arrays, a few seconds

Every section prints a labelled result; the timings are measured on this machine.
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np

import stablax as jax
import stablax.numpy as jnp
from stablax import grad, jit, random, vmap


def best_time(fn, *args, repeat: int = 5) -> float:
    """The fastest of `repeat` calls of `fn(*args)`, in seconds, waiting for the result."""
    jax.block_until_ready(fn(*args))  # compile (and warm up) outside the timing
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - start)
    return best


def section(title: str) -> None:
    print(f"\n== {title} ==")


def arrays_and_async_dispatch(n: int) -> None:
    section("arrays on the default device, dispatched asynchronously")
    key = random.PRNGKey(0)
    x = random.normal(key, (n, n))
    jax.block_until_ready(jnp.dot(x, x.T) / 2)  # the first call compiles each op
    start = time.perf_counter()
    y = jnp.dot(x, x.T) / 2  # returns at once: the product runs in the background
    dispatched = time.perf_counter() - start
    y.block_until_ready()
    finished = time.perf_counter() - start
    print(f"x = random.normal(key, ({n}, {n})): {x.dtype}{list(x.shape)} on {x.devices()}")
    print(f"jnp.dot(x, x.T) / 2 returned after {dispatched * 1e3:.2f} ms, "
          f"finished after {finished * 1e3:.1f} ms")  # fmt: skip
    print("y[:2, :3] =", np.asarray(y[:2, :3]))


def slow_f(x):
    # Element-wise ops see a large benefit from fusion
    return x * x + x * 2.0


def jit_speedup(n: int) -> None:
    section(f"jit: x * x + x * 2.0 on a {n}x{n} array")
    x = jnp.ones((n, n))
    fast_f = jit(slow_f)
    eager = best_time(slow_f, x)
    compiled = best_time(fast_f, x)
    print(f"op by op (3 kernels): {eager * 1e3:8.2f} ms")
    print(f"jit (1 fused kernel): {compiled * 1e3:8.2f} ms   ({eager / compiled:.1f}x faster)")


def tanh(x):  # the README's tanh, written with exp
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


def abs_val(x):
    if x > 0:
        return x
    else:
        return -x


def differentiation() -> None:
    section("grad")
    grad_tanh = grad(tanh)
    print("grad(tanh)(1.0)                =", grad_tanh(1.0), f"  (1 - tanh(1)^2 = "
          f"{1 - np.tanh(1.0) ** 2:.7f})")  # fmt: skip
    print("grad(grad(tanh))(1.0)          =", grad(grad(tanh))(1.0))
    print("jit(grad(grad(grad(tanh))))(1) =", jit(grad(grad(grad(tanh))))(1.0))
    section("Python control flow under grad")
    print("grad(abs_val)(1.0)  =", grad(abs_val)(1.0))
    print("grad(abs_val)(-1.0) =", grad(abs_val)(-1.0), "  (abs_val is re-evaluated)")


def predict(params, inputs):
    for w, b in params:
        outputs = jnp.dot(inputs, w) + b
        inputs = jnp.tanh(outputs)
    return outputs


def loss(params, inputs, targets):
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)


def per_example_gradients(batch: int) -> None:
    section(f"vmap: per-example gradients of a 2-layer network, batch of {batch}")
    keys = random.split(random.PRNGKey(1), 5)
    params = [
        (random.normal(keys[0], (4, 16)) / 2, random.normal(keys[1], (16,))),
        (random.normal(keys[2], (16, 1)) / 4, jnp.zeros(1)),
    ]
    inputs = random.normal(keys[3], (batch, 4))
    targets = random.normal(keys[4], (batch, 1))
    grad_fun = jit(grad(loss))  # compiled gradient evaluation function
    perex_grads = jit(vmap(partial(grad_fun, params)))  # fast per-example gradients
    grads = perex_grads(inputs, targets)
    print("shapes of the per-example gradients:", [(w.shape, b.shape) for w, b in grads])
    loop = [grad_fun(params, inputs[i], targets[i]) for i in range(batch)]
    stacked = jax.tree_util.tree_map(lambda *gs: jnp.stack(gs), *loop)
    differences = jax.tree_util.tree_map(
        lambda a, b: float(jnp.max(jnp.abs(a - b))), grads, stacked
    )
    error = max(jax.tree_util.tree_leaves(differences))
    print(f"largest difference from a Python loop of grad calls: {error:.1e}")
    vectorised = best_time(perex_grads, inputs, targets)
    looped = best_time(lambda: [grad_fun(params, inputs[i], targets[i]) for i in range(batch)])
    print(f"vmap: {vectorised * 1e3:.2f} ms   Python loop: {looped * 1e3:.1f} ms   "
          f"({looped / vectorised:.0f}x faster)")  # fmt: skip


def random_numbers() -> None:
    section("random: explicit keys")
    key = random.PRNGKey(0)
    print("normal(key, (3,))         =", random.normal(key, shape=(3,)))
    print("normal(key, (3,)) again   =", random.normal(key, shape=(3,)), "(same key, same numbers)")
    key, subkey = random.split(key)
    print("normal(subkey, (3,))      =", random.normal(subkey, shape=(3,)))
    key, subkey = random.split(key)
    print("normal(next subkey, (3,)) =", random.normal(subkey, shape=(3,)))


def devices() -> None:
    section("devices")
    print("jax.devices()         =", jax.devices())
    print("jax.default_backend() =", jax.default_backend())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small arrays (a few seconds)")
    args = parser.parse_args()
    start = time.perf_counter()
    arrays_and_async_dispatch(500 if args.quick else 2000)
    jit_speedup(1000 if args.quick else 5000)
    differentiation()
    per_example_gradients(32 if args.quick else 128)
    random_numbers()
    devices()
    print(f"\nquickstart finished in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
