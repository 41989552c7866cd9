"""`jnp.frompyfunc` / `jnp.ufunc` against NumPy's built-in ufunc methods, eager and under jit."""

from __future__ import annotations

import functools

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


# jax.numpy's own ufuncs: exactly these 14 names, with JAX 0.10.2's nin and identity.
JAX_UFUNCS = {
    "add": (2, 0),
    "bitwise_and": (2, -1),
    "bitwise_or": (2, 0),
    "bitwise_xor": (2, 0),
    "logaddexp": (2, -np.inf),
    "logaddexp2": (2, -np.inf),
    "logical_and": (2, True),
    "logical_or": (2, False),
    "logical_xor": (2, False),
    "maximum": (2, None),
    "minimum": (2, None),
    "multiply": (2, 1),
    "negative": (1, None),
    "subtract": (2, None),
}


def test_exactly_jax_ufuncs_are_ufuncs():
    found = {name for name in dir(jnp) if isinstance(getattr(jnp, name), jnp.ufunc)}
    assert found == set(JAX_UFUNCS)
    for name, (nin, identity) in JAX_UFUNCS.items():
        u = getattr(jnp, name)
        assert (u.nin, u.nout, u.nargs, u.__name__) == (nin, 1, nin, name)
        assert u.identity == identity and type(u.identity) is type(identity)
        assert repr(u) == f"<jnp.ufunc '{name}'>" and u.__doc__
        assert u == getattr(jnp, name) and hash(u) == hash(getattr(jnp, name))
    assert jnp.add != jnp.subtract
    with pytest.raises(AttributeError):
        jnp.add.identity = 1


BOOLS = np.array([[True, False, True], [True, True, False]])
INTS = np.array([[3, 5, 6], [12, 9, 1]], np.int32)
FLOATS = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]], np.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [0, 1, -1, None, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize(
    "name,arrays",
    [
        ("add", (BOOLS, INTS, FLOATS)),
        ("multiply", (BOOLS, INTS, FLOATS)),
        ("maximum", (BOOLS, INTS, FLOATS)),
        ("minimum", (INTS, FLOATS)),
        ("bitwise_and", (BOOLS, INTS)),
        ("bitwise_or", (BOOLS, INTS)),
        ("bitwise_xor", (BOOLS, INTS)),
        ("logical_and", (BOOLS, INTS, FLOATS)),
        ("logical_or", (BOOLS, INTS, FLOATS)),
        ("logical_xor", (BOOLS, INTS)),
        ("logaddexp", (FLOATS,)),
        ("logaddexp2", (FLOATS,)),
    ],
)
def test_jax_ufunc_reduce_matches_numpy(mode, axis, keepdims, name, arrays):
    for a in arrays:
        out = run(mode, lambda v: getattr(jnp, name).reduce(v, axis=axis, keepdims=keepdims), a)
        expected = getattr(np, name).reduce(a, axis=axis, keepdims=keepdims)
        close(out, expected)
        if name not in ("add", "multiply"):  # NumPy's sum/prod widen small ints; so does JAX
            assert out.dtype == np.asarray(expected).dtype


@pytest.mark.parametrize("mode", MODES)
def test_jax_ufunc_reduce_where_and_initial(mode):
    mask = np.array([True, False, True])
    for name, a, initial in [
        ("add", FLOATS, 1.5),
        ("multiply", INTS, 2),
        ("maximum", FLOATS, 0.0),
        ("minimum", INTS, 4),
        ("bitwise_xor", INTS, 7),
        ("bitwise_and", INTS, 13),
        ("logical_or", BOOLS, False),
        ("logaddexp", FLOATS, 1.0),
    ]:
        u, ref = getattr(jnp, name), getattr(np, name)
        out = run(mode, lambda v, u=u, i=initial: u.reduce(v, axis=1, where=mask, initial=i), a)
        close(out, ref.reduce(a, axis=1, where=mask, initial=initial))
        out = run(mode, lambda v, u=u, i=initial: u.reduce(v, axis=None, initial=i), a)
        close(out, ref.reduce(a, axis=None, initial=initial))
    close(jnp.add.reduce(FLOATS, where=mask), np.add.reduce(FLOATS, where=mask))
    close(jnp.logaddexp.reduce(np.zeros(0, np.float32)), -np.inf)
    close(jnp.bitwise_or.reduce(np.zeros((0, 2), np.int32)), [0, 0])


def test_jax_ufunc_reduce_dtypes():
    assert jnp.add.reduce(INTS.astype(np.int8)).dtype == np.int32  # as jnp.sum
    assert jnp.add.reduce(BOOLS).dtype == np.int32
    assert jnp.multiply.reduce(BOOLS).dtype == np.int32
    assert jnp.add.reduce(INTS, dtype=np.float32).dtype == np.float32
    assert jnp.logaddexp.reduce(INTS).dtype == np.float32
    assert jnp.bitwise_and.reduce(INTS.astype(np.uint8)).dtype == np.uint8
    assert jnp.logical_xor.reduce(INTS).dtype == np.bool_
    close(jnp.logaddexp2.reduce(np.arange(3.0)), np.logaddexp2.reduce(np.arange(3.0)))
    out = jnp.maximum.reduce(2.0 * jnp.ones(3))
    assert not out.aval.weak_type


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [0, 1])
def test_jax_ufunc_accumulate_matches_numpy(mode, axis):
    for name in ("add", "multiply", "maximum", "minimum", "bitwise_or", "logaddexp"):
        for a in (INTS, FLOATS):
            if name == "bitwise_or" and a is FLOATS:
                continue
            fun = getattr(jnp, name).accumulate
            out = run(mode, lambda v, f=fun: f(v, axis=axis), a)
            close(out, getattr(np, name).accumulate(a, axis=axis))
    assert jnp.add.accumulate(BOOLS).dtype == np.int32  # cumsum's dtype, as JAX
    close(jnp.add.accumulate(FLOATS, axis=None), np.cumsum(FLOATS))


