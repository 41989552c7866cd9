"""Collectives over named vmap axes (lax.psum, pmean, pmax, pmin, all_gather, psum_scatter,
axis_index): values, nesting of named axes, autodiff, and the unbound-name error.

Expected values follow JAX 0.10.2's vmap semantics (checked against JAX itself).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import grad, jit, lax, vmap

X = np.arange(6.0, dtype=np.float32).reshape(3, 2)


def _np(x):
    return np.asarray(x)


@pytest.mark.parametrize(
    "collective,reference",
    [
        (lax.psum, np.sum),
        (lax.pmean, np.mean),
        (lax.pmax, np.max),
        (lax.pmin, np.min),
    ],
)
def test_reductions_over_the_batch(collective, reference):
    out = vmap(lambda a: collective(a, "i"), axis_name="i")(jnp.asarray(X))
    np.testing.assert_allclose(_np(out), np.broadcast_to(reference(X, axis=0), X.shape))
    once = vmap(lambda a: collective(a, "i"), axis_name="i", out_axes=None)(jnp.asarray(X))
    np.testing.assert_allclose(_np(once), reference(X, axis=0))


def test_reduction_along_a_mapped_axis_other_than_zero():
    out = vmap(lambda a: lax.psum(a, "i"), in_axes=1, out_axes=None, axis_name="i")(X)
    np.testing.assert_array_equal(_np(out), X.sum(axis=1))


def test_normalizing_by_the_batch_mean_under_jit():
    f = jit(vmap(lambda a: a - lax.pmean(a, "i"), axis_name="i"))
    np.testing.assert_allclose(_np(f(jnp.asarray(X))), X - X.mean(axis=0))
    text = str(jax.make_jaxpr(vmap(lambda a: a - lax.pmean(a, "i"), axis_name="i"))(X))
    assert "stablax." not in text  # the markers are gone once the axis is batched


def test_dtypes():
    ints = jnp.arange(3)
    assert vmap(lambda a: lax.psum(a, "i"), axis_name="i")(ints).dtype == np.int32
    bools = jnp.asarray([True, False])
    out = vmap(lambda a: lax.psum(a, "i"), axis_name="i")(bools)
    assert out.dtype == np.int32 and _np(out).tolist() == [1, 1]
    out = vmap(lambda a: lax.pmean(a, "i"), axis_name="i")(ints)
    assert out.dtype == np.float32 and _np(out).tolist() == [1.0, 1.0, 1.0]
    half = jnp.ones((2, 3), jnp.float16)
    assert vmap(lambda a: lax.psum(a, "i"), axis_name="i")(half).dtype == np.float16


def test_psum_of_a_constant_is_the_axis_size():
    assert vmap(lambda a: lax.psum(1, "i"), axis_name="i", out_axes=None)(X) == 3
    out = vmap(lambda a: lax.psum(1, "i"), axis_name="i")(X)
    assert _np(out).tolist() == [3, 3, 3] and out.aval.weak_type
    assert vmap(lambda a: lax.pmean(1, "i"), axis_name="i", out_axes=None)(X) == 1.0
    w = jnp.asarray([1.0, 2.0])  # unbatched: every instance holds the same value
    out = vmap(lambda a: lax.psum(w, "i"), axis_name="i", out_axes=None)(X)
    np.testing.assert_array_equal(_np(out), [3.0, 6.0])


def test_collective_of_an_unbatched_argument():
    w = jnp.asarray([1.0, 2.0])
    f = vmap(lambda a, v: lax.psum(v, "i"), in_axes=(0, None), axis_name="i", out_axes=None)
    np.testing.assert_array_equal(_np(f(X, w)), [3.0, 6.0])
    np.testing.assert_array_equal(_np(jit(f)(X, w)), [3.0, 6.0])
    g = vmap(lambda a, v: lax.all_gather(v, "i"), in_axes=(0, None), axis_name="i")
    np.testing.assert_array_equal(_np(g(X, w)), np.tile(_np(w), (3, 3, 1)))


def test_pytrees():
    out = vmap(lambda a: lax.psum((a, {"k": a * 2.0}), "i"), axis_name="i")(X)
    np.testing.assert_array_equal(_np(out[0]), np.broadcast_to(X.sum(0), X.shape))
    np.testing.assert_array_equal(_np(out[1]["k"]), np.broadcast_to(2 * X.sum(0), X.shape))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_all_gather(axis):
    out = vmap(lambda a: lax.all_gather(a, "i", axis=axis), axis_name="i")(X)
    gathered = np.moveaxis(X, 0, axis % 2)
    np.testing.assert_array_equal(_np(out), np.broadcast_to(gathered, (3, *gathered.shape)))


def test_all_gather_tiled_and_unbatched():
    out = vmap(lambda a: lax.all_gather(a, "i", tiled=True), axis_name="i", out_axes=None)(X)
    np.testing.assert_array_equal(_np(out), X.reshape(-1))
    w = jnp.asarray([1.0, 2.0])
    out = vmap(lambda a: lax.all_gather(w, "i"), axis_name="i", out_axes=None)(X)
    np.testing.assert_array_equal(_np(out), np.tile([1.0, 2.0], (3, 1)))
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
        vmap(lambda a: lax.all_gather(a, "i", axis=3), axis_name="i")(X)


def test_psum_scatter():
    x = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    out = vmap(lambda a: lax.psum_scatter(a, "i"), axis_name="i")(x)
    np.testing.assert_array_equal(_np(out), x.sum(0))
    y = np.arange(18.0, dtype=np.float32).reshape(3, 6)
    out = vmap(lambda a: lax.psum_scatter(a, "i", tiled=True), axis_name="i")(y)
    np.testing.assert_array_equal(_np(out), y.sum(0).reshape(3, 2))
    with pytest.raises(ValueError, match="psum_scatter"):
        vmap(lambda a: lax.psum_scatter(a, "i"), axis_name="i")(np.ones((3, 4), np.float32))


def test_axis_index():
    out = vmap(lambda a: lax.axis_index("i"), axis_name="i")(X)
    assert out.dtype == np.int32 and _np(out).tolist() == [0, 1, 2]
    out = vmap(lambda a: a * lax.axis_index("i"), in_axes=1, axis_name="i")(X)
    np.testing.assert_array_equal(_np(out), X.T * np.arange(2)[:, None])
    with pytest.raises(ValueError, match="axis_name=i"):
        vmap(lambda a: lax.axis_index("i"), axis_name="i", out_axes=None)(X)


# --- nested named axes -------------------------------------------------------------------------


def test_nested_vmaps_reduce_over_their_own_axis():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    inner_j = vmap(vmap(lambda a: lax.psum(a, "j"), axis_name="j"), axis_name="i")(x)
    np.testing.assert_array_equal(_np(inner_j), np.broadcast_to(x.sum(1, keepdims=True), x.shape))
    outer_i = vmap(vmap(lambda a: lax.psum(a, "i"), axis_name="j"), axis_name="i")(x)
    np.testing.assert_array_equal(_np(outer_i), np.broadcast_to(x.sum(0), x.shape))


def test_nested_axis_indices_and_gathers():
    x = np.ones((2, 3), np.float32)
    index = vmap(
        vmap(lambda a: lax.axis_index("i") * 10 + lax.axis_index("j"), axis_name="j"),
        axis_name="i",
    )(x)
    assert _np(index).tolist() == [[0, 1, 2], [10, 11, 12]]
    both = vmap(vmap(lambda a: lax.axis_index(("i", "j")), axis_name="j"), axis_name="i")(x)
    assert _np(both).tolist() == [[0, 1, 2], [3, 4, 5]]
    y = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    gathered = vmap(vmap(lambda a: lax.all_gather(a, "i"), axis_name="j"), axis_name="i")(y)
    np.testing.assert_array_equal(_np(gathered), np.broadcast_to(y, (3, 3, 2)).transpose(0, 2, 1))


def test_psum_over_two_axes_and_shadowed_names():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    both = vmap(vmap(lambda a: lax.psum(a, ("i", "j")), axis_name="j"), axis_name="i")(x)
    np.testing.assert_array_equal(_np(both), np.full((2, 3), 15.0))
    shadowed = vmap(vmap(lambda a: lax.psum(a, "i"), axis_name="i"), axis_name="i")(x)
    np.testing.assert_array_equal(_np(shadowed), np.broadcast_to(x.sum(1, keepdims=True), x.shape))


# --- unbound names -----------------------------------------------------------------------------


def test_unbound_axis_name_is_a_name_error_before_compiling():
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.psum(1.0, "i")
    with pytest.raises(NameError, match="unbound axis name: i"):
        jit(lambda a: lax.psum(a, "i"))(X)
    with pytest.raises(NameError, match="unbound axis name: j"):
        vmap(lambda a: lax.psum(a, "j"), axis_name="i")(X)
    with pytest.raises(NameError, match="unbound axis name: i"):
        vmap(lambda a: lax.axis_index("i"))(X)
    with pytest.raises(NameError, match="unbound axis name: k"):
        vmap(lambda a: lax.all_gather(a, "k"), axis_name="i")(X)
    # The name is bound only while the vmapped function runs.
    vmap(lambda a: lax.psum(a, "i"), axis_name="i")(X)
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.pmax(jnp.ones(3), "i")


def test_axis_index_groups_unsupported():
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        vmap(lambda a: lax.psum(a, "i", axis_index_groups=[[0, 1], [2]]), axis_name="i")(X)


# --- autodiff through collectives (JAX's semantics: psum transposes to psum) -------------------

V = np.arange(3.0, dtype=np.float32)


@pytest.mark.parametrize(
    "loss,expected",
    [
        (lambda a: lax.psum(a, "i"), [3.0, 3.0, 3.0]),
        (lambda a: lax.psum(a * a, "i"), [0.0, 6.0, 12.0]),
        (lambda a: lax.pmean(a * a, "i"), [0.0, 2.0, 4.0]),
        (lambda a: jnp.sum(lax.all_gather(a, "i") * jnp.arange(3.0)), [0.0, 3.0, 6.0]),
    ],
)
def test_per_instance_gradients(loss, expected):
    g = vmap(grad(loss), axis_name="i")(V)
    np.testing.assert_allclose(_np(g), expected)
    np.testing.assert_allclose(_np(jit(vmap(grad(loss), axis_name="i"))(V)), expected)


def test_gradient_of_all_gather_sum():
    g = vmap(grad(lambda a: lax.all_gather(a, "i").sum()), axis_name="i")(V)
    np.testing.assert_allclose(_np(g), [3.0, 3.0, 3.0])


def test_gradient_through_a_vmapped_collective():
    g = grad(lambda x: jnp.sum(vmap(lambda a: a * lax.psum(a, "i"), axis_name="i")(x)))(V)
    np.testing.assert_allclose(_np(g), [6.0, 6.0, 6.0])
    g = grad(lambda x: jnp.sum(vmap(lambda a: lax.psum(a * a, "i"), axis_name="i")(x)))(V)
    np.testing.assert_allclose(_np(g), 6.0 * V)


def test_pmax_is_not_differentiable():
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'pmax'"):
        vmap(grad(lambda a: lax.pmax(a, "i")), axis_name="i")(V)
