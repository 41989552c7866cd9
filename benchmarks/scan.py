"""An RNN over 1000 steps written with lax.scan: compiled forward and gradient time, stablax vs
JAX (when installed), both timed in this process with their rounds interleaved.

Run: python benchmarks/scan.py
Target (control-flow issue): within 1.1x of JAX.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

STEPS, BATCH, HIDDEN, FEATURES = 1000, 8, 64, 16


def rnn_loss(jnp, lax):
    def loss(params, xs, target):
        w_h, w_x, b, w_out = params

        def step(h, x):
            h = jnp.tanh(h @ w_h + x @ w_x + b)
            return h, h @ w_out

        h0 = jnp.zeros((xs.shape[1], w_h.shape[0]), xs.dtype)
        _, ys = lax.scan(step, h0, xs)
        return jnp.mean((ys - target) ** 2)

    return loss


def problem(rng: np.random.Generator):
    params = (
        (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32),
        (rng.standard_normal((FEATURES, HIDDEN)) / np.sqrt(FEATURES)).astype(np.float32),
        np.zeros(HIDDEN, np.float32),
        (rng.standard_normal((HIDDEN, 1)) / np.sqrt(HIDDEN)).astype(np.float32),
    )
    xs = rng.standard_normal((STEPS, BATCH, FEATURES)).astype(np.float32)
    target = rng.standard_normal((STEPS, BATCH, 1)).astype(np.float32)
    return params, xs, target


def programs(lib, jnp, lax):
    params, xs, target = problem(np.random.default_rng(0))
    params = tuple(jnp.asarray(p) for p in params)
    xs, target = jnp.asarray(xs), jnp.asarray(target)
    loss = rnn_loss(jnp, lax)
    forward = lib.jit(loss)
    gradient = lib.jit(lib.grad(loss))
    return {
        "forward": lambda: forward(params, xs, target),
        "gradient": lambda: gradient(params, xs, target),
    }


def one_round(fn, block, calls: int = 10) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        out = fn()
    block(out)
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    import stablax
    import stablax.numpy as snp

    libraries = {"stablax": (programs(stablax, snp, stablax.lax), stablax.block_until_ready)}
    try:
        import jax
        import jax.numpy as jjnp

        libraries["jax"] = (programs(jax, jjnp, jax.lax), jax.block_until_ready)
    except ImportError:
        pass
    samples: dict[tuple[str, str], list[float]] = {}
    for progs, block in libraries.values():  # compile and warm up
        for fn in progs.values():
            block(fn())
    for _ in range(7):  # interleaved rounds
        for label in ("forward", "gradient"):
            for name, (progs, block) in libraries.items():
                samples.setdefault((name, label), []).append(one_round(progs[label], block))
    print(f"RNN, {STEPS} steps, batch {BATCH}, hidden {HIDDEN}")
    print(f"{'program':10s} {'library':8s} {'median us':>12s}")
    for (name, label), values in sorted(samples.items(), key=lambda kv: kv[0][::-1]):
        print(f"{label:10s} {name:8s} {statistics.median(values):12.1f}")
    if "jax" in libraries:
        for label in ("forward", "gradient"):
            ours = statistics.median(samples[("stablax", label)])
            theirs = statistics.median(samples[("jax", label)])
            print(f"{label}: stablax/jax time ratio {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
