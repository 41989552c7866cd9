"""custom_vmap and sequential_vmap: the user's batching rule replaces batching the body."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax.custom_batching import custom_vmap, sequential_vmap


def _make():
    calls = []

    @custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        calls.append((axis_size, tuple(in_batched)))
        out = jnp.sin(xs) * ys + 100.0  # deliberately not the batched body
        return out, any(in_batched)

    return f, calls


def test_custom_vmap_outside_vmap_runs_the_function():
    f, calls = _make()
    np.testing.assert_allclose(float(f(1.0, 2.0)), 2 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(float(stablax.jit(f)(1.0, 2.0)), 2 * np.sin(1.0), rtol=1e-6)
    assert calls == []


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0)])
def test_custom_vmap_rule_runs_under_vmap(in_axes):
    f, calls = _make()
    xs, ys = jnp.arange(3.0), jnp.arange(1.0, 4.0)
    args = [xs if a == 0 else xs[1] for a in in_axes[:1]] + [ys if in_axes[1] == 0 else 2.0]
    out = stablax.vmap(f, in_axes=in_axes)(*args)
    x = np.asarray(args[0]) * np.ones(3)
    y = np.asarray(args[1]) * np.ones(3)
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * y + 100.0, rtol=1e-6)
    assert calls == [(3, (in_axes[0] == 0, in_axes[1] == 0))]
    np.testing.assert_allclose(
        np.asarray(stablax.jit(stablax.vmap(f, in_axes=in_axes))(*args)), np.sin(x) * y + 100.0
    )


def test_custom_vmap_differentiates_the_body():
    f, _ = _make()
    np.testing.assert_allclose(float(stablax.grad(f)(1.0, 2.0)), 2 * np.cos(1.0), rtol=1e-6)


def test_custom_vmap_rule_errors():
    @custom_vmap
    def g(x):
        return x

    g.def_vmap(lambda n, b, x: (x[0], True))  # claims batched, but drops the batch axis
    with pytest.raises(ValueError, match="marked batched"):
        stablax.vmap(g)(jnp.ones((3, 2)))


def test_sequential_vmap_loops():
    @sequential_vmap
    def f(x, k):
        return jnp.sum(x) * k

    xs = jnp.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(np.asarray(stablax.vmap(f, (0, None))(xs, 2.0)), [2.0, 10.0, 18.0])
    text = stablax.jit(stablax.vmap(f, (0, None))).lower(xs, 2.0).as_text()
    assert "stablax.scan" in text  # a loop, not the batched body
