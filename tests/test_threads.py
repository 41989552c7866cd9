"""Tracing and running from several threads at once: MLIR contexts are per thread, and nothing a
module needs lives outside it, so every construct traces in any thread, and a signature traced in
one thread runs in another.

Eight threads each trace and run every control-flow construct, custom_jvp, custom_vjp,
checkpoint, grad(scan), vmap(cond), jnp.linalg.inv, lax.igamma and random.gamma with their own
shapes, concurrently; then again with the shapes another thread traced.
"""

from __future__ import annotations

import concurrent.futures

import numpy as np

import stablax
import stablax.numpy as jnp
from stablax import lax, random


@stablax.custom_jvp
def _softplus(x):
    return jnp.log1p(jnp.exp(x))


@_softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _softplus(x), t / (1 + jnp.exp(-x))


@stablax.custom_vjp
def _clip_grad(x):
    return x


_clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -0.5, 0.5),))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name -> (function of an n-vector, NumPy reference); each is jitted once and shared by threads.
CASES = {
    "fori_loop": (
        lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2 + i, x),
        lambda x: ((x * 2 + 0) * 2 + 1) * 2 + 2,
    ),
    "scan": (
        lambda x: lax.scan(lambda c, v: (c + v, c * v), 0.0, x)[1],
        lambda x: np.concatenate([[0.0], np.cumsum(x)[:-1]]) * x,
    ),
    "cond": (
        lambda x: lax.cond(x[0] > 0, jnp.sin, jnp.cos, x),
        lambda x: np.sin(x) if x[0] > 0 else np.cos(x),
    ),
    "switch": (
        lambda x: lax.switch(x.shape[0] % 3, [jnp.sin, jnp.cos, jnp.tanh], x),
        lambda x: [np.sin, np.cos, np.tanh][x.shape[0] % 3](x),
    ),
    "while_loop": (
        lambda x: lax.while_loop(lambda c: c[0] < 100, lambda c: c * 3, x + 1.5),
        lambda x: _while_reference(x + 1.5),
    ),
    "map": (lambda x: lax.map(lambda v: v * v + 1, x), lambda x: x * x + 1),
    "custom_jvp": (
        lambda x: stablax.grad(lambda v: jnp.sum(_softplus(v)))(x),
        _sigmoid,
    ),
    "custom_vjp": (
        lambda x: stablax.grad(lambda v: jnp.sum(_clip_grad(v) * 3.0))(x),
        lambda x: np.full_like(x, 0.5),
    ),
    "checkpoint": (
        lambda x: stablax.grad(lambda v: jnp.sum(stablax.checkpoint(jnp.sin)(v)))(x),
        np.cos,
    ),
    "grad_scan": (
        lambda x: stablax.grad(lambda v: lax.scan(lambda c, y: (c * y, None), 1.0, v)[0])(x),
        lambda x: np.prod(x) / x,
    ),
    "vmap_cond": (
        lambda x: stablax.vmap(lambda v: lax.cond(v > 0, jnp.sin, jnp.cos, v))(x),
        lambda x: np.where(x > 0, np.sin(x), np.cos(x)),
    ),
    "linalg_inv": (
        lambda x: jnp.linalg.inv(jnp.diag(x) + 4.0),
        lambda x: np.linalg.inv(np.diag(x) + 4.0),
    ),
    "igamma": (lambda x: lax.igamma(jnp.abs(x) + 1.0, jnp.abs(x) + 0.5), None),
    "random_gamma": (lambda x: random.gamma(random.PRNGKey(0), jnp.abs(x) + 1.0), None),
}
JITTED = {name: stablax.jit(fun) for name, (fun, _) in CASES.items()}


def _while_reference(x):
    x = x.copy()
    while x[0] < 100:
        x = x * 3
    return x


def _input(n: int) -> np.ndarray:
    return (np.linspace(-0.9, 1.3, n) + 0.05 * n).astype(np.float32)


def _check(name: str, n: int, expected: dict) -> None:
    x = _input(n)
    fun, reference = CASES[name]
    eager = np.asarray(fun(x))
    jitted = np.asarray(JITTED[name](x))
    want = expected.get((name, n)) if reference is None else reference(x.astype(np.float64))
    np.testing.assert_allclose(eager, want, rtol=2e-5, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(jitted, want, rtol=2e-5, atol=1e-6, err_msg=name)


def _work(sizes: list[int], expected: dict) -> list[str]:
    done = []
    for n in sizes:
        for name in CASES:
            _check(name, n, expected)
            done.append(f"{name}[{n}]")
    return done


def test_eight_threads_trace_and_run_every_construct():
    sizes = [2, 3, 4, 5, 2, 3, 4, 5]  # two threads per shape: concurrent misses of one key
    # Values without a NumPy reference: computed once in this thread.
    expected = {
        (name, n): np.asarray(CASES[name][0](_input(n)))
        for name, (_, reference) in CASES.items()
        if reference is None
        for n in set(sizes)
    }
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for r in range(2):
            # Round 2: each thread takes the shapes another thread traced in round 1.
            plans = [[sizes[(i + r * 3) % 8]] for i in range(8)]
            results = list(pool.map(_work, plans, [expected] * 8))
    assert sum(len(r) for r in results) == 8 * len(CASES)


def test_a_signature_traced_in_a_worker_runs_in_the_main_thread():
    f = stablax.jit(lambda x: lax.fori_loop(0, 4, lambda i, c: c + i * x, x))
    x = np.arange(3.0, dtype=np.float32)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        in_worker = np.asarray(pool.submit(f, x).result())
    np.testing.assert_allclose(np.asarray(f(x)), in_worker)
    np.testing.assert_allclose(in_worker, x + 6 * x)
    g = stablax.jit(lambda x: lax.fori_loop(0, 4, lambda i, c: c + i * x, x))
    np.testing.assert_allclose(np.asarray(g(x)), in_worker)  # traced again, here


def test_interned_avals_are_one_object_across_threads():
    from stablax._src.avals import ShapedArray

    def make(_):
        return [ShapedArray((7, 11, i), np.float32) for i in range(200)]

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        lists = list(pool.map(make, range(8)))
    for avals in lists[1:]:
        assert all(a is b for a, b in zip(avals, lists[0], strict=True))


def test_pullbacks_and_linear_maps_made_in_one_thread_run_in_another():
    def f(x):
        c, _ = lax.scan(lambda c, v: (jnp.sin(c) * v, None), x, jnp.arange(1.0, 4.0))
        return lax.cond(c > 0, lambda y: y * 2, jnp.cos, c)

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        _, pullback = pool.submit(stablax.vjp, f, 0.7).result()
        _, f_jvp = pool.submit(stablax.linearize, f, 0.7).result()
    want = float(stablax.grad(f)(0.7))
    np.testing.assert_allclose(float(pullback(1.0)[0]), want, rtol=1e-6)
    np.testing.assert_allclose(float(f_jvp(1.0)), want, rtol=1e-6)


def test_functions_outlive_the_mlir_context_they_were_traced_in(monkeypatch):
    from stablax._src import ir as mlir

    monkeypatch.setattr(mlir, "CONTEXT_REUSE_LIMIT", 2)
    _, pullback = stablax.vjp(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, x), 1.5)
    for n in range(1, 6):  # each new signature is a top-level trace: fresh contexts
        np.testing.assert_allclose(np.asarray(jnp.cumsum(jnp.ones(n))), np.arange(1, n + 1))
    np.testing.assert_allclose(float(pullback(1.0)[0]), 4 * 1.5**3, rtol=1e-6)
