"""`jnp.frompyfunc` / `jnp.ufunc` against NumPy's built-in ufunc methods, eager and under jit."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax.test_util import check_grads

add = jnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0)
# A non-trivial, non-associative-looking function: a "soft" maximum built from lax-level ops.
logaddexp = jnp.frompyfunc(lambda a, b: jnp.logaddexp(a, b), 2, 1)
hypot = jnp.frompyfunc(lambda a, b: jnp.sqrt(a * a + b * b), 2, 1, identity=0)

MODES = ["eager", "jit"]


def run(mode, fun, *args):
    return fun(*args) if mode == "eager" else stablax.jit(fun)(*args)


def close(actual, expected, rtol=1e-5):
    expected = np.asarray(expected)
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol, atol=1e-5)
    assert np.asarray(actual).shape == expected.shape


@pytest.fixture
def x():
    return np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)


def test_attributes():
    assert isinstance(add, jnp.ufunc)
    assert (add.nin, add.nout, add.nargs, add.identity) == (2, 1, 2, 0)
    assert add.__name__ == "<lambda>" and repr(add) == "<jnp.ufunc '<lambda>'>"
    named = jnp.ufunc(np.hypot, 2, 1, name="myhypot")
    assert named.__name__ == "myhypot" and named.identity is None


@pytest.mark.parametrize("mode", MODES)
def test_call_and_outer(mode, x):
    close(run(mode, lambda a, b: add(a, b), x, x[0]), np.add(x, x[0]))
    close(run(mode, logaddexp, x, x[:, :1]), np.logaddexp(x, x[:, :1]))
    close(run(mode, add.outer, x[0], x), np.add.outer(x[0], x))
    close(run(mode, hypot.outer, x[:2], x[0]), np.hypot.outer(x[:2], x[0]))
    pair = jnp.frompyfunc(lambda a: (a, -a), 1, 2)
    first, second = run(mode, pair, x)
    close(first, x)
    close(second, -x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [0, 1, -1, None, (0, 1)])
def test_reduce(mode, x, axis):
    close(run(mode, lambda a: add.reduce(a, axis=axis), x), np.add.reduce(x, axis=axis))
    close(
        run(mode, lambda a: logaddexp.reduce(a, axis=axis, keepdims=True), x),
        np.logaddexp.reduce(x, axis=axis, keepdims=True),
    )
    close(run(mode, lambda a: hypot.reduce(a, axis=axis), x), np.hypot.reduce(x, axis=axis))


@pytest.mark.parametrize("mode", MODES)
def test_reduce_initial_where_and_dtypes(mode, x):
    mask = np.array([True, False, True, True])
    close(run(mode, lambda a: add.reduce(a, where=mask), x), np.add.reduce(x, where=mask))
    close(
        run(mode, lambda a: logaddexp.reduce(a, axis=1, initial=2.0, where=mask), x),
        np.logaddexp.reduce(x, axis=1, initial=2.0, where=mask),
    )
    close(run(mode, lambda a: add.reduce(a, initial=10.0), x), np.add.reduce(x, initial=10.0))
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = run(mode, lambda a: add.reduce(a, axis=1), ints)
    assert out.dtype == np.int32
    close(out, np.add.reduce(ints, axis=1))
    # A function that promotes (int + float) carries the promoted dtype through the fold.
    half = jnp.frompyfunc(lambda a, b: a + b * 0.5, 2, 1)
    out = run(mode, lambda a: half.reduce(a), ints)
    assert out.dtype == np.float32
    close(out, ints[0] + 0.5 * ints[1:].sum(0))
    assert run(mode, lambda a: add.reduce(a, dtype=jnp.int32), x).dtype == np.int32
    close(add.reduce(np.zeros((0, 3), np.float32)), np.zeros(3))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_accumulate(mode, x, axis):
    close(run(mode, lambda a: add.accumulate(a, axis=axis), x), np.add.accumulate(x, axis=axis))
    close(
        run(mode, lambda a: logaddexp.accumulate(a, axis=axis), x),
        np.logaddexp.accumulate(x, axis=axis),
    )
    ints = np.arange(5, dtype=np.int8)
    out = add.accumulate(ints)
    assert out.dtype == np.int8
    close(out, np.add.accumulate(ints))


@pytest.mark.parametrize("mode", MODES)
def test_at(mode, x):
    idx = np.array([0, 2, 0, 0, 3])
    vals = np.arange(5, dtype=np.float32)
    expected = x[0].copy()
    np.add.at(expected, idx, vals)
    close(run(mode, lambda a, b: add.at(a, idx, b, inplace=False), x[0], vals), expected)
    # Unbuffered: a non-linear function sees each repeat's updated value.
    expected = x.copy()
    np.hypot.at(expected, (np.array([1, 1, 2]), np.array([0, 0, 3])), 2.0)
    close(
        run(
            mode,
            lambda a: hypot.at(a, (jnp.array([1, 1, 2]), jnp.array([0, 0, 3])), 2.0, inplace=False),
            x,
        ),
        expected,
    )
    expected = x.copy()
    np.add.at(expected, (slice(None), 1), x[:, 0])
    close(run(mode, lambda a: add.at(a, (slice(None), 1), a[:, 0], inplace=False), x), expected)
    neg = jnp.frompyfunc(lambda a: -a, 1, 1)
    expected = x[0].copy()
    np.negative.at(expected, [1, 1, 1, 2])
    close(run(mode, lambda a: neg.at(a, jnp.array([1, 1, 1, 2]), inplace=False), x[0]), expected)


@pytest.mark.parametrize("mode", MODES)
def test_reduceat(mode, x):
    a = np.arange(8, dtype=np.float32)
    for indices in ([0, 4, 1, 5], [0, 3, 3, 7], [2]):
        idx = np.array(indices)
        close(run(mode, lambda v, i=idx: add.reduceat(v, i), a), np.add.reduceat(a, idx))
    idx = np.array([0, 2, 1])
    close(
        run(mode, lambda v: logaddexp.reduceat(v, idx, axis=1), x),
        np.logaddexp.reduceat(x, idx, axis=1),
    )


def test_grad_through_reduce_and_accumulate(x):
    check_grads(lambda a: logaddexp.reduce(a, axis=1), (x,), order=1, modes=["rev"])
    check_grads(lambda a: hypot.reduce(a + 3.0, axis=0), (x,), order=1, modes=["rev"])
    check_grads(lambda a: logaddexp.accumulate(a, axis=1), (x,), order=1, modes=["rev"])
    grad = stablax.grad(lambda a: add.accumulate(a * a).sum())(x)
    close(grad, 2 * x * np.arange(3, 0, -1)[:, None])


def test_errors(x):
    unary = jnp.frompyfunc(lambda a: -a, 1, 1)
    for method in ("reduce", "accumulate", "reduceat", "outer"):
        with pytest.raises(ValueError, match=f"{method} only supported for binary ufuncs"):
            getattr(unary, method)(x, x) if method == "outer" else getattr(unary, method)(x, [0])
    with pytest.raises(NotImplementedError, match="inplace=False"):
        add.at(x, 0, 1.0)
    with pytest.raises(ValueError, match="does not have an identity"):
        logaddexp.reduce(x, where=np.array([True, False, True, True]))
    with pytest.raises(ValueError, match="zero-size array to reduction"):
        logaddexp.reduce(np.zeros((0, 2), np.float32))
    with pytest.raises(ValueError, match="accumulate does not allow multiple axes"):
        add.accumulate(x, axis=None)
    with pytest.raises(ValueError, match="out of bounds"):
        add.reduce(x, axis=2)
    with pytest.raises(NotImplementedError, match="out argument"):
        add(x, x, out=x)
    with pytest.raises(TypeError, match="expected 2 positional arguments"):
        add(x)
