"""Per-call time of common eager `jnp` calls on a 100x100 float32 array, stablax next to JAX.

Run: python benchmarks/eager_ops.py   (the JAX column appears when `jax` is installed). Each case
reports the minimum over rounds: eager calls are microseconds long, and the minimum is the
figure least disturbed by the rest of the machine. No targets yet beyond "no slower than JAX".
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import time
from collections.abc import Callable

import numpy as np


def per_call_us(fn: Callable[[], object], calls: int, rounds: int) -> float:
    fn()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def cases(lib, jnp) -> dict[str, Callable[[], object]]:
    x, v, i = jnp.ones((100, 100)), jnp.ones(100), jnp.arange(10)
    host = np.ones(100, np.float32)
    return {
        "jnp.sum(x)": lambda: jnp.sum(x),
        "x.sum(axis=0)": lambda: x.sum(axis=0),
        "jnp.mean(x)": lambda: jnp.mean(x),
        "x @ v": lambda: x @ v,
        "jnp.exp(x)": lambda: jnp.exp(x),
        "x * 2.0": lambda: x * 2.0,
        "jnp.maximum(x, 0.0)": lambda: jnp.maximum(x, 0.0),
        "jnp.where(x > 0, x, 0.0)": lambda: jnp.where(x > 0, x, 0.0),
        "x.astype(int32)": lambda: x.astype(jnp.int32),
        "x.reshape(-1)": lambda: x.reshape(-1),
        "x.T": lambda: x.T,
        "x[0]": lambda: x[0],
        "x[:, 1:5]": lambda: x[:, 1:5],
        "x[i]": lambda: x[i],
        "jnp.concatenate": lambda: jnp.concatenate([v, v]),
        "jnp.stack": lambda: jnp.stack([v, v]),
        "jnp.zeros((10, 10))": lambda: jnp.zeros((10, 10)),
        "jnp.arange(100)": lambda: jnp.arange(100),
        "jnp.argmax(v)": lambda: jnp.argmax(v),
        "jnp.asarray(numpy)": lambda: jnp.asarray(host),
        "float(x[0, 0])": lambda: float(x[0, 0]),
        "random.normal": lambda: lib.random.normal(lib.random.key(0), (10,)),
        "random.split": lambda: lib.random.split(lib.random.key(0)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    libraries = {"stablax": "stablax"}
    if importlib.util.find_spec("jax") is not None:
        libraries["jax"] = "jax"
    timings: dict[str, dict[str, float]] = {}
    for name, module in libraries.items():
        lib = importlib.import_module(module)
        jnp = importlib.import_module(f"{module}.numpy")
        for case, fn in cases(lib, jnp).items():
            timings.setdefault(case, {})[name] = per_call_us(fn, args.calls, args.rounds)
    header = f"{'case':26s} {'stablax us':>11s}"
    if "jax" in libraries:
        header += f" {'jax us':>9s} {'ratio':>6s}"
    print(header)
    for case, row in timings.items():
        line = f"{case:26s} {row['stablax']:11.1f}"
        if "jax" in row:
            line += f" {row['jax']:9.1f} {row['stablax'] / row['jax']:6.2f}"
        print(line)


if __name__ == "__main__":
    main()
