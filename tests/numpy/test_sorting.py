"""jnp sorting and searching against NumPy: sort/argsort (stability, NaNs, -0.0, descending),
lexsort, partition, searchsorted, nonzero and friends; eagerly, under jit, grad and vmap."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax as jax
import stablax.numpy as jnp
from stablax.errors import ConcretizationTypeError
from stablax.test_util import check_grads

DTYPES = [np.float32, np.int32, np.uint8, np.bool_, np.float16, ml_dtypes.bfloat16]


def _ties_and_nans(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    values = rng.integers(0, 4, shape).astype(np.float64)
    if dtype.kind in "iu":
        return values.astype(dtype)
    specials = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf])
    values = np.where(rng.random(shape) < 0.3, rng.choice(specials, shape), values)
    return values.astype(dtype)


def _bits(x):
    x = np.asarray(x)
    return (
        x.view(np.uint16 if x.dtype.itemsize == 2 else np.uint32)
        if x.dtype.kind == "f" or (x.dtype == ml_dtypes.bfloat16)
        else x
    )


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,axis", [((9,), -1), ((3, 5), 0), ((3, 5), 1), ((2, 3, 4), None)])
def test_sort_and_argsort_match_numpy(dtype, shape, axis, rng):
    x = _ties_and_nans(rng, shape, dtype)
    order = np.argsort(x.astype(np.float64) if x.dtype != np.bool_ else x, axis, kind="stable")
    np.testing.assert_array_equal(jnp.argsort(x, axis=axis), order)
    expected = np.sort(x, axis, kind="stable")
    # Bitwise: NaNs last, -0.0 and 0.0 kept in their input order (a stable sort).
    np.testing.assert_array_equal(_bits(jnp.sort(x, axis=axis)), _bits(expected))
    np.testing.assert_array_equal(
        _bits(jax.jit(lambda a: jnp.sort(a, axis=axis))(x)), _bits(expected)
    )


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_descending(dtype, rng):
    x = _ties_and_nans(rng, (4, 7), dtype)
    keys = -x.astype(np.float64)
    keys = np.where(np.isnan(keys), -np.inf, keys)  # NaNs first when descending
    expected = np.argsort(keys, -1, kind="stable")  # ties keep their input order
    np.testing.assert_array_equal(jnp.argsort(x, descending=True), expected)
    np.testing.assert_array_equal(jnp.sort(x, descending=True), np.take_along_axis(x, expected, -1))


def test_argsort_dtype_and_errors():
    assert jnp.argsort(np.ones(3)).dtype == np.int32
    assert jnp.argsort(np.ones(3), dtype=np.int8).dtype == np.int8
    with pytest.raises(TypeError, match="order"):  # JAX's class
        jnp.sort(np.ones(3), order="x")
    with pytest.raises(TypeError, match="kind"):
        jnp.argsort(np.ones(3), kind="quicksort")
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.sort(np.ones((2, 3)), axis=2)


def test_sort_complex(rng):
    x = (rng.integers(-2, 3, 8) + 1j * rng.integers(-2, 3, 8)).astype(np.complex64)
    np.testing.assert_array_equal(jnp.sort(x), np.sort(x))
    np.testing.assert_array_equal(jnp.sort_complex(x), np.sort_complex(x))
    ints = jnp.sort_complex(np.array([3, 1, 2]))
    assert ints.dtype == np.complex64
    np.testing.assert_array_equal(ints, [1, 2, 3])


def test_lexsort(rng):
    keys = [rng.integers(0, 3, (4, 6)) for _ in range(3)]
    np.testing.assert_array_equal(jnp.lexsort(keys), np.lexsort(keys))
    np.testing.assert_array_equal(jnp.lexsort(keys, axis=0), np.lexsort(keys, axis=0))
    np.testing.assert_array_equal(jnp.lexsort(np.stack(keys)), np.lexsort(np.stack(keys)))


@pytest.mark.parametrize("kth", [0, 3, -1])
def test_partition(kth, rng):
    x = rng.standard_normal((3, 7)).astype(np.float32)
    part = np.asarray(jnp.partition(x, kth))
    k = kth % 7
    np.testing.assert_array_equal(part[:, k], np.sort(x)[:, k])
    assert np.all(part[:, :k] <= part[:, k : k + 1]) and np.all(
        part[:, k + 1 :] >= part[:, k : k + 1]
    )
    indices = np.asarray(jnp.argpartition(x, kth, axis=0 if kth == 0 else -1))
    axis = 0 if kth == 0 else -1
    np.testing.assert_array_equal(
        np.take_along_axis(x, indices, axis).take(k, axis), np.sort(x, axis).take(k, axis)
    )
    with pytest.raises(ValueError, match="kth"):
        jnp.partition(x, 7)


@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "compare_all", "sort"])
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_searchsorted(method, side, dtype, rng):
    a = np.sort(_ties_and_nans(rng, (11,), dtype))
    v = _ties_and_nans(rng, (3, 4), dtype)
    expected = np.searchsorted(a, v, side=side)
    np.testing.assert_array_equal(jnp.searchsorted(a, v, side=side, method=method), expected)
    jitted = jax.jit(lambda a, v: jnp.searchsorted(a, v, side=side, method=method))
    np.testing.assert_array_equal(jitted(a, v), expected)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=0, max_size=12),
    st.lists(st.integers(-6, 6), min_size=1, max_size=5),
    st.sampled_from(["left", "right"]),
    st.sampled_from(["scan", "compare_all", "sort"]),
)
def test_searchsorted_hypothesis(a, v, side, method):
    a = np.sort(np.asarray(a, np.int32))
    v = np.asarray(v, np.int32)
    got = jnp.searchsorted(a, v, side=side, method=method)
    np.testing.assert_array_equal(got, np.searchsorted(a, v, side=side))


def test_searchsorted_sorter_scalar_and_errors(rng):
    a = rng.standard_normal(9).astype(np.float32)
    sorter = np.argsort(a)
    v = rng.standard_normal(5).astype(np.float32)
    np.testing.assert_array_equal(
        jnp.searchsorted(a, v, sorter=sorter), np.searchsorted(a, v, sorter=sorter)
    )
    assert jnp.searchsorted(np.array([1, 2]), 1.5).shape == ()
    np.testing.assert_array_equal(jnp.searchsorted(np.zeros(0), v), np.zeros(5))
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.searchsorted(np.ones((2, 2)), 1.0)
    with pytest.raises(ValueError, match="side"):
        jnp.searchsorted(np.ones(2), 1.0, side="middle")
    with pytest.raises(ValueError, match="method"):
        jnp.searchsorted(np.ones(2), 1.0, method="magic")


# --- nonzero and friends -----------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2), (0, 3)])
def test_nonzero_family(shape, rng):
    x = (rng.integers(0, 3, shape) * (rng.random(shape) < 0.5)).astype(np.float32)
    for got, expected in zip(jnp.nonzero(x), np.nonzero(x), strict=True):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(jnp.flatnonzero(x), np.flatnonzero(x))
    np.testing.assert_array_equal(jnp.argwhere(x), np.argwhere(x))
    for got, expected in zip(jnp.where(x), np.where(x), strict=True):
        np.testing.assert_array_equal(got, expected)
    assert jnp.nonzero(x)[0].dtype == np.int32


@pytest.mark.parametrize("size", [0, 2, 5, 9])
def test_nonzero_with_size_under_jit(size):
    x = np.array([[0, 3, 0], [1, 0, 2], [0, 0, 4]], np.int32)  # five nonzeros
    rows, cols = np.nonzero(x)
    fill = (-1, -2)
    expected_rows = np.concatenate([rows, np.full(9, -1)])[:size]
    expected_cols = np.concatenate([cols, np.full(9, -2)])[:size]
    got = jax.jit(lambda a: jnp.nonzero(a, size=size, fill_value=fill))(x)
    np.testing.assert_array_equal(got[0], expected_rows)
    np.testing.assert_array_equal(got[1], expected_cols)
    flat = jax.jit(lambda a: jnp.flatnonzero(a, size=size, fill_value=7))(x)
    np.testing.assert_array_equal(flat, np.concatenate([np.flatnonzero(x), np.full(9, 7)])[:size])
    rows_cols = jax.jit(lambda a: jnp.argwhere(a, size=size))(x)
    np.testing.assert_array_equal(
        rows_cols, np.concatenate([np.argwhere(x), np.zeros((9, 2), int)])[:size]
    )
    where = jax.jit(lambda a: jnp.where(a, size=size, fill_value=fill))(x)
    np.testing.assert_array_equal(where[1], expected_cols)


@pytest.mark.parametrize("fill", [[False], [0], np.array([0])])
def test_nonzero_refuses_a_list_or_array_fill_value(fill):
    # JAX 0.10.2: a scalar or a tuple, nothing else (ValueError; fuzz seed 3811 passed [False])
    x = np.array([True])
    with pytest.raises(ValueError, match="fill_value must be a scalar or a tuple of length 1"):
        jax.jit(lambda a: jnp.flatnonzero(a, size=3, fill_value=fill))(x)
    np.testing.assert_array_equal(jnp.nonzero(x, size=3, fill_value=(5,))[0], [0, 5, 5])


def test_value_dependent_sizes_need_size_under_jit():
    x = np.array([0, 1, 2])
    for fn in (jnp.nonzero, jnp.flatnonzero, jnp.argwhere, jnp.where):
        with pytest.raises(ConcretizationTypeError, match=r"size.*\n?.*|test_sorting.py"):
            jax.jit(fn)(x)
    with pytest.raises(ConcretizationTypeError, match="test_sorting.py"):
        jax.jit(jnp.nonzero)(x)
    with pytest.raises(ValueError, match="0d"):
        jnp.nonzero(np.float32(1))
    assert jnp.argwhere(np.float32(3)).shape == (1, 0)


def test_nonzero_outside_jit_under_grad():
    # Outside jit the mask is concrete, so a data-dependent size works under grad.
    def f(x):
        (idx,) = jnp.nonzero(x > 0)
        return jnp.sum(x[idx[0]] * 2.0) if idx.shape[0] else jnp.sum(x)

    grad = jax.grad(f)(np.array([-1.0, 3.0, 4.0], np.float32))
    np.testing.assert_array_equal(grad, [0.0, 2.0, 0.0])


# --- methods, transforms ------------------------------------------------------------------------


def test_array_methods(rng):
    x = jnp.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    np.testing.assert_array_equal(x.sort(), np.sort(np.asarray(x)))
    np.testing.assert_array_equal(x.sort(axis=0), np.sort(np.asarray(x), axis=0))
    np.testing.assert_array_equal(x.argsort(descending=True), np.argsort(-np.asarray(x)))
    row = x[0].sort()
    np.testing.assert_array_equal(row.searchsorted(0.0), np.searchsorted(np.asarray(row), 0.0))
    np.testing.assert_array_equal(x.nonzero()[1], np.nonzero(np.asarray(x))[1])
    assert x.argpartition(1).shape == (3, 4)
    traced = jax.jit(lambda a: a.nonzero(size=2)[0])(x)
    assert traced.shape == (2,)


def test_grad_through_sort(x64, rng):
    x = jnp.asarray(rng.permutation(8).astype(np.float64) + rng.uniform(0, 0.1, 8))
    check_grads(lambda a: jnp.sort(a) * jnp.arange(8.0), (x,), order=2, modes=("fwd", "rev"))
    check_grads(
        lambda a: jnp.sort(a.reshape(2, 4), axis=0, descending=True),
        (x,),
        order=1,
        modes=("fwd", "rev"),
    )
    grad = jax.grad(lambda a: jnp.sort(a)[-1])(x)  # the gradient of the max
    np.testing.assert_array_equal(grad, np.eye(8)[int(np.argmax(np.asarray(x)))])


@pytest.mark.parametrize("in_axis", [0, 1])
def test_vmap_matches_loop(in_axis, rng):
    x = _ties_and_nans(rng, (3, 6), np.float32)
    a = np.sort(rng.standard_normal(5).astype(np.float32))
    cases = [
        (lambda r: jnp.sort(r), x),
        (lambda r: jnp.argsort(r, descending=True), x),
        (lambda r: jnp.searchsorted(a, r), x),
        (lambda r: jnp.searchsorted(jnp.sort(r), jnp.float32(0.5), side="right"), x),
        (lambda r: jnp.nonzero(r, size=4, fill_value=-1)[0], x),
    ]
    for fn, arg in cases:
        expected = np.stack(
            [np.asarray(fn(np.take(arg, i, in_axis))) for i in range(arg.shape[in_axis])]
        )
        got = jax.vmap(fn, in_axes=in_axis)(arg)
        np.testing.assert_array_equal(_bits(got), _bits(expected))
