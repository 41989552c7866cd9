"""lax.reduce with any computation: monoid lambdas, generic bodies, variadic (argmax) forms."""

import functools

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax

X = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4) / 4
XS = np.stack([X, X[::-1], X * 2])


def fold(fun, init, values):
    return functools.reduce(fun, values, init)


def affine(a, b):
    return a * b + 1


def argmax_pairs(a, b):
    (av, ai), (bv, bi) = a, b
    pick = lax.ge(av, bv)
    return lax.select(pick, av, bv), lax.select(pick, ai, bi)


def argmax_reduce(x):
    idx = lax.broadcasted_iota(np.int32, x.shape, 0)
    return lax.reduce((x, idx), (-np.inf, 0), argmax_pairs, (0,))


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_values(jit):
    wrap = jax.jit if jit else (lambda f: f)
    np.testing.assert_allclose(
        wrap(lambda x: lax.reduce(x, 0.0, lambda a, b: a + b, (1,)))(X), X.sum(1), rtol=1e-6
    )
    np.testing.assert_allclose(wrap(lambda x: lax.reduce(x, 0.0, jnp.add, (0,)))(X), X.sum(0))
    np.testing.assert_allclose(
        wrap(lambda x: lax.reduce(x, -np.inf, jnp.maximum, (0, 1)))(X), X.max()
    )
    # One axis of three elements: XLA's in-order fold from the init value.
    expected = [fold(affine, np.float32(0), X[:, j]) for j in range(4)]
    np.testing.assert_allclose(wrap(lambda x: lax.reduce(x, 0.0, affine, (0,)))(X), expected)
    values, indices = wrap(argmax_reduce)(XS)
    np.testing.assert_array_equal(indices, np.argmax(XS, 0))
    np.testing.assert_array_equal(values, XS.max(0))


def test_pytree_structure_and_dtypes():
    out = lax.reduce(
        {"a": X, "b": X},
        {"a": 0.0, "b": 1.0},
        lambda x, y: {"a": x["a"] + y["a"], "b": x["b"] * y["b"] + 0},
        (0,),
    )
    assert set(out) == {"a", "b"}
    np.testing.assert_allclose(out["a"], X.sum(0), rtol=1e-6)
    np.testing.assert_allclose(out["b"], X.prod(0), rtol=1e-6)
    (single,) = lax.reduce(X, 0.0, lambda a, b: (a * b + 1,), (0,))
    assert single.shape == (4,)


def test_monoid_lambda_is_a_monoid_reduce():
    text = jax.jit(lambda x: lax.reduce(x, 0.0, lambda a, b: b + a, (0,))).lower(X).as_text()
    assert "stablax.generic_body" not in text
    text = jax.jit(lambda x: lax.reduce(x, 0.0, affine, (0,))).lower(X).as_text()
    assert "stablehlo.reduce" in text


def test_vmap():
    for f in (
        lambda x: lax.reduce(x, 0.0, affine, (0,)),
        lambda x: lax.reduce(x, 0.0, lambda a, b: a + b, (1,)),
        lambda x: argmax_reduce(x)[1],
    ):
        expected = np.stack([f(x) for x in XS])
        np.testing.assert_allclose(jax.vmap(f)(XS), expected, rtol=1e-6)
        np.testing.assert_allclose(
            jax.vmap(f, in_axes=1)(XS.transpose(1, 0, 2)), expected, rtol=1e-6
        )
        np.testing.assert_allclose(jax.jit(jax.vmap(f))(XS), expected, rtol=1e-6)


def test_vmap_of_a_batched_init_raises_as_jax():
    with pytest.raises(NotImplementedError):
        jax.vmap(lambda i: lax.reduce(X, i, affine, (0,)))(np.ones(3, np.float32))


def test_grad_of_a_monoid_lambda_vs_finite_differences():
    def f(x):
        return lax.reduce(x * x, 0.0, lambda a, b: a + b, (0, 1))

    g = jax.grad(f)(X)
    eps = 1e-2
    e = np.zeros_like(X)
    e[1, 2] = eps
    fd = (f(X + e) - f(X - e)) / (2 * eps)
    np.testing.assert_allclose(g[1, 2], fd, rtol=1e-3)
    np.testing.assert_allclose(g, 2 * X, rtol=1e-6)
    # init values of a monoid carry tangents too (JAX's generic path would refuse them)
    np.testing.assert_allclose(jax.grad(lambda i: lax.reduce(X, i, lax.add, (0, 1)))(1.0), 1.0)


