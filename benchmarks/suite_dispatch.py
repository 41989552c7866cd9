"""Per-call costs: eager ops and common eager `jnp` calls, eager indexing with changing Python
ints and slices, and `jit` cache hits: pytrees of 1 to 500 leaves in, one or many out, keywords."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from benchmarks.harness import Row, Settings, interleaved, per_call, row_from_samples
from benchmarks.models import Lib


def _eager_calls(lib: Lib) -> dict[str, Callable[[], Any]]:
    jnp, random = lib.jnp, lib.random
    x, v, i = jnp.ones((100, 100)), jnp.ones(100), jnp.arange(10)
    a, b = jnp.ones(3), jnp.ones(3)
    host = np.ones(100, np.float32)
    key = random.PRNGKey(0)
    return {
        "x + y (3 floats)": lambda: a + b,
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
        "x[i] (int array)": lambda: x[i],
        "jnp.concatenate": lambda: jnp.concatenate([v, v]),
        "jnp.stack": lambda: jnp.stack([v, v]),
        "jnp.zeros((10, 10))": lambda: jnp.zeros((10, 10)),
        "jnp.arange(100)": lambda: jnp.arange(100),
        "jnp.argmax(v)": lambda: jnp.argmax(v),
        "jnp.asarray(numpy)": lambda: jnp.asarray(host),
        "float(x[0, 0])": lambda: float(x[0, 0]),
        "random.normal": lambda: random.normal(key, (10,)),
        "random.split": lambda: random.split(key),
    }


def _indexing_calls(lib: Lib, n: int) -> dict[str, Callable[[int], Any]]:
    jnp = lib.jnp
    v = jnp.arange(float(n))
    m = jnp.arange(float(n * 8)).reshape(n, 8).T  # (8, n): x[:, i] walks the long axis
    return {
        "x[i], 50 Python ints": lambda i: v[i],
        "x[i:i+10], 50 Python ints": lambda i: v[i : i + 10],
        "x[:, i], 50 Python ints": lambda i: m[:, i],
    }


def _tree_call(lib: Lib, leaves: int) -> Callable[[], Any]:
    """A training-step-shaped jit call: a dict of `leaves` parameters and a float in, a dict out."""
    params = {f"w{k}": lib.jnp.ones(3, lib.jnp.float32) for k in range(leaves)}
    fn = lib.top.jit(lambda p, lr: lib.top.tree_util.tree_map(lambda w: w - lr * w, p))
    lib.block(fn(params, 0.5))
    return lambda: fn(params, 0.5)


def _loss(params: dict, x: Any) -> Any:
    """A loss: reads every parameter, returns one array."""
    return x * sum(w[0] for w in params.values())


def _scaled(params: dict, x: Any) -> Any:
    """One output per parameter."""
    return {k: w * x for k, w in params.items()}


def _reads_x_only(params: dict, x: Any) -> Any:
    """Reads none of the parameters (JAX leaves them out of its executable)."""
    return x * 2.0


def _train_loss(params: dict, x: Any, train: bool) -> Any:
    return _loss(params, x) * 0.5 if train else _loss(params, x)


# Pytree hits with parameters: (function, parameter leaves) by case name.
PARAMS_CASES = {
    "10 leaves in, 1 out": (_loss, 10),
    "120 leaves in, 1 out": (_loss, 120),
    "500 leaves in, 1 out": (_loss, 500),
    "120 leaves in, 120 out": (_scaled, 120),
    "120 leaves in (x read), 1 out": (_reads_x_only, 120),
}


def params_and_x(lib: Lib, leaves: int) -> tuple[dict, Any]:
    """A dict of `leaves` parameter arrays and one more array, `x`."""
    params = {f"w{k}": lib.jnp.ones(3, lib.jnp.float32) for k in range(leaves)}
    return params, lib.jnp.ones(3, lib.jnp.float32)


def _params_call(lib: Lib, fn: Callable, leaves: int, keywords: bool = False) -> Callable[[], Any]:
    """`fn(params, x)` jitted (see `params_and_x`); with `keywords`, `fn(params, x=x,
    train=True)` with `train` static."""
    params, x = params_and_x(lib, leaves)
    if keywords:
        jitted = lib.top.jit(fn, static_argnames="train")
        lib.block(jitted(params, x=x, train=True))
        return lambda: jitted(params, x=x, train=True)
    jitted = lib.top.jit(fn)
    lib.block(jitted(params, x))
    return lambda: jitted(params, x)


def _keyword_call(lib: Lib) -> Callable[[], Any]:
    """`step(x, scale=0.5, train=True)`, `train` static: keyword arguments on a cache hit."""
    x = lib.jnp.ones(3, lib.jnp.float32)
    fn = lib.top.jit(lambda x, scale, train: x * scale if train else x, static_argnames="train")
    lib.block(fn(x, scale=0.5, train=True))
    return lambda: fn(x, scale=0.5, train=True)


def run(settings: Settings) -> list[Row]:
    libs = {lib.name: lib for lib in settings.libs}
    calls = 20 if settings.quick else 1000
    rows: list[Row] = []

    eager = {name: _eager_calls(lib) for name, lib in libs.items()}
    for case in eager["stablax"]:
        if not settings.wants(case):
            continue
        fns = {}
        for name, lib in libs.items():
            fn = eager[name][case]
            lib.block(fn())  # compile once, outside the timing
            fns[name] = lambda fn=fn, lib=lib: per_call(fn, calls, lib.block) * 1e6
        target = 1.0 if case.startswith("x + y") else None  # DESIGN.md: eager x + y <= JAX's
        samples = interleaved(fns, settings.rounds)
        rows.append(row_from_samples("eager dispatch", case, "us", samples, target))

    # Each round reads 50 new positions, so a library that compiles per value pays every round.
    n = 200 if settings.quick else 50 * (settings.rounds + 1) + 20
    for case in _indexing_calls(libs["stablax"], n):
        if not settings.wants(case):
            continue
        fns, counters = {}, {name: iter(range(50, n - 10, 1)) for name in libs}
        for name, lib in libs.items():
            index = _indexing_calls(lib, n)[case]
            lib.block(index(0))

            def fifty(index=index, lib=lib, positions=counters[name]) -> float:
                values = [next(positions) for _ in range(50)]
                return per_call(lambda: index(values.pop()), 50, lib.block) * 1e6

            fns[name] = fifty
        rounds = min(settings.rounds, (n - 70) // 50)
        rows.append(
            row_from_samples("eager indexing", case, "us", interleaved(fns, rounds), target=1.0)
        )

    jit_calls = {
        f"jit cache hit, {n}-leaf pytree": partial(_tree_call, leaves=n) for n in (1, 10, 120)
    }
    jit_calls["jit cache hit, keyword arguments"] = _keyword_call
    for case, (fn, n) in PARAMS_CASES.items():
        jit_calls[f"jit cache hit, {case}"] = partial(_params_call, fn=fn, leaves=n)
    jit_calls["jit cache hit, keyword arguments, 120 leaves"] = partial(
        _params_call, fn=_train_loss, leaves=120, keywords=True
    )
    for case, make_call in jit_calls.items():
        if not settings.wants(case):
            continue
        fns = {}
        for name, lib in libs.items():
            call = make_call(lib)
            fns[name] = lambda call=call, lib=lib: per_call(call, calls, lib.block) * 1e6
        rows.append(
            row_from_samples("jit dispatch", case, "us", interleaved(fns, settings.rounds), 1.0)
        )
    return rows
