"""apply_along_axis / apply_over_axes against NumPy, and the host I/O and printing helpers."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize(
    "func",
    [
        lambda v: v.sum(),
        lambda v: v[:2] * 2,
        lambda v: v[:, None] * v[None, :],
    ],
    ids=["scalar", "shorter", "outer"],
)
def test_apply_along_axis_matches_numpy(axis, func):
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    expected = np.apply_along_axis(func, axis, x)
    got = jnp.apply_along_axis(func, axis, x)
    np.testing.assert_allclose(np.asarray(got), expected)
    jitted = stablax.jit(lambda a: jnp.apply_along_axis(func, axis, a))(x)
    np.testing.assert_allclose(np.asarray(jitted), expected)


def test_apply_along_axis_passes_extra_arguments_and_checks_axis():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    got = jnp.apply_along_axis(lambda v, s, *, t: v * s + t, 1, x, 2.0, t=1.0)
    np.testing.assert_allclose(np.asarray(got), x * 2 + 1)
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.apply_along_axis(jnp.sum, 2, x)


def test_apply_over_axes_matches_numpy():
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    expected = np.apply_over_axes(np.sum, x, [0, 2])
    got = jnp.apply_over_axes(jnp.sum, x, [0, 2])
    assert got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got), expected)


def test_save_and_load_round_trip(tmp_path):
    x = jnp.arange(5.0)
    jnp.save(tmp_path / "x.npy", x)
    loaded = jnp.load(tmp_path / "x.npy")
    assert isinstance(loaded, stablax.Array)
    np.testing.assert_array_equal(np.asarray(loaded), np.arange(5.0, dtype=np.float32))
    jnp.savez(tmp_path / "xs.npz", a=x)
    with jnp.load(tmp_path / "xs.npz") as archive:
        np.testing.assert_array_equal(archive["a"], np.asarray(x))


def test_printoptions_apply_to_array_repr():
    x = jnp.asarray([1.0 / 3.0])
    with jnp.printoptions(precision=2):
        assert "0.33" in repr(x) and "0.333" not in repr(x)
    assert jnp.array_str(x).startswith("[0.333")
    assert jnp.array_repr(jnp.arange(3.0)) == "Array([0., 1., 2.], dtype=float32)"
