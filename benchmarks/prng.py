"""Generating 10**7 standard normals with a compiled function: stablax vs JAX (when installed).

Both libraries are timed in one process, interleaved, best of several rounds:
    python benchmarks/prng.py
(Not `random.py`: as a script's sibling that name would shadow the standard library's `random`
for every benchmark in this folder.)
"""

from __future__ import annotations

import time

import numpy as np

import stablax
from stablax import random

N = 10**7
ROUNDS = 7


def best_time(fn, *args) -> float:
    fn(*args).block_until_ready()  # compile and warm up
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn(*args).block_until_ready()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    stablax_fn = stablax.jit(lambda k: random.normal(k, (N,)))
    stablax_key = random.PRNGKey(0)
    try:
        import jax

        jax_fn = jax.jit(lambda k: jax.random.normal(k, (N,)))
        jax_key = jax.random.PRNGKey(0)
    except ImportError:
        jax_fn = None
    ours, theirs = [], []
    for _ in range(ROUNDS):
        ours.append(best_time(stablax_fn, stablax_key))
        if jax_fn is not None:
            theirs.append(best_time(jax_fn, jax_key))
    print(f"stablax: normal(key, (10**7,)) compiled: {min(ours) * 1e3:8.1f} ms")
    if theirs:
        print(f"jax:     normal(key, (10**7,)) compiled: {min(theirs) * 1e3:8.1f} ms")
        print(f"ratio stablax / jax: {min(ours) / min(theirs):.2f}")
        same = np.array_equal(np.asarray(stablax_fn(stablax_key)), np.asarray(jax_fn(jax_key)))
        print(f"bit-identical outputs: {same}")


if __name__ == "__main__":
    main()
