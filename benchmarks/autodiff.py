"""Gradient programs: op count of XLA's optimised HLO and compiled step time, stablax vs JAX.

Run: python benchmarks/autodiff.py   (JAX's columns appear when `jax` is installed).
Target (autodiff issue): no more ops and no slower than JAX's gradient.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable

import numpy as np


def hlo_op_count(hlo_text: str) -> int:
    """Instructions in the optimised HLO, parameters, constants and tuples excluded."""
    count = 0
    for line in hlo_text.splitlines():
        match = re.match(r"\s*(ROOT\s+)?%?[\w.\-]+ = \S+ (\w[\w\-]*)\(", line)
        if match and match.group(2) not in ("parameter", "constant", "tuple", "get-tuple-element"):
            count += 1
    return count


def time_us(
    fn: Callable[[], object], block: Callable[[object], object], repeats: int = 7, calls: int = 50
) -> float:
    block(fn())
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            out = fn()
        block(out)
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def problems(np_rng: np.random.Generator):
    x_mlp = np_rng.standard_normal((128, 64)).astype(np.float32)
    y_mlp = np_rng.standard_normal((128, 10)).astype(np.float32)
    sizes = [(64, 256), (256, 256), (256, 10)]
    mlp_params = [
        (np_rng.standard_normal(s).astype(np.float32) * 0.1, np.zeros(s[1], np.float32))
        for s in sizes
    ]
    x_cnn = np_rng.standard_normal((16, 3, 16, 16)).astype(np.float32)
    y_cnn = np_rng.standard_normal((16, 10)).astype(np.float32)
    cnn_params = (
        np_rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.1,
        np_rng.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.1,
        np_rng.standard_normal((16 * 16 * 16, 10)).astype(np.float32) * 0.01,
    )
    return (mlp_params, x_mlp, y_mlp), (cnn_params, x_cnn, y_cnn)


def losses(jnp, lax):
    def mlp_loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        return jnp.mean((h @ w + b - y) ** 2)

    def cnn_loss(params, x, y):
        k1, k2, w = params
        dn = ("NCHW", "OIHW", "NCHW")
        h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
        h = jnp.maximum(h, 0.0)
        h = lax.conv_general_dilated(h, k2, (1, 1), "SAME", dimension_numbers=dn)
        h = jnp.maximum(h, 0.0).reshape(x.shape[0], -1)
        return jnp.mean((h @ w - y) ** 2)

    return mlp_loss, cnn_loss


def measure(name: str, jax_like, jnp, lax, block) -> dict[str, tuple[int, float]]:
    rng = np.random.default_rng(0)
    results = {}
    for (label, loss), (params, x, y) in zip(zip(("mlp", "cnn"), losses(jnp, lax)), problems(rng)):
        params = jax_like.tree_util.tree_map(jnp.asarray, params)
        x, y = jnp.asarray(x), jnp.asarray(y)
        step = jax_like.jit(jax_like.grad(loss))
        ops = hlo_op_count(step.lower(params, x, y).compile().as_text())
        results[label] = (ops, time_us(lambda s=step, p=params, a=x, b=y: s(p, a, b), block))
    return results


def main() -> None:
    import stablax
    import stablax.numpy as snp

    rows = {"stablax": measure("stablax", stablax, snp, stablax.lax, stablax.block_until_ready)}
    try:
        import jax
        import jax.numpy as jjnp

        rows["jax"] = measure("jax", jax, jjnp, jax.lax, jax.block_until_ready)
    except ImportError:
        pass
    print(f"{'program':10s} {'library':8s} {'HLO ops':>8s} {'step us':>10s}")
    for label in ("mlp", "cnn"):
        for lib, res in rows.items():
            ops, us = res[label]
            print(f"{label:10s} {lib:8s} {ops:8d} {us:10.1f}")
    if "jax" in rows:
        for label in ("mlp", "cnn"):
            (s_ops, s_us), (j_ops, j_us) = rows["stablax"][label], rows["jax"][label]
            print(f"{label}: ops stablax/jax {s_ops}/{j_ops}, time ratio {s_us / j_us:.2f}")


if __name__ == "__main__":
    main()
