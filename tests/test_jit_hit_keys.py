"""jit's table for calls of Arrays, scalars and plain dicts of them (_src/jit_hit_keys.py): keyed by
each dict's keys in insertion order, its hits give the traced call's values with the leaves in
flattening (sorted-key) order, and anything else keeps the pytree or general path."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp


def _weighted(params, x):
    # Each parameter scaled by its position in sorted-key order: a wrong order shows.
    return {k: params[k] * x + i for i, k in enumerate(sorted(params))}


def _expected(params, x):
    return {k: np.asarray(params[k]) * np.asarray(x) + i for i, k in enumerate(sorted(params))}


def _check(out, want):
    assert sorted(out) == sorted(want)
    for k in want:
        np.testing.assert_allclose(np.asarray(out[k]), want[k], rtol=1e-6)


def test_a_hit_puts_the_leaves_in_sorted_key_order():
    f = stablax.jit(_weighted)
    params = {"b": jnp.arange(3.0), "a": jnp.ones(3), "c": jnp.full(3, 5.0), "a0": jnp.zeros(3)}
    x = jnp.arange(1.0, 4.0)
    for _ in range(3):
        _check(f(params, x), _expected(params, x))
    assert len(f._jitted._dict_hits) == 1 and f._cache_size() == 1
    # The same keys inserted in another order: the pytree path's hit, the same values.
    reordered = {k: params[k] for k in ("c", "a0", "b", "a")}
    _check(f(reordered, x), _expected(params, x))
    assert f._cache_size() == 1


def test_keys_shapes_and_scalar_types_key_separate_entries():
    f = stablax.jit(lambda p, s: {k: v * s for k, v in p.items()})
    x, y = jnp.ones(2), jnp.arange(2.0)
    calls = [
        ({"a": x, "b": y}, 2.0),
        ({"a": x, "c": y}, 2.0),
        ({"a": x, "b": jnp.ones(3)}, 2.0),
        ({"a": x, "b": y.astype(jnp.int32)}, 2.0),
        ({"a": x, "b": y}, 2),
        ({"a": x, "b": 3}, 2.0),
        ({"a": x, "b": 3.0}, 2.0),
    ]
    for _ in range(2):  # the second round hits
        for p, s in calls:
            out = f(p, s)
            for k, v in p.items():
                want = np.asarray(v) * s
                assert out[k].dtype == jnp.result_type(v, s), (p, s)
                np.testing.assert_allclose(np.asarray(out[k]), want)
    assert f._cache_size() == len(calls)
    assert len(f._jitted._dict_hits) == len(calls)


def test_weak_types_of_scalar_values_follow_jax():
    # A Python float in a dict stays weakly typed on a hit: float32 * weak float is float32.
    f = stablax.jit(lambda p: p["w"] * p["s"])
    for s in (2.0, 3.0, 0.5):
        out = f({"w": jnp.ones(2, jnp.float32), "s": s})
        assert out.dtype == jnp.float32 and not out.weak_type
        np.testing.assert_array_equal(np.asarray(out), np.full(2, s, np.float32))
    out = f({"s": 2.0, "w": jnp.ones(2, jnp.bfloat16)})
    assert out.dtype == jnp.bfloat16


def test_unused_parameters_are_dropped_after_the_reordering():
    f = stablax.jit(lambda p, x: p["m"] * x + p["b"])  # reads two of four, not in insertion order
    params = {"z": jnp.ones(2), "m": jnp.full(2, 3.0), "a": jnp.zeros(2), "b": jnp.arange(2.0)}
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(params, jnp.full(2, 2.0))), [6.0, 7.0])
    assert f._jitted._dict_hits


@pytest.mark.parametrize(
    "params",
    [
        {"inner": {"w": jnp.ones(2)}, "b": jnp.ones(2)},  # nested dict
        {"w": jnp.ones(2), "n": None},  # None is an empty node, not a leaf
        {"w": jnp.ones(2), "l": [jnp.ones(2)]},
    ],
    ids=["nested", "none", "list"],
)
def test_other_trees_keep_the_pytree_path(params):
    f = stablax.jit(lambda p: stablax.tree_util.tree_map(lambda v: v * 2, p))
    for _ in range(2):
        out = f(params)
        assert stablax.tree_util.tree_structure(out) == stablax.tree_util.tree_structure(params)
        for got, want in zip(
            stablax.tree_util.tree_leaves(out), stablax.tree_util.tree_leaves(params), strict=True
        ):
            np.testing.assert_array_equal(np.asarray(got), 2 * np.asarray(want))
    assert f._jitted._tree_hits and not f._jitted._dict_hits


def test_a_donating_entry_is_not_filed_and_still_donates():
    f = stablax.jit(lambda p, x: {k: v + x for k, v in p.items()}, donate_argnums=0)
    x = jnp.ones(2)
    for _ in range(2):
        params = {"b": jnp.arange(2.0), "a": jnp.zeros(2)}
        out = f(params, x)
        np.testing.assert_array_equal(np.asarray(out["b"]), [1.0, 2.0])
        assert all(v.is_deleted() for v in params.values())
    assert not f._jitted._dict_hits


def test_a_flag_change_and_clear_cache_empty_the_table():
    f = stablax.jit(lambda p, s: p["w"] * s)
    params = {"w": jnp.ones(2)}
    f(params, 2)
    assert f._jitted._dict_hits
    with stablax.enable_x64():
        assert not f._jitted._dict_hits
        assert f(params, 2).dtype == jnp.float32
    f(params, 2)
    f.clear_cache()
    assert not f._jitted._dict_hits


def test_a_deleted_parameter_is_reported_on_a_hit():
    f = stablax.jit(lambda p: p["a"] + p["b"])
    params = {"b": jnp.ones(2), "a": jnp.ones(2)}
    f(params)
    params["b"].delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(params)
