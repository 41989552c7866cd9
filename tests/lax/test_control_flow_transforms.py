"""Derivatives (checked by finite differences) and batching (vmap against a Python loop) of
structured control flow, eagerly and under jit."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax.test_util import check_grads

MODES = ["eager", "jit"]
TOL = dict(atol=2e-2, rtol=2e-2)


def maybe_jit(mode, fun):
    return stablax.jit(fun) if mode == "jit" else fun


def _rng(seed=0):
    return np.random.default_rng(seed)


def scan_fun(w, xs):
    def step(c, x):
        h = jnp.tanh(c * w + x)
        return h, h * x

    c, ys = lax.scan(step, jnp.zeros(xs.shape[1]), xs)
    return c.sum() + (ys**2).sum()


def reverse_unrolled_scan(w, xs):
    c, ys = lax.scan(lambda c, x: (jnp.sin(c) * w + x, c * w), 0.5, xs, reverse=True, unroll=2)
    return c + ys.sum()


def cond_fun(x, y):
    return lax.cond(
        x.sum() > 0, lambda a, b: jnp.sin(a) * b, lambda a, b: jnp.cos(a) + b * y.sum(), x, y
    ).sum()


def switch_fun(x, y):
    branches = [lambda a: a * y, lambda a: jnp.exp(a), lambda a: jnp.sin(a) * a]
    return sum(lax.switch(i, branches, x).sum() for i in range(3))


def fori_fun(x, y):
    return lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * x + y * i, y).sum()


def bounded_while(x, y):
    def body(c):
        i, v = c
        return i + 1, v * x + y

    return lax.while_loop(lambda c: c[0] < 3, body, (0, y), max_steps=6)[1].sum()


def nested(w, xs):
    def outer(c, x):
        inner, _ = lax.scan(lambda d, y: (jnp.sin(d * w + y), None), c, x)
        out = lax.cond(inner > 0, lambda a: a * w, lambda a: a - w, inner)
        return out, out**2

    c, ys = lax.scan(outer, 0.3, xs)
    return c + ys.sum()


CASES = [
    ("scan", scan_fun, ((), (4, 3))),
    ("scan_reverse_unrolled", reverse_unrolled_scan, ((), (5,))),
    ("cond", cond_fun, ((3,), (3,))),
    ("switch", switch_fun, ((2,), (2,))),
    ("fori_static", fori_fun, ((3,), (3,))),
    ("while_max_steps", bounded_while, ((), (2,))),
    ("nested", nested, ((), (3, 2))),
]


def _args(shapes, seed=0):
    rng = _rng(seed)
    return tuple(rng.uniform(0.2, 0.9, s).astype(np.float32) for s in shapes)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_grads_by_finite_differences(case, mode):
    _, fun, shapes = case
    check_grads(maybe_jit(mode, fun), _args(shapes), order=1, modes=("fwd", "rev"), **TOL)


@pytest.mark.parametrize("case", [CASES[0], CASES[2]], ids=["scan", "cond"])
def test_second_order(case):
    _, fun, shapes = case
    check_grads(stablax.jit(fun), _args(shapes), order=2, modes=("rev",), **TOL)


def test_grad_of_closed_over_value_in_jit():
    @stablax.jit
    def fun(w, x):
        return lax.fori_loop(0, 4, lambda i, c: c * w + x, 1.0)

    # d/dw of ((w + x) w + x) w + x ... evaluated at w=.5, x=2 by hand: 6.0 and 1.875.
    assert float(stablax.grad(fun)(0.5, 2.0)) == pytest.approx(6.0)
    assert float(stablax.grad(fun, 1)(0.5, 2.0)) == pytest.approx(1.875)


def test_while_loop_forward_mode_and_reverse_mode_error():
    def fun(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]

    value, tangent = stablax.jvp(fun, (2.0,), (1.0,))
    assert float(value) == 8.0 and float(tangent) == 12.0
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax"):
        stablax.grad(fun)(2.0)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax"):
        dynamic = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x, 1.0)  # noqa: E731
        stablax.jit(stablax.grad(dynamic))(2.0, 3)  # n is traced: a while loop
    # With a bound on the trip count the same loop has a gradient.
    bounded = stablax.grad(
        lambda x: lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, 1.0), max_steps=8
        )[1]
    )
    assert float(bounded(2.0)) == pytest.approx(12.0)


def test_rnn_trains_with_jit_grad():
    rng = _rng(1)
    xs = rng.standard_normal((8, 4, 3)).astype(np.float32)
    target = np.sin(np.cumsum(xs.sum(-1, keepdims=True), 0) * 0.3).astype(np.float32)

    def loss(params, xs, target):
        w_h, w_x, w_out = params

        def step(h, x):
            h = jnp.tanh(h @ w_h + x @ w_x)
            return h, h @ w_out

        _, ys = lax.scan(step, jnp.zeros((xs.shape[1], 8)), xs)
        return jnp.mean((ys - target) ** 2)

    params = [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in [(8, 8), (3, 8), (8, 1)]]
    check_grads(lambda *p: loss(p, xs, target), tuple(params), order=1, modes=("rev",), **TOL)
    step = stablax.jit(stablax.value_and_grad(loss))
    first = None
    for _ in range(20):
        value, grads = step(params, xs, target)
        first = float(value) if first is None else first
        params = [p - 0.5 * g for p, g in zip(params, grads, strict=True)]
    assert float(value) < 0.7 * first


# --- batching ----------------------------------------------------------------------------------


def _loop(fun, args, in_axes):
    size = next(np.shape(a)[0] for a, ax in zip(args, in_axes, strict=True) if ax is not None)
    outs = [
        fun(*[a if ax is None else a[i] for a, ax in zip(args, in_axes, strict=True)])
        for i in range(size)
    ]
    return np.stack([np.asarray(o) for o in outs])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
def test_vmap_matches_loop(case, mode, in_axes):
    _, fun, shapes = case
    args = tuple(
        np.stack([a, a * 1.3 - 0.1, a * 0.5]) if ax is not None else a
        for a, ax in zip(_args(shapes), in_axes, strict=True)
    )
    out = maybe_jit(mode, stablax.vmap(fun, in_axes))(*args)
    np.testing.assert_allclose(out, _loop(fun, args, in_axes), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_vmap_while_with_batched_predicate(mode):
    def fun(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))

    ns, xs = np.array([1, 4, 2], np.int32), np.array([2.0, 1.5, 3.0], np.float32)
    i, v = maybe_jit(mode, stablax.vmap(fun))(ns, xs)
    np.testing.assert_array_equal(i, ns)
    np.testing.assert_allclose(v, xs**ns, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_vmap_cond_with_batched_predicate_and_grad(mode):
    def fun(x):
        return lax.cond(x > 0, lambda a: jnp.sin(a) * 2, lambda a: a**3, x)

    xs = np.array([-1.0, 0.5, 2.0], np.float32)
    out = maybe_jit(mode, stablax.vmap(fun))(xs)
    np.testing.assert_allclose(out, np.where(xs > 0, np.sin(xs) * 2, xs**3), rtol=1e-6)
    grads = maybe_jit(mode, stablax.vmap(stablax.grad(fun)))(xs)
    np.testing.assert_allclose(grads, np.where(xs > 0, np.cos(xs) * 2, 3 * xs**2), rtol=1e-5)


def test_grad_of_vmap_and_vmap_of_grad_of_scan():
    w = np.array([0.7, 0.2], np.float32)
    xs = _args(((4, 3),))[0]
    per_example = stablax.vmap(stablax.grad(scan_fun), (0, None))(w, xs)
    looped = [stablax.grad(scan_fun)(wi, xs) for wi in w]
    np.testing.assert_allclose(per_example, looped, rtol=1e-5)
    total = stablax.grad(lambda v: stablax.vmap(scan_fun, (0, None))(v, xs).sum())(w)
    np.testing.assert_allclose(total, looped, rtol=1e-5)


def test_python_branch_after_scan_under_grad_outside_jit():
    # The concrete value of `c` is computed from a prefix that calls the scan's private function.
    def fun(x):
        c, _ = lax.scan(lambda c, y: (c * y, None), x, jnp.arange(1.0, 4.0))
        return c * 2 if c > 0 else c

    assert float(stablax.grad(fun)(1.5)) == pytest.approx(12.0)
    assert float(stablax.grad(fun)(-1.5)) == pytest.approx(6.0)