def test_jvp_and_grad_vs_jax():
    real = pytest.importorskip("jax")
    rl = real.lax
    t = np.cos(X).astype(np.float32)
    for axes in [(0,), (1,), (0, 1), ()]:

        def ours(x, axes=axes):
            return lax.reduce(x, 0.0, affine, axes)

        def theirs(x, axes=axes):
            return rl.reduce(x, 0.0, lambda a, b: a * b + 1, axes)

        (p, tp), (q, tq) = jax.jvp(ours, (X,), (t,)), real.jvp(theirs, (X,), (t,))
        np.testing.assert_allclose(p, q, rtol=1e-5)
        np.testing.assert_allclose(tp, tq, rtol=1e-5)
        g = jax.grad(lambda x, f=ours: f(x).sum())(X)
        h = real.grad(lambda x, f=theirs: f(x).sum())(X)
        np.testing.assert_allclose(g, h, rtol=1e-5)
        np.testing.assert_allclose(jax.jit(jax.grad(lambda x, f=ours: f(x).sum()))(X), h, rtol=1e-5)
    # the variadic argmax: the values' tangent (JAX itself fails on the integer tangent here)
    values, tangents = jax.jvp(lambda x: argmax_reduce(x)[0], (XS,), (np.ones_like(XS),))
    np.testing.assert_array_equal(values, XS.max(0))
    np.testing.assert_array_equal(tangents, np.ones_like(XS[0]))


def _both(fun_ours, fun_theirs):
    real = pytest.importorskip("jax")
    with pytest.raises(Exception) as theirs:
        fun_theirs(real.lax, real.numpy)
    with pytest.raises(theirs.type):
        fun_ours(lax, jnp)


@pytest.mark.parametrize(
    "case",
    [
        lambda L, n: L.reduce((X, X), (0.0, 0.0, 0.0), lambda a, b: a, (0,)),
        lambda L, n: L.reduce((X, X), [0.0, 0.0], lambda a, b: a, (0,)),
        lambda L, n: L.reduce(X, n.zeros(2), lambda a, b: a * b + 1, (0,)),
        lambda L, n: L.reduce(X, n.int32(0), lambda a, b: a * b + 1, (0,)),
        lambda L, n: L.reduce(n.arange(3), 0.0, lambda a, b: a * b + 1, (0,)),
        lambda L, n: L.reduce((X, X), (0.0, 0.0), lambda a, b: a[0], (0,)),
        lambda L, n: L.reduce(X, 0.0, lambda a, b: (a * b).astype(n.int32), (0,)),
        lambda L, n: L.reduce(X, 0.0, lambda a, b: None, (0,)),
        lambda L, n: L.reduce(X, 0.0, lambda a, b: n.stack([a, b]), (0,)),
    ],
    ids=[
        "struct",
        "list",
        "nonscalar",
        "dtype",
        "int",
        "ret_struct",
        "ret_dtype",
        "none",
        "ret_shape",
    ],
)
def test_error_classes_vs_jax(case):
    _both(case, case)


def test_closing_over_a_tracer_raises_as_jax():
    with pytest.raises(NotImplementedError):
        jax.jit(lambda c: lax.reduce(X, 0.0, lambda a, b: a * b + c, (0,)))(1.0)
    with pytest.raises(NotImplementedError):
        jax.jvp(lambda i: lax.reduce(X, i, affine, (0,)), (1.0,), (1.0,))


# --- reduce_window ---------------------------------------------------------------------------


def max_pool_loop(x, window, strides):
    rows = (x.shape[0] - window[0]) // strides[0] + 1
    cols = (x.shape[1] - window[1]) // strides[1] + 1
    out = np.empty((rows, cols), x.dtype)
    for i in range(rows):
        for j in range(cols):
            r, c = i * strides[0], j * strides[1]
            out[i, j] = x[r : r + window[0], c : c + window[1]].max()
    return out


