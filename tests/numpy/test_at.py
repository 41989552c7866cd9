"""`x.at[idx]` against NumPy copy-and-assign (and `np.ufunc.at` for repeated indices): every
update, out-of-bounds modes, dtype rules, gradients and batching."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp
from stablax.test_util import check_grads
from tests.numpy.test_indexing import SHAPE, X_NP, _numpy_index, index_items

UFUNCS = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}


@settings(max_examples=30, deadline=None)
@given(index_items(SHAPE), st.sampled_from(["set", "add", "multiply", "min", "max"]))
def test_updates_match_numpy(idx, op):
    x = jnp.asarray(X_NP)
    np_idx = _numpy_index(idx)
    try:
        shape = X_NP[np_idx].shape
    except IndexError:
        return
    updates = (np.arange(int(np.prod(shape)), dtype=np.float32) % 7 - 3).reshape(shape)
    expected = X_NP.copy()
    if op == "set":  # repeated indices: NumPy's last write wins, XLA picks one; use a scalar
        updates = np.float32(-5)
        expected[np_idx] = updates
    else:
        UFUNCS[op].at(expected, np_idx, updates)
    eager = getattr(x.at[idx], op)(updates)
    np.testing.assert_array_equal(np.asarray(eager), expected)
    jitted = stablax.jit(lambda x, u: getattr(x.at[idx], op)(u))(x, updates)
    np.testing.assert_array_equal(np.asarray(jitted), expected)


@settings(max_examples=20, deadline=None)
@given(index_items(SHAPE))
def test_get_matches_getitem(idx):
    x = jnp.asarray(X_NP)
    try:
        expected = X_NP[_numpy_index(idx)]
    except IndexError:
        return
    np.testing.assert_array_equal(np.asarray(x.at[idx].get()), expected)
    np.testing.assert_array_equal(np.asarray(x.at[idx].get(mode="fill")), expected)


def test_set_with_unique_indices_takes_each_update():
    x = jnp.zeros((4, 3))
    y = np.arange(6.0).reshape(2, 3)
    expected = np.zeros((4, 3))
    expected[[3, 1]] = y
    out = x.at[np.array([3, 1])].set(y, unique_indices=True, indices_are_sorted=False)
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_subtract_divide_power_apply():
    x = jnp.arange(5.0)
    idx = np.array([1, 1, 3])
    np.testing.assert_array_equal(np.asarray(x.at[idx].subtract(2.0)), [0, -3, 2, 1, 4])
    np.testing.assert_array_equal(np.asarray(x.at[idx].divide(2.0)), [0, 0.25, 2, 1.5, 4])
    np.testing.assert_array_equal(np.asarray(x.at[idx].power(2.0)), [0, 1, 2, 9, 4])
    np.testing.assert_array_equal(np.asarray(x.at[idx].mul(3.0)), [0, 9, 2, 9, 4])
    # apply acts once per element hit (JAX's np.ufunc.at semantics would apply it twice at 1).
    np.testing.assert_array_equal(np.asarray(x.at[1:3].apply(lambda v: v * 10)), [0, 10, 20, 3, 4])
    out = jnp.arange(5).at[np.array([2])].divide(2)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 1, 3, 4])


# --- out of bounds -----------------------------------------------------------------------------


def test_scatter_modes_drop_clip_promise():
    x = jnp.arange(5.0)
    idx = np.array([-1, -6, 5, 7])
    np.testing.assert_array_equal(np.asarray(x.at[idx].set(9.0)), [0, 1, 2, 3, 9])  # dropped
    np.testing.assert_array_equal(np.asarray(x.at[idx].set(9.0, mode="drop")), [0, 1, 2, 3, 9])
    np.testing.assert_array_equal(
        np.asarray(x.at[np.array([-6, 7])].set(9.0, mode="clip")), [9, 1, 2, 3, 9]
    )
    out = x.at[np.array([-6, 7])].set(9.0, mode="promise_in_bounds")
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 2, 3, 4])
    out = x.at[-1].add(1.0, wrap_negative_indices=False)
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 2, 3, 4])
    f = stablax.jit(lambda x, i: x.at[i].add(1.0))
    np.testing.assert_array_equal(np.asarray(f(x, 9)), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(f(x, -2)), [0, 1, 2, 4, 4])


def test_get_modes_clip_and_fill():
    x = jnp.asarray(X_NP)
    idx = np.array([1, 5, -1, -4])
    np.testing.assert_array_equal(np.asarray(x.at[idx].get()[:, 0, 0]), [20, 40, 40, 0])
    np.testing.assert_array_equal(np.asarray(x.at[idx].get(mode="clip")[:, 0, 0]), [20, 40, 40, 0])
    out = x.at[idx].get(mode="fill", fill_value=-1)[:, 0, 0]
    np.testing.assert_array_equal(np.asarray(out), [20, -1, 40, -1])
    assert np.isnan(np.asarray(x.at[5].get(mode="fill"))).all()
    assert (np.asarray(jnp.arange(3).at[7].get(mode="fill")) == np.iinfo(np.int32).min).all()
    f = stablax.jit(lambda x, i: x.at[i, 1:3].get(mode="fill", fill_value=0.5))
    np.testing.assert_array_equal(np.asarray(f(x, 3)), np.full((2, 5), 0.5, np.float32))
    np.testing.assert_array_equal(np.asarray(f(x, -1)), X_NP[2, 1:3])


# --- dtypes ------------------------------------------------------------------------------------


def test_update_dtype_rules():
    with pytest.warns(
        FutureWarning, match="cannot safely cast value from dtype=float32 to dtype=int32"
    ):
        out = jnp.arange(5).at[0].set(1.5)
    assert out.dtype == np.int32 and int(out[0]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = jnp.arange(5.0).at[0].set(jnp.int32(7))
        assert out.dtype == np.float32
        out = jnp.zeros(3, np.uint8).at[0].add(-1)
        assert out.dtype == np.uint8 and int(out[0]) == 255
        out = jnp.zeros(3, jnp.bfloat16).at[0].set(3)
        assert out.dtype == jnp.bfloat16
    # Updates take x's dtype and weak type, as in JAX.
    weak = jnp.broadcast_to(jnp.asarray(1.0), (3,))
    assert weak.weak_type and weak.at[0].set(jnp.float16(3)).weak_type
    assert weak.at[0].set(jnp.float16(3)).dtype == np.float32
    assert jnp.asarray(1.0).at[()].set(jnp.float32(3)).weak_type


def test_update_shape_errors():
    with pytest.raises(ValueError, match="cannot broadcast"):
        jnp.zeros((3, 4)).at[:, 1].set(jnp.arange(4.0))
    with pytest.raises(ValueError, match="cannot broadcast"):
        jnp.zeros((3, 4)).at[0].set(jnp.ones((1, 1, 4)))
    with pytest.raises(ValueError, match="mode"):
        jnp.zeros(3).at[0].set(1.0, mode="bogus")


# --- derivatives and batching ------------------------------------------------------------------

INDEX = (np.array([0, 2, 1]), slice(None), slice(4, 0, -2))


@pytest.mark.parametrize("op", ["set", "add", "subtract", "multiply", "min", "max"])
def test_update_gradients(x64, op):
    rng = np.random.default_rng(0)
    x = rng.permutation(60).reshape(SHAPE) / 4.0
    y = rng.permutation(24).reshape(3, 4, 2) / 4.0 + 0.125  # no ties with x for min/max

    def f(x, y):
        return getattr(jnp.asarray(x).at[INDEX], op)(y, unique_indices=True)

    check_grads(f, (x, y), order=1, modes=("fwd", "rev"))


def test_get_and_apply_gradients(x64):
    x = np.random.default_rng(0).normal(size=SHAPE)
    check_grads(
        lambda x: jnp.asarray(x).at[np.array([0, 7, -1])].get(mode="fill", fill_value=0.0),
        (x,),
        order=2,
        modes=("fwd", "rev"),
    )
    check_grads(
        lambda x: jnp.asarray(x).at[1:, ::2].apply(jnp.sin), (x,), order=1, modes=("fwd", "rev")
    )
    grad = stablax.grad(lambda x: x.at[np.array([0, 0, 1])].get().sum())(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(grad)[:, 0, 0], [2, 1, 0])


# Gradients of sum(x.at[idx].mul(x[1] or 3)) for x = arange(12).reshape(3, 4), from JAX 0.10.2:
# basic indices (integers, traced integers, slices, None, Ellipsis) are unique, so the
# multiplication is differentiable in its updates without unique_indices=True.
_ONES, _THREES = [1.0] * 4, [3.0] * 4
MUL_GRADS = {
    "int": (lambda a: a.at[2].mul(a[1]), [_ONES, [9.0, 10.0, 11.0, 12.0], [4.0, 5.0, 6.0, 7.0]]),
    "negative_int": (lambda a: a.at[-1].mul(3.0), [_ONES, _ONES, _THREES]),
    "traced_int": (lambda a: a.at[jnp.int32(1)].mul(3.0), [_ONES, _THREES, _ONES]),
    "int_pair": (lambda a: a.at[1, 2].mul(3.0), [_ONES, [1.0, 1.0, 3.0, 1.0], _ONES]),
    "slice": (lambda a: a.at[1:].mul(3.0), [_ONES, _THREES, _THREES]),
    "reversed_slice": (lambda a: a.at[::-1].mul(3.0), [_THREES, _THREES, _THREES]),
    "int_and_slice": (lambda a: a.at[1, 1:3].mul(3.0), [_ONES, [1.0, 3.0, 3.0, 1.0], _ONES]),
    "ellipsis": (lambda a: a.at[..., 1].mul(3.0), [[1.0, 3.0, 1.0, 1.0]] * 3),
    "new_axis": (lambda a: a.at[None, 1].mul(3.0), [_ONES, _THREES, _ONES]),
    "divide": (lambda a: a.at[1].divide(3.0), [_ONES, [1 / 3] * 4, _ONES]),
    "power": (lambda a: a.at[1].power(3.0), [_ONES, [48.0, 75.0, 108.0, 147.0], _ONES]),
    "repeated_array": (lambda a: a.at[np.array([0, 0])].mul(3.0), [[9.0] * 4, _ONES, _ONES]),
}


@pytest.mark.parametrize("name", sorted(MUL_GRADS))
def test_multiply_gradients_with_basic_indices(name):
    update, expected = MUL_GRADS[name]
    x = jnp.arange(12.0).reshape(3, 4)
    for grad in (
        stablax.grad(lambda a: jnp.sum(update(a))),
        stablax.jit(stablax.grad(lambda a: jnp.sum(update(a)))),
    ):
        np.testing.assert_allclose(np.asarray(grad(x)), expected, rtol=1e-6)
    # the reproducer
    g = stablax.grad(lambda a: jnp.sum(a.at[2].mul(a[1])))(jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(g), [1.0, 4.0, 2.0])


def test_multiply_by_traced_updates_at_an_index_array_needs_unique_indices():
    # As in JAX: an index array may repeat, so the derivative in the updates is refused.
    x = jnp.arange(3.0)
    with pytest.raises(NotImplementedError, match="unique_indices"):
        stablax.grad(lambda a: jnp.sum(a.at[np.array([0, 2])].mul(a[1])))(x)


def test_vmap_of_updates_matches_a_loop():
    rng = np.random.default_rng(1)
    xs = jnp.asarray(rng.normal(size=(4, *SHAPE)).astype(np.float32))
    ii = jnp.asarray(rng.integers(-4, 4, size=(4, 2)))
    ys = jnp.asarray(rng.normal(size=(4, 2, 5)).astype(np.float32))
    cases = [
        (lambda x, i, y: x.at[i, 1].add(y), (0, 0, 0)),
        (lambda x, i, y: x.at[i, 1].set(y), (None, 0, 0)),
        (lambda x, i, y: x.at[np.array([0, 2]), 1:3:2].max(y[:, None]), (0, None, 0)),
        (lambda x, i, y: x.at[i[0], :, i[1]].get(mode="fill"), (0, 0, None)),
    ]
    for f, in_axes in cases:
        args = (xs, ii, ys)
        out = stablax.vmap(f, in_axes=in_axes)(
            *[a if ax == 0 else a[0] for a, ax in zip(args, in_axes)]
        )
        loop = [f(*[a[k] if ax == 0 else a[0] for a, ax in zip(args, in_axes)]) for k in range(4)]
        np.testing.assert_array_equal(np.asarray(out), np.stack([np.asarray(v) for v in loop]))
