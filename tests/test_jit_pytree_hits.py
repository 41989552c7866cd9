"""jit's pytree cache-hit path (jaxlib's C++ flatten, see _src/pytree_fast.py): a hit returns what
the traced path returns, tells structures apart that differ only in containers, keys or scalar
types, and stablax's registrations (also ones made later) are mirrored into jaxlib's registry."""

from __future__ import annotations

import collections
import logging

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import tree_util

Pair = collections.namedtuple("Pair", "a b")


@tree_util.register_pytree_node_class
class Box:
    def __init__(self, value):
        self.value = value

    def tree_flatten(self):
        return (self.value,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def _double(tree, scale):
    return tree_util.tree_map(lambda x: x * scale, tree)


# (argument tree, whether the C++ table may hold it)
TREES = [
    ({"w": jnp.ones(3), "b": jnp.arange(2.0)}, True),
    ([jnp.ones(2), (jnp.ones(1), 2.0)], True),
    ((jnp.ones(2), jnp.ones(2)), True),
    (Pair(jnp.ones(2), 3), True),
    ({"n": None, "x": jnp.ones(2)}, True),
    (collections.OrderedDict(z=jnp.ones(2), a=jnp.zeros(2)), True),  # mirrored registrations
    (collections.defaultdict(int, z=jnp.ones(2), a=jnp.zeros(2)), True),
    (Box(jnp.ones(2)), True),
    ([Box(jnp.ones(2)), {"k": Box((jnp.ones(1), 1.5))}], True),
    ({"w": np.ones(2, np.float32)}, False),  # NumPy leaves: converted on each call, general path
]


@pytest.mark.parametrize("tree,fast", TREES, ids=range(len(TREES)))
def test_hit_matches_the_traced_call(tree, fast):
    f = stablax.jit(lambda t, s: _double(t, s))  # a cache of its own
    first = f(tree, 2.0)
    hits = f._jitted._tree_hits
    assert bool(hits) == fast
    second = f(tree, 2.0)  # a hit where fast
    for out in (first, second):
        assert tree_util.tree_structure(out) == tree_util.tree_structure(_double(tree, 2.0))
        for got, want in zip(tree_util.tree_leaves(out), tree_util.tree_leaves(tree)):
            np.testing.assert_array_equal(np.asarray(got), 2.0 * np.asarray(want))
    assert f._cache_size() == 1


def test_scalar_leaves_on_a_hit_take_this_calls_values():
    # The hit path converts scalar leaves after the lookup, by position among the leaves.
    f = stablax.jit(lambda t: {"p": t[0] * t[1], "q": t[3] + t[2], "r": t[4], "s": t[5] * 2})
    x = jnp.arange(3.0)
    calls = [(2.0, x, 3, x, True, 1 + 2j), (-0.5, x, -7, x, False, 0.5j), (4.0, x, 1, x, True, 3j)]
    for t in calls:
        out = f(t)
        np.testing.assert_array_equal(np.asarray(out["p"]), t[0] * np.arange(3.0))
        np.testing.assert_array_equal(np.asarray(out["q"]), np.arange(3.0) + t[2])
        assert bool(out["r"]) is t[4]
        assert complex(out["s"]) == t[5] * 2
    assert f._jitted._tree_hits and f._cache_size() == 1


def test_structures_that_share_leaves_do_not_share_entries():
    f = stablax.jit(lambda t, s: tree_util.tree_map(lambda x: x + s, t))
    x, y = jnp.ones(2), jnp.zeros(2)
    calls = [
        ([x, y], 1.0),
        ((x, y), 1.0),
        ({"a": x, "b": y}, 1.0),
        ({"a": x, "c": y}, 1.0),
        ([x, y], 1),
        ([x, y], True),
        (Pair(x, y), 1.0),
    ]
    for _ in range(2):  # the second round hits
        for tree, s in calls:
            out = f(tree, s)
            assert type(out) is type(tree)
            if isinstance(tree, dict):
                assert sorted(out) == sorted(tree)
            assert tree_util.tree_leaves(out)[0].dtype == jnp.float32
    assert f._cache_size() == len(calls)
    assert len(f._jitted._tree_hits) == len(calls)


def test_flag_change_empties_the_tree_table():
    f = stablax.jit(lambda t, s: _double(t, s))  # a cache of its own
    tree = {"w": jnp.ones(2)}
    f(tree, 2)
    assert f._jitted._tree_hits
    with stablax.enable_x64():
        assert not f._jitted._tree_hits
        assert f(tree, 2)["w"].dtype == jnp.float32  # float32 * weak int64 stays float32
    f.clear_cache()
    assert not f._jitted._tree_hits


@pytest.mark.parametrize("packed", [True, False], ids=["pytree", "flat"])
def test_a_scalar_object_seen_before_follows_flags_and_transfer_guards(caplog, packed):
    # Hits (pytree and flat) remember scalar objects' buffers by identity; flags and guards
    # still apply to them.
    x, s = jnp.ones(2), 0.5
    g = stablax.jit(lambda t: t[1]) if packed else stablax.jit(lambda a, b: b)  # the scalar

    def f():
        return g((x, s)) if packed else g(x, s)

    assert f().dtype == jnp.float32 and f().dtype == jnp.float32  # a hit, remembered
    with stablax.enable_x64():
        assert f().dtype == jnp.float64 and f().dtype == jnp.float64
    assert f().dtype == jnp.float32 and float(f()) == 0.5
    with caplog.at_level(logging.WARNING, "stablax"), stablax.transfer_guard("log"):
        f()
        f()
        caplog.clear()
        f()  # a hit: the scalar's transfer is logged on every call, as JAX does
        assert "host-to-device transfer" in caplog.text
    with stablax.transfer_guard("disallow"):
        for _ in range(3):
            with pytest.raises(Exception, match="Disallowed"):
                f()


def test_static_arguments_keep_the_general_path():
    f = stablax.jit(lambda t, s: _double(t, s), static_argnums=1)
    tree = {"w": jnp.ones(2)}
    assert float(f(tree, 2)["w"][0]) == 2.0 and float(f(tree, 3)["w"][0]) == 3.0
    assert not f._jitted._tree_hits


def test_a_class_registered_later_joins_the_fast_path():
    class Late:
        def __init__(self, x):
            self.x = x

    f = stablax.jit(lambda t: tree_util.tree_map(lambda v: v + 1, t))
    with pytest.raises(TypeError):  # not a pytree yet: an invalid leaf
        f(Late(jnp.ones(2)))
    tree_util.register_pytree_node(Late, lambda n: ((n.x,), None), lambda aux, ch: Late(*ch))
    for _ in range(2):
        out = f([Late(jnp.ones(2))])
        assert type(out[0]) is Late and float(out[0].x[0]) == 2.0
    assert len(f._jitted._tree_hits) == 1
