"""jnp.vectorize against np.vectorize: broadcasting of loop dimensions, core dimensions from a
gufunc signature, excluded arguments, and JAX's error messages."""

from __future__ import annotations

import numpy as np
import pytest

import stablax.numpy as jnp
from stablax import jit


def _np(x):
    return np.asarray(x)


def _check(fun, np_fun, *args, rtol=1e-6, **kwargs):
    actual = fun(*[jnp.asarray(a) for a in args], **kwargs)
    expected = np_fun(*args, **kwargs)
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            assert a.shape == e.shape
            np.testing.assert_allclose(_np(a), e, rtol=rtol, atol=1e-6)
    else:
        assert actual.shape == expected.shape
        np.testing.assert_allclose(_np(actual), expected, rtol=rtol, atol=1e-6)


def _rand(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


def test_elementwise_with_broadcasting(rng):
    def f(a, b):
        return a * b + jnp.sin(a)

    def np_f(a, b):
        return a * b + np.sin(a)

    for shapes in [((3, 1), (4,)), ((2, 3, 4), (3, 1)), ((), (5,)), ((1, 1), (1,))]:
        _check(jnp.vectorize(f), np.vectorize(np_f), *[_rand(rng, *s) for s in shapes])


def test_scalars_and_zero_size():
    out = jnp.vectorize(lambda a: a * 2)(3.0)
    assert out.shape == () and out.dtype == np.float32 and out.aval.weak_type
    out = jnp.vectorize(lambda a: a * 2)([1, 2])
    assert out.dtype == np.int32 and _np(out).tolist() == [2, 4]
    out = jnp.vectorize(lambda a: a.sum(), signature="(n)->()")(jnp.ones((0, 3)))
    assert out.shape == (0,)


def test_signature_core_dimensions(rng):
    def inner(a, b):
        return jnp.sum(a * b)

    _check(
        jnp.vectorize(inner, signature="(n),(n)->()"),
        np.vectorize(lambda a, b: np.sum(a * b), signature="(n),(n)->()"),
        _rand(rng, 4, 1, 3),
        _rand(rng, 5, 3),
        rtol=1e-5,
    )

    def center(a):
        return a - jnp.mean(a)

    _check(
        jnp.vectorize(center, signature="(n)->(n)"),
        np.vectorize(lambda a: a - np.mean(a), signature="(n)->(n)"),
        _rand(rng, 2, 3, 5),
        rtol=1e-5,
    )


def test_multiple_outputs(rng):
    _check(
        jnp.vectorize(lambda a: (jnp.sum(a), jnp.max(a)), signature="(n)->(),()"),
        np.vectorize(lambda a: (np.sum(a), np.max(a)), signature="(n)->(),()"),
        _rand(rng, 4, 2, 3),
        rtol=1e-5,
    )
    _check(
        jnp.vectorize(lambda a, b: (a + b, a * b)),
        np.vectorize(lambda a, b: (a + b, a * b)),
        _rand(rng, 3, 1),
        _rand(rng, 4),
    )


def test_matrix_vector_signature(rng):
    _check(
        jnp.vectorize(jnp.dot, signature="(n,m),(m)->(n)"),
        np.vectorize(np.dot, signature="(n,m),(m)->(n)"),
        _rand(rng, 5, 1, 2, 3),
        _rand(rng, 4, 3),
        rtol=1e-5,
    )


def test_new_output_dimension(rng):
    _check(
        jnp.vectorize(lambda a: a[:2], signature="(n)->(k)"),
        np.vectorize(lambda a: a[:2], signature="(n)->(k)"),
        _rand(rng, 4, 3),
    )


def test_excluded_arguments(rng):
    def f(a, power, *, scale):
        return a**power * scale

    def np_f(a, power, *, scale):
        return a**power * scale

    a, scale = _rand(rng, 2, 3), _rand(rng, 3)
    vec = jnp.vectorize(f, excluded={1})
    np_vec = np.vectorize(np_f, excluded={1})
    np.testing.assert_allclose(_np(vec(a, 2, scale=scale)), np_vec(a, 2, scale=scale), rtol=1e-6)
    seen = []

    def g(a, mode):
        seen.append(mode)
        return a * (2.0 if mode == "double" else 1.0)

    out = jnp.vectorize(g, excluded={"mode"})(a, mode="double")
    np.testing.assert_allclose(_np(out), a * 2.0)
    assert seen == ["double"]  # traced once, with the excluded value as it is


def test_kwargs_are_vectorized(rng):
    a, b = _rand(rng, 2, 3), _rand(rng, 3)
    out = jnp.vectorize(lambda a, b: a - b)(a, b=b)
    np.testing.assert_allclose(_np(out), a - b)


def test_under_jit(rng):
    f = jit(jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()"))
    a, b = _rand(rng, 4, 3), _rand(rng, 3)
    np.testing.assert_allclose(_np(f(a, b)), (a * b).sum(-1), rtol=1e-5)


CONTEXT = "on vectorized function with excluded=frozenset() and signature={!r}"


@pytest.mark.parametrize(
    "signature,fun,args,error,message",
    [
        (
            "(n),(n)->()",
            lambda a, b: jnp.sum(a * b),
            [np.ones((2, 3)), np.ones((2, 4))],
            ValueError,
            "inconsistent size for core dimension 'n': 4 vs 3 ",
        ),
        (
            "(n,m),(m)->(n)",
            lambda a, b: a[:, 0],
            [np.ones(3), np.ones(3)],
            ValueError,
            "input with shape (3,) does not have enough dimensions for all core dimensions "
            "('n', 'm') ",
        ),
        (
            "(n)->()",
            lambda a: a,
            [np.ones((4, 3))],
            ValueError,
            "output shape (3,) does not match core dimensions () ",
        ),
        (
            "(n)->(n)",
            lambda a: jnp.sum(a),
            [np.ones((4, 3))],
            ValueError,
            "output shape () does not match core dimensions ('n',) ",
        ),
        (
            "(n)->()",
            lambda a: (a, a),
            [np.ones((4, 3))],
            TypeError,
            "wrong number of output arguments: expected 1, got 2 ",
        ),
        (
            "(n)->(n)",
            lambda a: a,
            [np.ones(3), np.ones(3)],
            TypeError,
            "wrong number of positional arguments: expected 1, got 2 ",
        ),
    ],
)
def test_errors(signature, fun, args, error, message):
    with pytest.raises(error) as info:
        jnp.vectorize(fun, signature=signature)(*args)
    assert str(info.value) == message + CONTEXT.format(signature)


def test_other_errors():
    with pytest.raises(ValueError, match="not a valid gufunc signature: bad"):
        jnp.vectorize(lambda a: a, signature="bad")
    with pytest.raises(TypeError, match="can only exclude integer or string arguments"):
        jnp.vectorize(lambda a: a, excluded={1.5})
    with pytest.raises(ValueError) as info:
        jnp.vectorize(lambda a, b: a + b)(jnp.ones((2, 2)), jnp.ones(3))
    assert str(info.value) == "Incompatible shapes for broadcasting: shapes=[(2, 2), (3,)]"
    with pytest.raises(TypeError, match="output must be a tuple when multiple outputs"):
        jnp.vectorize(lambda a: jnp.sum(a), signature="(n)->(),()")(jnp.ones((2, 3)))
