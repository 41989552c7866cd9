"""Shape manipulation against NumPy, eagerly and under jit: split, join, rearrange, pad, diag."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp
from stablax.test_util import check_grads

RNG = np.random.default_rng(0)
X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
A = np.arange(6, dtype=np.int32).reshape(2, 3)


def check(got, expected, exact=True):
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def both(fn, *args):
    """fn(*args) eagerly and under jit (args traced)."""
    return fn(*args), stablax.jit(fn)(*args)


CASES = [
    ("split_int", lambda x: jnp.split(x, 2, axis=2), lambda x: np.split(x, 2, axis=2)),
    ("split_idx", lambda x: jnp.split(x, [1, 3], axis=2), lambda x: np.split(x, [1, 3], axis=2)),
    ("array_split", lambda x: jnp.array_split(x, 3, 2), lambda x: np.array_split(x, 3, 2)),
    ("hsplit", lambda x: jnp.hsplit(x, 3), lambda x: np.hsplit(x, 3)),
    ("vsplit", lambda x: jnp.vsplit(x, [1]), lambda x: np.vsplit(x, [1])),
    ("dsplit", lambda x: jnp.dsplit(x, 2), lambda x: np.dsplit(x, 2)),
    ("unstack", lambda x: jnp.unstack(x, axis=1), lambda x: tuple(np.moveaxis(x, 1, 0))),
    ("hstack", lambda x: jnp.hstack([x, x]), lambda x: np.hstack([x, x])),
    ("vstack", lambda x: jnp.vstack([x[0, 0], x[1, 1]]), lambda x: np.vstack([x[0, 0], x[1, 1]])),
    ("dstack", lambda x: jnp.dstack([x[0], x[1]]), lambda x: np.dstack([x[0], x[1]])),
    (
        "column_stack",
        lambda x: jnp.column_stack([x[0, 0], x[1].T]),
        lambda x: np.column_stack([x[0, 0], x[1].T]),
    ),
    ("append", lambda x: jnp.append(x, x[:1], axis=0), lambda x: np.append(x, x[:1], axis=0)),
    ("append_flat", lambda x: jnp.append(x, 7.0), lambda x: np.append(x, 7.0)),
    ("insert_int", lambda x: jnp.insert(x, 1, 9.0, axis=1), lambda x: np.insert(x, 1, 9.0, axis=1)),
    (
        "insert_neg",
        lambda x: jnp.insert(x, -1, 9.0, axis=0),
        lambda x: np.insert(x, -1, 9.0, axis=0),
    ),
    (
        "insert_list",
        lambda x: jnp.insert(x, np.array([0, 2, 2]), 5.0, 2),  # jnp (as JAX) refuses lists
        lambda x: np.insert(x, [0, 2, 2], 5.0, 2),
    ),
    (
        "insert_slice",
        lambda x: jnp.insert(x, slice(0, 4, 2), -1.0, 2),
        lambda x: np.insert(x, slice(0, 4, 2), -1.0, 2),
    ),
    (
        "insert_flat",
        lambda x: jnp.insert(x, 3, np.array([1.0, 2.0])),
        lambda x: np.insert(x, 3, [1.0, 2.0]),
    ),
    ("delete_int", lambda x: jnp.delete(x, 1, axis=1), lambda x: np.delete(x, 1, axis=1)),
    (
        "delete_list",
        lambda x: jnp.delete(x, np.array([0, 0, -1]), axis=2),
        lambda x: np.delete(x, [0, 0, -1], axis=2),
    ),
    (
        "delete_slice",
        lambda x: jnp.delete(x, slice(None, None, 2)),
        lambda x: np.delete(x, slice(None, None, 2)),
    ),
    ("flip", lambda x: jnp.flip(x, (0, 2)), lambda x: np.flip(x, (0, 2))),
    ("flip_all", jnp.flip, np.flip),
    ("fliplr", jnp.fliplr, np.fliplr),
    ("flipud", jnp.flipud, np.flipud),
    ("roll_flat", lambda x: jnp.roll(x, 5), lambda x: np.roll(x, 5)),
    ("roll_axes", lambda x: jnp.roll(x, (1, -5), (0, 2)), lambda x: np.roll(x, (1, -5), (0, 2))),
    ("rollaxis", lambda x: jnp.rollaxis(x, 2), lambda x: np.rollaxis(x, 2)),
    ("rollaxis_start", lambda x: jnp.rollaxis(x, 0, 3), lambda x: np.rollaxis(x, 0, 3)),
    ("tile", lambda x: jnp.tile(x, (2, 1, 1, 2)), lambda x: np.tile(x, (2, 1, 1, 2))),
    ("tile_int", lambda x: jnp.tile(x, 2), lambda x: np.tile(x, 2)),
    ("repeat", lambda x: jnp.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1)),
    ("repeat_flat", lambda x: jnp.repeat(x, 3), lambda x: np.repeat(x, 3)),
    (
        "repeat_array",  # repeats as an array: jnp (like JAX) refuses a list there
        lambda x: jnp.repeat(x, np.array([2, 0, 1]), axis=1),
        lambda x: np.repeat(x, [2, 0, 1], axis=1),
    ),
    ("resize", lambda x: jnp.resize(x, (5, 7)), lambda x: np.resize(x, (5, 7))),
    (
        "block",
        lambda x: jnp.block([[x[0], x[1]], [x[1], x[0]]]),
        lambda x: np.block([[x[0], x[1]], [x[1], x[0]]]),
    ),
    ("diagonal", lambda x: jnp.diagonal(x, 1, 2, 1), lambda x: np.diagonal(x, 1, 2, 1)),
    ("diagonal_neg", lambda x: jnp.diagonal(x, -1), lambda x: np.diagonal(x, -1)),
    ("trace", lambda x: jnp.trace(x, 1, 1, 2), lambda x: np.trace(x, 1, 1, 2)),
    ("diag_2d", lambda x: jnp.diag(x[0], 1), lambda x: np.diag(x[0], 1)),
    ("diag_1d", lambda x: jnp.diag(x[0, 0], -2), lambda x: np.diag(x[0, 0], -2)),
    ("diagflat", lambda x: jnp.diagflat(x[0, :2], 1), lambda x: np.diagflat(x[0, :2], 1)),
    ("tril", lambda x: jnp.tril(x, -1), lambda x: np.tril(x, -1)),
    ("triu", lambda x: jnp.triu(x, 1), lambda x: np.triu(x, 1)),
    ("atleast_3d", lambda x: jnp.atleast_3d(x[0, 0]), lambda x: np.atleast_3d(x[0, 0])),
    ("atleast_2d", lambda x: jnp.atleast_2d(x[0, 0, 0]), lambda x: np.atleast_2d(x[0, 0, 0])),
]


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name, fn, ref):
    expected = ref(X)
    for got in both(fn, X):
        if isinstance(expected, (list, tuple)):
            assert len(got) == len(expected)
            for g, e in zip(got, expected, strict=True):
                check(g, e)
        else:
            check(got, expected)
            # NumPy's dtype in JAX's 32-bit world (numpy's trace of float32 is float32 too).
            canonical = stablax.dtypes.canonicalize_dtype(np.asarray(expected).dtype)
            assert np.asarray(got).dtype == canonical


PAD_MODES = [
    "constant",
    "edge",
    "wrap",
    "reflect",
    "symmetric",
    "linear_ramp",
    "maximum",
    "minimum",
    "mean",
    "median",
]


@pytest.mark.parametrize("mode", PAD_MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_pad_modes(mode, dtype):
    x = X.astype(dtype)
    for width in (2, ((1, 2), (3, 0), (0, 5))):
        check(jnp.pad(x, width, mode), np.pad(x, width, mode), exact=dtype != np.float32)
    check(
        stablax.jit(lambda v: jnp.pad(v, ((1, 7), (0, 1), (2, 2)), mode))(x),
        np.pad(x, ((1, 7), (0, 1), (2, 2)), mode),
        exact=dtype != np.float32,
    )


def test_pad_keywords():
    check(
        jnp.pad(A, ((1, 2), (3, 1)), constant_values=((1, 2), (3, 4))),
        np.pad(A, ((1, 2), (3, 1)), constant_values=((1, 2), (3, 4))),
    )
    for mode in ("reflect", "symmetric"):
        check(
            jnp.pad(X, ((1, 2), (3, 0), (0, 9)), mode, reflect_type="odd"),
            np.pad(X, ((1, 2), (3, 0), (0, 9)), mode, reflect_type="odd"),
            exact=False,
        )
    check(
        jnp.pad(A, ((1, 2), (3, 1)), "linear_ramp", end_values=((1, 20), (3, -4))),
        np.pad(A, ((1, 2), (3, 1)), "linear_ramp", end_values=((1, 20), (3, -4))),
    )
    check(jnp.pad(X, 3, "mean", stat_length=2), np.pad(X, 3, "mean", stat_length=2), exact=False)
    check(jnp.pad(X, 1, "empty").shape, (4, 5, 6))

    def ten(vector, widths, axis, kwargs):
        return jnp.where(jnp.arange(vector.shape[0]) < widths[0], 10.0, vector)

    def np_ten(vector, widths, axis, kwargs):
        if widths[0]:
            vector[: widths[0]] = 10.0

    check(jnp.pad(X, 1, ten), np.pad(X, 1, np_ten))


def test_pad_errors():
    with pytest.raises(ValueError, match="unimplemented padding mode"):
        jnp.pad(X, 1, "nope")
    with pytest.raises(ValueError, match="unsupported keyword"):
        jnp.pad(X, 1, "edge", constant_values=1)
    with pytest.raises(ValueError, match="negative"):
        jnp.pad(X, -1)


def test_traced_shift_and_repeats():
    roll = stablax.jit(lambda x, s: jnp.roll(x, s, axis=2))
    for s in (-9, -1, 0, 3, 11):
        check(roll(X, s), np.roll(X, s, axis=2))
    rep = stablax.jit(lambda r: jnp.repeat(A, r, axis=1, total_repeat_length=5))
    check(
        rep(np.array([2, 0, 1])), np.pad(np.repeat(A, [2, 0, 1], axis=1), ((0, 0), (0, 2)), "edge")
    )
    check(rep(np.array([3, 3, 3])), np.repeat(A, 3, axis=1)[:, :5])
    with pytest.raises(TypeError, match="total_repeat_length"):
        stablax.jit(lambda r: jnp.repeat(A, r))(np.array([1, 1, 1]))


@settings(max_examples=25, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    k=st.integers(-5, 5),
    seed=st.integers(0, 2**16),
)
def test_hypothesis_rearrange(shape, k, seed):
    x = np.random.default_rng(seed).integers(-5, 5, size=shape).astype(np.int32)
    axis = seed % len(shape)
    check(jnp.roll(x, k, axis), np.roll(x, k, axis))
    check(jnp.flip(x, axis), np.flip(x, axis))
    check(jnp.tile(x, (abs(k) % 3,) * len(shape)), np.tile(x, (abs(k) % 3,) * len(shape)))
    check(jnp.repeat(x, abs(k), axis), np.repeat(x, abs(k), axis))
    check(jnp.delete(x, 0, axis), np.delete(x, 0, axis))
    check(
        jnp.insert(x, min(abs(k), shape[axis]), 7, axis),
        np.insert(x, min(abs(k), shape[axis]), 7, axis),
    )
    check(jnp.array_split(x, abs(k) + 1, axis)[0], np.array_split(x, abs(k) + 1, axis)[0])
    if len(shape) >= 2:
        check(jnp.rot90(x, k), np.rot90(x, k))
        check(jnp.diagonal(x, k), np.diagonal(x, k))
        check(jnp.tril(x, k), np.tril(x, k))
        check(jnp.triu(x, k), np.triu(x, k))
    check(
        jnp.pad(x, abs(k), "reflect" if min(shape) > 1 else "edge"),
        np.pad(x, abs(k), "reflect" if min(shape) > 1 else "edge"),
    )


def test_trim_zeros():
    for trim in ("f", "b", "fb"):
        v = np.array([0, 0, 1, 0, 2, 0], np.int32)
        check(jnp.trim_zeros(v, trim), np.trim_zeros(v, trim))
        check(jnp.trim_zeros(np.zeros(3), trim), np.trim_zeros(np.zeros(3), trim))
    m = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    check(jnp.trim_zeros(m), np.trim_zeros(m))
    with pytest.raises(TypeError, match="concrete"):
        stablax.jit(jnp.trim_zeros)(np.ones(3))


def test_split_errors():
    with pytest.raises(ValueError, match="equal division"):
        jnp.split(np.arange(6), 4)
    with pytest.raises(ValueError, match="3 or more"):
        jnp.dsplit(A, 2)
    with pytest.raises(ValueError, match="out of bounds"):  # one index: JAX's class
        jnp.delete(np.arange(6), 7)
    with pytest.raises(IndexError, match="out of bounds"):
        jnp.delete(np.arange(6), np.array([7]))
    with pytest.raises(ValueError, match="depths are mismatched"):
        jnp.block([[A], A])


def test_methods():
    x = jnp.asarray(X)
    check(x.diagonal(1, 1, 2), np.diagonal(X, 1, 1, 2))
    check(x.trace(), np.trace(X))
    check(x.repeat(2, axis=0), X.repeat(2, axis=0))
    check(x.take(1, axis=1), X.take(1, axis=1))
    check(x.take(np.array([0, 3])), X.take(np.array([0, 3])))
    check(stablax.jit(lambda v: v.take(0, axis=-1))(x), X.take(0, axis=-1))


def test_grad_and_vmap():
    def f(x):
        return jnp.sum(jnp.pad(jnp.roll(x, 1, 0), 1, "reflect")[:3, 2:] * jnp.tile(x, (2, 1))[1:4])

    x = RNG.standard_normal((3, 3)).astype(np.float32)
    check_grads(f, (x,), order=1, modes=("rev",))
    xs = RNG.standard_normal((4, 3, 3)).astype(np.float32)
    g = lambda x: jnp.diagonal(jnp.insert(jnp.flip(x, 1), 1, 0.0, axis=0), 1)  # noqa: E731
    check(stablax.vmap(g)(xs), np.stack([np.asarray(g(x)) for x in xs]), exact=False)
