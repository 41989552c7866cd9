"""stablax.ops segment reductions against a NumPy loop, under jit, grad and vmap."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import ops
from stablax.test_util import check_grads

# name -> (NumPy reduction of a segment's rows, value of an empty segment for float / int)
REDUCTIONS = {
    "segment_sum": (np.sum, 0, 0),
    "segment_prod": (np.prod, 1, 1),
    "segment_max": (np.max, -np.inf, np.iinfo(np.int32).min),
    "segment_min": (np.min, np.inf, np.iinfo(np.int32).max),
}


def _reference(name, data, ids, num_segments):
    reduce, empty_float, empty_int = REDUCTIONS[name]
    empty = empty_float if data.dtype.kind == "f" else empty_int
    out = np.full((num_segments, *data.shape[1:]), empty, dtype=data.dtype)
    for s in range(num_segments):
        rows = data[ids == s]
        if len(rows):
            out[s] = reduce(rows, axis=0)
    return out


CASES = [  # (data shape, dtype, number of segments)
    ((7,), np.float32, 4),
    ((9, 3), np.float32, 5),
    ((6, 2, 2), np.int32, 3),
    ((10,), np.float64, 6),
]


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("shape, dtype, num_segments", CASES)
@pytest.mark.parametrize("bucket_size", [None, 3])
def test_matches_numpy(name, shape, dtype, num_segments, bucket_size, rng, x64):
    data = (rng.standard_normal(shape) * 3).astype(dtype)
    # Ids out of range (negative or too large) are dropped.
    ids = rng.integers(-1, num_segments + 1, size=shape[0])
    got = getattr(ops, name)(data, ids, num_segments, bucket_size=bucket_size)
    want = _reference(name, data, ids, num_segments)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_default_num_segments_jit_and_vmap(name, rng):
    data = rng.standard_normal((8, 2)).astype(np.float32)
    ids = np.array([0, 0, 1, 3, 3, 3, 1, 2])
    fn = getattr(ops, name)
    eager = fn(data, ids)
    assert eager.shape == (4, 2)
    np.testing.assert_allclose(np.asarray(eager), _reference(name, data, ids, 4), rtol=1e-6)
    jitted = stablax.jit(fn, static_argnums=2)(data, ids, 4)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-6)
    batch = np.stack([data, 2 * data, -data])
    mapped = stablax.vmap(lambda d: fn(d, ids, 4))(batch)
    for i in range(3):
        np.testing.assert_allclose(
            np.asarray(mapped[i]), np.asarray(fn(batch[i], ids, 4)), rtol=1e-6
        )


def test_num_segments_is_required_under_jit():
    with pytest.raises(stablax.errors.ConcretizationTypeError, match="num_segments"):
        stablax.jit(ops.segment_sum)(jnp.ones(3), jnp.array([0, 1, 1]))


@pytest.mark.parametrize("name", ["segment_sum", "segment_max", "segment_min"])
def test_gradients(name, x64):
    data = jnp.asarray(np.random.default_rng(3).standard_normal((6, 2)))
    ids = jnp.array([0, 1, 1, 2, 2, 2])
    check_grads(lambda d: getattr(ops, name)(d, ids, 3), (data,), order=2)


def test_segment_prod_gradient_needs_unique_indices_as_in_jax(x64):
    data = jnp.asarray([1.5, 2.0, -3.0])
    with pytest.raises(NotImplementedError):
        stablax.grad(lambda d: ops.segment_prod(d, jnp.array([0, 1, 1]), 2).sum())(data)
    unique = lambda d: ops.segment_prod(d, jnp.array([0, 2, 1]), 3, unique_indices=True)  # noqa: E731
    check_grads(unique, (data,), order=1)


def test_sorted_unique_hints_and_modes():
    data = jnp.arange(4.0)
    ids = jnp.array([0, 1, 2, 3])
    out = ops.segment_sum(data, ids, 4, indices_are_sorted=True, unique_indices=True)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 1.0, 2.0, 3.0])
    clipped = ops.segment_sum(data, jnp.array([0, 1, 5, -3]), 2, mode="clip")
    np.testing.assert_array_equal(np.asarray(clipped), [3.0, 3.0])


def test_lists_are_rejected_as_in_jax():
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        ops.segment_sum([1.0, 2.0], jnp.array([0, 1]))
