"""Per-call dispatch cost: raw PJRT execute vs stablax eager `x + y` and a jit cache hit, and JAX's.

Run: python benchmarks/dispatch.py   (JAX's columns appear when `jax` is installed: pip install
".[bench]"). All timings come from one process, interleaved, so they share the machine's state.
Targets (from the foundation issue): jit hit <= 1.3x raw execute and <= JAX's jit; eager x + y
<= JAX's eager. The pytree-argument row has no target yet; it shows the cost of flattening in Python
next to JAX's C++ dispatch.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable


def per_call_us(fn: Callable[[], object], calls: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def stablax_cases(size: int) -> dict[str, Callable[[], object]]:
    import stablax
    import stablax.numpy as jnp

    x = jnp.ones(size, jnp.float32)
    y = jnp.ones(size, jnp.float32)
    add = stablax.jit(lambda a, b: a + b)
    add(x, y).block_until_ready()
    entry = next(iter(add._jitted._cache.values()))
    executable, buffers = entry.executable, [x._buf, y._buf]
    tree, tree_fn = _tree_case(stablax, jnp, size)
    return {
        "stablax raw PJRT execute": lambda: executable.execute(buffers),
        "stablax jit cache hit": lambda: add(x, y),
        "stablax eager x + y": lambda: x + y,
        "stablax jit hit, pytree args": lambda: tree_fn(tree, 0.5),
    }


def _tree_case(lib, jnp, size: int):
    """A training-step-shaped call: a dict of parameters and a Python scalar in, a dict out."""
    params = {name: jnp.ones(size, jnp.float32) for name in ("w1", "b1", "w2", "b2")}
    fn = lib.jit(lambda p, lr: {k: v - lr * v for k, v in p.items()})
    fn(params, 0.5)
    return params, fn


def jax_cases(size: int) -> dict[str, Callable[[], object]]:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return {}
    x = jnp.ones(size, jnp.float32)
    y = jnp.ones(size, jnp.float32)
    add = jax.jit(lambda a, b: a + b)
    add(x, y).block_until_ready()
    _ = x + y
    tree, tree_fn = _tree_case(jax, jnp, size)
    return {
        "jax jit cache hit": lambda: add(x, y),
        "jax eager x + y": lambda: x + y,
        "jax jit hit, pytree args": lambda: tree_fn(tree, 0.5),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=3)
    args = parser.parse_args()
    cases = {**stablax_cases(args.size), **jax_cases(args.size)}
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):  # interleave so drift hits every case alike
        for name, fn in cases.items():
            samples[name].append(per_call_us(fn, args.calls))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    raw = medians["stablax raw PJRT execute"]
    print(f"{'case':32s} {'median us/call':>15s} {'min':>8s} {'x raw':>7s}")
    for name, values in samples.items():
        print(f"{name:32s} {medians[name]:15.2f} {min(values):8.2f} {medians[name] / raw:7.2f}")
    if "jax jit cache hit" in medians:
        jit_ratio = medians["stablax jit cache hit"] / medians["jax jit cache hit"]
        eager_ratio = medians["stablax eager x + y"] / medians["jax eager x + y"]
        print(f"\njit hit   stablax/jax: {jit_ratio:.2f}")
        print(f"eager x+y stablax/jax: {eager_ratio:.2f}")
        tree_ratio = medians["stablax jit hit, pytree args"] / medians["jax jit hit, pytree args"]
        print(f"jit hit, pytree args stablax/jax: {tree_ratio:.2f}")
    lows = {name: min(values) for name, values in samples.items()}
    ratio, low_ratio = (
        medians["stablax jit cache hit"] / raw,
        lows["stablax jit cache hit"] / min(samples["stablax raw PJRT execute"]),
    )
    print(f"jit hit / raw execute: {ratio:.2f} (medians), {low_ratio:.2f} (minima); target <= 1.3")


if __name__ == "__main__":
    main()
