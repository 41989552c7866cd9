"""Per-example gradients of an MLP over a batch of 256: jit(vmap(grad)) vs a Python loop, and JAX.

Run: python benchmarks/vmap.py   (JAX's column appears when `jax` is installed).
Target (vmap issue): stablax's jitted vmap(grad) within 1.1x of JAX's.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable

import numpy as np

BATCH = 256
SIZES = [(32, 64), (64, 64), (64, 10)]


def hlo_op_count(hlo_text: str) -> int:
    """Instructions in the optimised HLO, parameters, constants and tuples excluded."""
    count = 0
    for line in hlo_text.splitlines():
        match = re.match(r"\s*(ROOT\s+)?%?[\w.\-]+ = \S+ (\w[\w\-]*)\(", line)
        if match and match.group(2) not in ("parameter", "constant", "tuple", "get-tuple-element"):
            count += 1
    return count


def time_us(
    fns: dict[str, tuple[Callable[[], object], Callable[[object], object]]],
    repeats: int = 15,
    calls: int = 10,
) -> dict[str, tuple[float, float]]:
    """(median, best) over `repeats` of the mean time of `calls` back-to-back calls, in us.

    The functions are timed in turns within each repeat, so a busy machine slows them alike.
    """
    for fn, block in fns.values():
        block(fn())
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, (fn, block) in fns.items():
            start = time.perf_counter()
            for _ in range(calls):
                out = fn()
            block(out)
            samples[name].append((time.perf_counter() - start) / calls * 1e6)
    return {name: (statistics.median(times), min(times)) for name, times in samples.items()}


def problem(rng: np.random.Generator):
    params = [
        (rng.standard_normal(s).astype(np.float32) / np.sqrt(s[0]), np.zeros(s[1], np.float32))
        for s in SIZES
    ]
    xs = rng.standard_normal((BATCH, SIZES[0][0])).astype(np.float32)
    ys = rng.standard_normal((BATCH, SIZES[-1][1])).astype(np.float32)
    return params, xs, ys


def example_loss(jnp):
    def loss(params, x, y):  # one example: x (64,), y (10,)
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(jnp.dot(h, w) + b)
        w, b = params[-1]
        return jnp.sum((jnp.dot(h, w) + b - y) ** 2)

    return loss


def setup(jax_like, jnp, block, with_loop: bool):
    """The timed callables of one library, and the HLO op count of its per-example program."""
    params, xs, ys = problem(np.random.default_rng(0))
    params = jax_like.tree_util.tree_map(jnp.asarray, params)
    xs, ys = jnp.asarray(xs), jnp.asarray(ys)
    loss = example_loss(jnp)
    per_example = jax_like.jit(jax_like.vmap(jax_like.grad(loss), in_axes=(None, 0, 0)))
    fns = {"vmap": (lambda: per_example(params, xs, ys), block)}
    ops = hlo_op_count(per_example.lower(params, xs, ys).compile().as_text())
    if with_loop:
        one = jax_like.jit(jax_like.grad(loss))
        rows = [(xs[i], ys[i]) for i in range(BATCH)]

        def loop():
            return [one(params, x, y) for x, y in rows]

        _check_against_loop(per_example(params, xs, ys), loop(), jax_like)
        fns["loop"] = (loop, block)
    return fns, ops


def _check_against_loop(batched, looped, jax_like) -> None:
    leaves = jax_like.tree_util.tree_leaves(batched)
    for i in (0, BATCH // 2, BATCH - 1):
        expected = jax_like.tree_util.tree_leaves(looped[i])
        for got, want in zip(leaves, expected, strict=True):
            np.testing.assert_allclose(np.asarray(got)[i], np.asarray(want), rtol=1e-4, atol=1e-5)


def main() -> None:
    import stablax
    import stablax.numpy as snp

    ops = {}
    fns, ops["stablax"] = setup(stablax, snp, stablax.block_until_ready, with_loop=True)
    timed = {"stablax vmap": fns["vmap"]}
    try:
        import jax
        import jax.numpy as jjnp

        jax_fns, ops["jax"] = setup(jax, jjnp, jax.block_until_ready, with_loop=False)
        timed["jax vmap"] = jax_fns["vmap"]
    except ImportError:
        pass
    times = time_us(timed)
    times["stablax loop"] = time_us({"loop": fns["loop"]}, repeats=5, calls=1)["loop"]
    print(f"per-example gradients, MLP {SIZES}, batch {BATCH}")
    print(f"{'':28s} {'median us':>10s} {'best us':>10s} {'HLO ops':>8s}")
    rows = [
        ("stablax jit(vmap(grad))", "stablax vmap", ops["stablax"]),
        ("stablax loop of jit(grad)", "stablax loop", None),
        ("jax jit(vmap(grad))", "jax vmap", ops.get("jax")),
    ]
    for label, key, count in rows:
        if key in times:
            median, best = times[key]
            print(f"{label:28s} {median:10.1f} {best:10.1f} {'' if count is None else count:>8}")
    if "jax vmap" in times:
        ratio = times["stablax vmap"][0] / times["jax vmap"][0]
        best_ratio = times["stablax vmap"][1] / times["jax vmap"][1]
        print(f"ratio stablax/jax: median {ratio:.2f}, best {best_ratio:.2f} (target <= 1.10)")
    speedup = times["stablax loop"][0] / times["stablax vmap"][0]
    print(f"speed-up of vmap over the loop (medians): {speedup:.1f}x")


if __name__ == "__main__":
    main()
