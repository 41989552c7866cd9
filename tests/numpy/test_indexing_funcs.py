"""NumPy functions built on indexing (take, put, compress, choose, index helpers, index tricks)
against NumPy, with the values JAX 0.10.2 gives where JAX departs from NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax.test_util import check_grads

A_NP = np.arange(6.0, dtype=np.float32).reshape(2, 3)


def _eq(actual, expected):
    actual = np.asarray(actual)
    assert actual.shape == np.shape(expected)
    np.testing.assert_array_equal(actual, expected)


def test_take_modes():
    a = jnp.asarray(A_NP)
    idx = np.array([5, -1, -7])
    _eq(jnp.take(a, idx), [5.0, 5.0, np.nan])  # JAX: fill by default, negatives wrap
    _eq(jnp.take(a, idx, mode="clip"), [5.0, 0.0, 0.0])  # clip does not wrap
    _eq(jnp.take(a, idx, mode="wrap"), [5.0, 5.0, 5.0])
    _eq(jnp.take(a, np.array([[0, 2]]), axis=1), np.take(A_NP, [[0, 2]], axis=1))
    _eq(jnp.take(a, 1, axis=1), np.take(A_NP, 1, axis=1))
    _eq(jnp.take(a, np.array([9]), axis=0, fill_value=-2.0), np.full((1, 3), -2.0))
    _eq(jnp.take(jnp.arange(3), np.array([5])), [np.iinfo(np.int32).min])
    with pytest.raises(NotImplementedError, match="raise"):
        jnp.take(a, idx, mode="raise")
    f = stablax.jit(lambda a, i: jnp.take(a, i, axis=1))
    _eq(f(a, np.array([2, 0])), np.take(A_NP, [2, 0], axis=1))


def test_take_along_axis_and_put_along_axis():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 2)).astype(np.float32)
    idx = np.argsort(x, axis=1)
    _eq(jnp.take_along_axis(jnp.asarray(x), idx, axis=1), np.take_along_axis(x, idx, axis=1))
    _eq(
        jnp.take_along_axis(jnp.asarray(x), idx[:1], axis=1), np.take_along_axis(x, idx[:1], axis=1)
    )
    _eq(jnp.take_along_axis(jnp.asarray(A_NP), np.array([4, 1]), axis=None), [4.0, 1.0])
    _eq(jnp.take_along_axis(jnp.asarray(A_NP), np.array([[5], [-1]]), axis=1), [[np.nan], [5.0]])
    with pytest.raises(ValueError, match="same number of dimensions"):
        jnp.take_along_axis(jnp.asarray(A_NP), np.array([4, 1]), axis=1)
    with pytest.raises(TypeError, match="integer"):
        jnp.take_along_axis(jnp.asarray(A_NP), np.array([[1.0]]), axis=1)
    expected = A_NP.copy()
    np.put_along_axis(expected, np.array([[2], [0]]), 9.0, axis=1)
    out = jnp.put_along_axis(jnp.asarray(A_NP), np.array([[2], [0]]), 9.0, axis=1, inplace=False)
    _eq(out, expected)
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.put_along_axis(jnp.asarray(A_NP), np.array([[2], [0]]), 9.0, axis=1)
    sort_first = stablax.jit(lambda x, i: jnp.take_along_axis(x, i, axis=-1))
    first = np.argsort(x, axis=-1)[..., :1]
    _eq(sort_first(jnp.asarray(x), first), np.take_along_axis(x, first, axis=-1))


def test_put_and_place():
    a = jnp.asarray(A_NP)
    for ind, v, mode in [
        ([0, 4], [7.0, 8.0], None),
        ([0, 4, 5], [7.0, 8.0], None),  # v repeats
        ([0, 9], [7.0, 8.0], "clip"),
        ([0, 9], [7.0, 8.0], "wrap"),
    ]:
        expected = A_NP.copy()
        np.put(expected, ind, v, mode=mode or "raise")
        _eq(jnp.put(a, np.array(ind), np.array(v), mode=mode, inplace=False), expected)
    # JAX drops out-of-bounds positions by default (after negatives wrap).
    out = jnp.put(a, np.array([0, 9, -1]), np.array([7.0, 8.0, 6.0]), inplace=False)
    _eq(out, [[7.0, 1.0, 2.0], [3.0, 4.0, 6.0]])
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.put(a, np.array([0]), 1.0)
    expected = A_NP.copy()
    np.place(expected, A_NP > 2, [7.0, 8.0])
    _eq(jnp.place(a, a > 2, np.array([7.0, 8.0]), inplace=False), expected)
    traced = stablax.jit(lambda m: jnp.place(a, m, np.array([7.0, 8.0]), inplace=False))
    _eq(traced(a > 2), expected)
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.place(a, a > 2, 1.0)


def test_compress_and_extract():
    a = jnp.asarray(A_NP)
    for cond, axis in [([True, False, True], 1), ([False, True], 1), ([0, 2, 1], 1), ([1], 0)]:
        _eq(jnp.compress(np.array(cond), a, axis=axis), np.compress(cond, A_NP, axis=axis))
    _eq(jnp.compress(np.array([False, True, True]), a), [1.0, 2.0])
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.compress(np.array([False, True, True, True]), a, axis=1)
    _eq(jnp.extract(a > 2, a), np.extract(A_NP > 2, A_NP))
    _eq(jnp.extract(a > 2, a, size=5), [3.0, 4.0, 5.0, 0.0, 0.0])
    _eq(jnp.extract(a > 2, a, size=2, fill_value=-1), [3.0, 4.0])
    sized = stablax.jit(lambda c: jnp.extract(c, a, size=4, fill_value=-1.0))
    _eq(sized(a > 3), [4.0, 5.0, -1.0, -1.0])
    with pytest.raises(stablax.errors.ConcretizationTypeError, match="size="):
        stablax.jit(lambda c: jnp.compress(c, a))(np.array([True, False]))


def test_choose():
    choices = [np.arange(3), np.arange(3) * 10]
    _eq(jnp.choose(np.array([0, 1, 1]), choices), np.choose([0, 1, 1], choices))
    _eq(jnp.choose(np.array([0, 2, -1]), choices, mode="clip"), [0, 10, 2])  # JAX's clip
    _eq(
        jnp.choose(np.array([0, 2, -1]), choices, mode="wrap"),
        np.choose([0, 2, -1], choices, mode="wrap"),
    )
    _eq(
        jnp.choose(np.array([[0], [1]]), [np.arange(3), 5]),
        np.choose([[0], [1]], [np.arange(3), 5]),
    )
    with pytest.raises(ValueError, match="invalid entry"):
        jnp.choose(np.array([0, 2]), choices)
    with pytest.raises(stablax.errors.ConcretizationTypeError, match="mode="):
        stablax.jit(lambda i: jnp.choose(i, choices))(np.array([0, 1, 1]))


def test_index_arrays():
    for got, want in [
        (jnp.diag_indices(3, 3), np.diag_indices(3, 3)),
        (jnp.diag_indices_from(jnp.zeros((2, 2))), np.diag_indices_from(np.zeros((2, 2)))),
        (jnp.tril_indices(3, 1, 4), np.tril_indices(3, 1, 4)),
        (jnp.triu_indices(4, -1), np.triu_indices(4, -1)),
        (jnp.tril_indices_from(jnp.zeros((3, 4)), -1), np.tril_indices_from(np.zeros((3, 4)), -1)),
        (jnp.triu_indices_from(jnp.zeros((3, 4)), 1), np.triu_indices_from(np.zeros((3, 4)), 1)),
        (jnp.mask_indices(3, np.triu, 1), np.mask_indices(3, np.triu, 1)),
        (jnp.ix_(np.array([0, 1]), np.array([2, 0, 1])), np.ix_([0, 1], [2, 0, 1])),
    ]:
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == np.int32
            _eq(g, w)
    with pytest.raises(ValueError, match="equal length"):
        jnp.diag_indices_from(jnp.zeros((2, 3)))
    with pytest.raises(ValueError, match="2-D"):
        jnp.triu_indices_from(jnp.zeros((3, 4, 2)))
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.ix_(np.zeros((2, 2), np.int32))


def test_unravel_and_ravel_multi_index():
    for g, w in zip(
        jnp.unravel_index(np.array([5, 1, 3]), (2, 3)),
        np.unravel_index([5, 1, 3], (2, 3)),
        strict=True,
    ):
        _eq(g, w)
    # JAX clamps out-of-bounds flat indices after wrapping negatives.
    rows, cols = jnp.unravel_index(np.array([7, -1, 30, -30]), (2, 3))
    _eq(rows, [1, 1, 1, 0])
    _eq(cols, [2, 2, 2, 0])
    coords = (np.array([1, 0]), np.array([2, 1]))
    _eq(jnp.ravel_multi_index(coords, (2, 3)), np.ravel_multi_index(coords, (2, 3)))
    _eq(
        jnp.ravel_multi_index(coords, (2, 3), order="F"),
        np.ravel_multi_index(coords, (2, 3), order="F"),
    )
    bad = (np.array([1, 5]), np.array([2, 1]))
    _eq(
        jnp.ravel_multi_index(bad, (2, 3), mode="clip"),
        np.ravel_multi_index(bad, (2, 3), mode="clip"),
    )
    _eq(
        jnp.ravel_multi_index(bad, (2, 3), mode="wrap", order="F"),
        np.ravel_multi_index(bad, (2, 3), mode="wrap", order="F"),
    )
    with pytest.raises(ValueError, match="invalid entry"):
        jnp.ravel_multi_index(bad, (2, 3))
    traced = stablax.jit(lambda i: jnp.ravel_multi_index((i, i), (2, 3), mode="clip"))
    _eq(traced(np.array([1, 0])), [4, 0])


def test_fill_diagonal():
    expected = np.zeros((4, 3), np.float32)
    np.fill_diagonal(expected, 5.0)
    _eq(jnp.fill_diagonal(jnp.zeros((4, 3)), 5.0, inplace=False), expected)
    expected = np.zeros((3, 3, 3), np.float32)
    np.fill_diagonal(expected, [1.0, 2.0])
    _eq(jnp.fill_diagonal(jnp.zeros((3, 3, 3)), np.array([1.0, 2.0]), inplace=False), expected)
    with pytest.raises(NotImplementedError, match="inplace=False"):
        jnp.fill_diagonal(jnp.zeros((2, 2)), 1.0)


def test_index_tricks():
    assert jnp.s_[1:2, ::3] == np.s_[1:2, ::3] and jnp.index_exp[1] == (1,)
    for got, want in [
        (jnp.mgrid[0:3, 0:2], np.mgrid[0:3, 0:2]),
        (jnp.mgrid[0:3], np.mgrid[0:3]),
        (jnp.mgrid[0:1:3j], np.mgrid[0:1:3j]),
        (jnp.r_[1, 2, jnp.array([3, 4])], np.r_[1, 2, np.array([3, 4])]),
        (jnp.r_[0:3, 5.0], np.r_[0:3, 5.0]),
        (jnp.r_["0,2", [1, 2], [3, 4]], np.r_["0,2", [1, 2], [3, 4]]),
        (jnp.r_["0,2,0", [1, 2], [3, 4]], np.r_["0,2,0", [1, 2], [3, 4]]),
        (
            jnp.r_["-1", np.ones((2, 2)), np.zeros((2, 1))],
            np.r_["-1", np.ones((2, 2)), np.zeros((2, 1))],
        ),
        (
            jnp.c_[np.array([1, 2, 3]), np.array([4, 5, 6])],
            np.c_[np.array([1, 2, 3]), np.array([4, 5, 6])],
        ),
        (jnp.c_[[1, 2, 3], 0:3], np.c_[[1, 2, 3], 0:3]),
        (jnp.r_[0:1:5j], np.r_[0:1:5j]),
    ]:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
        assert np.asarray(got).shape == want.shape
    assert jnp.mgrid[0:3, 0:2].dtype == np.int32 and jnp.mgrid[0:1:3j].dtype == np.float32
    opened = jnp.ogrid[0:3, 0:2]
    assert [o.shape for o in opened] == [(3, 1), (1, 2)]


def test_gradients_through_take_and_put(x64):
    x = np.random.default_rng(0).normal(size=(3, 4))
    idx = np.array([[1, 3], [0, 0], [2, 1]])
    check_grads(lambda x: jnp.take_along_axis(jnp.asarray(x), idx, axis=1), (x,), order=1)
    check_grads(lambda x: jnp.take(jnp.asarray(x), np.array([0, 11, 5])), (x,), order=1)
    check_grads(
        lambda x, v: jnp.put(jnp.asarray(x), np.array([1, 6]), v, inplace=False),
        (x, np.array([0.5, -0.5])),
        order=1,
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: jnp.diag_indices(2**63),
        lambda: jnp.diag_indices(2**62),
        lambda: jnp.tril_indices(2**63),
        lambda: jnp.triu_indices(3, m=2**63),
    ],
)
def test_index_arrays_too_large_to_hold_raise(make):
    # NumPy's arange(2**63) is empty (its size overflows); stablax refuses the size, as it does
    # 2**62 (JAX 0.10.2 fails inside MLIR for 2**63 and aborts for 2**62).
    with pytest.raises(ValueError, match="too large"):
        make()


def test_take_reads_the_axis_before_the_mode():
    # JAX 0.10.2's order: the axis (ValueError), then the mode ('raise' is NotImplementedError),
    # then the indices (fuzz seed 3811: a 0-d array with axis=0 and mode='raise')
    with pytest.raises(ValueError, match="axis 0 is out of bounds"):
        stablax.jit(lambda i: jnp.take(np.array(2, np.uint16), i, axis=0, mode="raise"))(2)
    with pytest.raises(ValueError, match="axis 5 is out of bounds"):
        jnp.take(np.ones(3), 1, axis=5, mode="bogus")
    with pytest.raises(NotImplementedError, match="'raise' mode"):
        jnp.take(np.ones(3), 1.5, axis=0, mode="raise")