@pytest.mark.parametrize("mode", MODES)
def test_jax_ufunc_at_matches_numpy(mode):
    idx = np.array([0, 2, 2, 1, 2])
    for name in ("add", "multiply", "subtract", "maximum", "minimum", "logaddexp"):
        for a, b in [(INTS[0], INTS[1, 0]), (FLOATS[1], FLOATS[0, :1].repeat(5))]:
            if name == "logaddexp" and a.dtype != np.float32:
                continue  # JAX computes in (and returns) float, NumPy casts back to int
            expected = a.copy()
            getattr(np, name).at(expected, idx, b)
            fun = getattr(jnp, name).at
            out = run(mode, lambda v, w, f=fun: f(v, idx, w, inplace=False), a, b)
            close(out, expected, rtol=1e-4)
            assert out.dtype == a.dtype
    for name in ("add", "multiply"):  # bools go through int32 and back, as JAX
        expected = BOOLS[0].copy()
        getattr(np, name).at(expected, idx, True)
        out = getattr(jnp, name).at(BOOLS[0], idx, True, inplace=False)
        assert out.dtype == np.bool_ and (np.asarray(out) == expected).all()
    expected = FLOATS.copy()
    np.negative.at(expected, (0, 1))
    close(jnp.negative.at(FLOATS, (0, 1), inplace=False), expected)


@pytest.mark.parametrize("mode", MODES)
def test_jax_ufunc_outer_matches_numpy(mode):
    for name in ("multiply", "add", "subtract", "maximum", "logaddexp", "bitwise_xor"):
        a, b = (INTS[0], INTS[1]) if name == "bitwise_xor" else (FLOATS[0], FLOATS)
        out = run(mode, getattr(jnp, name).outer, a, b)
        close(out, getattr(np, name).outer(a, b))


def test_jax_ufuncs_under_transforms():
    x = np.arange(4.0, dtype=np.float32)
    idx = np.array([1, 1, 3])
    out = stablax.jit(lambda a: jnp.add.at(a, idx, 2.0, inplace=False))(x)
    close(out, [0.0, 5.0, 2.0, 5.0])
    grad = stablax.grad(lambda a: jnp.add.at(a, idx, a[2] ** 2, inplace=False).sum())(x)
    close(grad, [1.0, 1.0, 13.0, 1.0])
    batched = stablax.vmap(lambda a: jnp.add.at(a, 1, 5.0, inplace=False))(np.ones((2, 3)))
    close(batched, [[1.0, 6.0, 1.0]] * 2)
    close(stablax.vmap(jnp.maximum.reduce)(FLOATS), FLOATS.max(axis=1))
    check_grads(lambda a: jnp.logaddexp.reduce(a, axis=1), (FLOATS,), order=1, modes=["rev"])
    check_grads(lambda a: jnp.multiply.outer(a, a), (x,), order=1, modes=["fwd", "rev"])
    close(stablax.vmap(jnp.multiply.outer)(FLOATS, FLOATS), np.einsum("bi,bj->bij", FLOATS, FLOATS))
    # Still usable wherever a function is.
    close(stablax.jit(jnp.add)(x, 1.0), x + 1.0)
    close(functools.partial(jnp.add, 1.0)(x), x + 1.0)
    close(stablax.tree_util.tree_map(jnp.multiply, [x], [x])[0], x * x)


def test_jax_ufunc_errors():
    x = jnp.asarray(FLOATS)
    with pytest.raises(ValueError, match="where argument must have dtype=bool"):
        jnp.add.reduce(x, where=np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="'maximum' does not have an identity"):
        jnp.maximum.reduce(x, where=np.array([True, False, True]))
    with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
        jnp.maximum.reduce(np.zeros(0, np.float32))
    with pytest.raises(ValueError, match="integer argument required"):
        jnp.bitwise_or.reduce(x)
    with pytest.raises(ValueError, match="reduce only supported for binary ufuncs"):
        jnp.negative.reduce(x)
    with pytest.raises(NotImplementedError, match=r"out argument of add.reduce\(\)"):
        jnp.add.reduce(x, out=x)
    with pytest.raises(NotImplementedError, match=r"out argument of add.accumulate\(\)"):
        jnp.add.accumulate(x, out=x)
    with pytest.raises(NotImplementedError, match="out argument of <jnp.ufunc 'add'>"):
        jnp.add(x, x, out=x)
    with pytest.raises(NotImplementedError, match="where argument of <jnp.ufunc 'add'>"):
        jnp.add(x, x, where=True)
    with pytest.raises(NotImplementedError, match="cannot operate inplace like\nnp.ufunc.at"):
        jnp.add.at(x, 0, 1.0)
    for call in (
        lambda: jnp.add([1.0], x),
        lambda: jnp.add.reduce([1.0, 2.0]),
        lambda: jnp.add.reduce(x, initial=[1.0]),
        lambda: jnp.add.accumulate([1.0, 2.0]),
        lambda: jnp.maximum.at([1.0], 0, 1.0, inplace=False),
        lambda: jnp.add.outer([1.0], x),
        lambda: jnp.add.at(x, 0, inplace=False),
    ):
        with pytest.raises(TypeError):
            call()