def window_affine(x):
    return lax.reduce_window(x, 0.0, affine, (1, 2), (1, 1), "VALID")


def window_argmax(x):
    idx = lax.broadcasted_iota(np.int32, x.shape, 0)
    window = (x.shape[0],) + (1,) * (x.ndim - 1)
    return lax.reduce_window((x, idx), (-np.inf, 0), argmax_pairs, window, None, "VALID")


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_window_values(jit):
    wrap = jax.jit if jit else (lambda f: f)
    pool = wrap(lambda x: lax.reduce_window(x, -jnp.inf, jnp.maximum, (2, 2), (1, 2), "VALID"))
    np.testing.assert_array_equal(pool(X), max_pool_loop(X, (2, 2), (1, 2)))
    expected = [[affine(affine(0.0, X[i, j]), X[i, j + 1]) for j in range(3)] for i in range(3)]
    np.testing.assert_allclose(wrap(window_affine)(X), expected, rtol=1e-6)
    values, indices = wrap(window_argmax)(XS)
    np.testing.assert_array_equal(indices[0], np.argmax(XS, 0))
    np.testing.assert_array_equal(values[0], XS.max(0))


def test_window_vmap():
    for f in (window_affine, lambda x: window_argmax(x)[1]):
        expected = np.stack([f(x) for x in XS])
        np.testing.assert_allclose(jax.vmap(f)(XS), expected, rtol=1e-6)
        np.testing.assert_allclose(
            jax.jit(jax.vmap(f, in_axes=2))(XS.transpose(1, 2, 0)), expected, rtol=1e-6
        )
    with pytest.raises(NotImplementedError):
        jax.vmap(lambda i: lax.reduce_window(X, i, affine, (2, 1)))(np.ones(3, np.float32))


def test_window_jvp_vs_jax_and_grad_raises_as_jax():
    real = pytest.importorskip("jax")
    t = np.cos(X).astype(np.float32)

    def theirs(x):
        return real.lax.reduce_window(x, 0.0, lambda a, b: a * b + 1, (1, 2), (1, 1), "VALID")

    for wrap in (lambda f: f, jax.jit):
        (p, tp), (q, tq) = (
            wrap(lambda x: jax.jvp(window_affine, (x,), (t,)))(X),
            real.jvp(theirs, (X,), (t,)),
        )
        np.testing.assert_allclose(p, q, rtol=1e-6)
        np.testing.assert_allclose(tp, tq, rtol=1e-6)
    with pytest.raises(Exception) as info:
        real.grad(lambda x: theirs(x).sum())(X)
    with pytest.raises(info.type):
        jax.grad(lambda x: window_affine(x).sum())(X)
    # the monoid lambda keeps the monoid rules: grad of max pooling works
    g = jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, jnp.maximum, (1, 2), (1, 1)).sum())(X)
    h = real.grad(lambda x: real.lax.reduce_window(x, -np.inf, real.lax.max, (1, 2), (1, 1)).sum())(
        X
    )
    np.testing.assert_allclose(g, h)


@pytest.mark.parametrize(
    "case",
    [
        lambda L, n: L.reduce_window((X, X), (0.0, 0.0, 1.0), lambda a, b: a, (2, 1)),
        lambda L, n: L.reduce_window(X, n.zeros(2), lambda a, b: a * b + 1, (2, 1)),
        lambda L, n: L.reduce_window(X, n.int32(0), lambda a, b: a * b + 1, (2, 1)),
        lambda L, n: L.reduce_window(X, 0.0, lambda a, b: (a * b).astype(n.int32), (2, 1)),
        lambda L, n: L.reduce_window((X, X), (0.0, 0.0), lambda a, b: a[0], (2, 1)),
    ],
    ids=["struct", "nonscalar", "dtype", "ret_dtype", "ret_struct"],
)
def test_window_error_classes_vs_jax(case):
    _both(case, case)


def test_closing_over_a_concrete_array_makes_a_constant():
    c = jnp.float32(1)
    expected = [fold(affine, np.float32(0), X[:, j]) for j in range(4)]
    for wrap in (lambda f: f, jax.jit):
        out = wrap(lambda x: lax.reduce(x, 0.0, lambda a, b: a * b + c, (0,)))(X)
        np.testing.assert_allclose(out, expected)
