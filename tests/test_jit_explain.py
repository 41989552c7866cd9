"""jax_explain_cache_misses names exactly what changed (argument, path, shape, dtype, weak type,
tree structure, static value) and where the function is defined; jax_log_compiles logs every
compile after it, with its time and reason."""

from __future__ import annotations

import logging
import re

import pytest

import stablax
import stablax.numpy as jnp


def _step(x, params, scale=1.0):
    return stablax.tree_util.tree_map(lambda p: jnp.sum(x) * p * jnp.sum(scale), params)


_LINE = _step.__code__.co_firstlineno


def _ones(n, dtype=jnp.float32):
    return jnp.ones(n, dtype)


# (first call's arguments, second call's arguments, static_argnames, expected explanation)
CASES = [
    (
        "shape",
        ((_ones(3), {"w": 1.0}), {}),
        ((_ones(4), {"w": 1.0}), {}),
        (),
        "at x, now float32[4] and before float32[3]",
    ),
    (
        "dtype",
        ((_ones(3), {"w": 1.0}), {}),
        ((_ones(3, jnp.int32), {"w": 1.0}), {}),
        (),
        "at x, now int32[3] and before float32[3]",
    ),
    (
        "weak type",
        ((_ones(3), {"w": 1.0}), {}),
        ((_ones(3), {"w": jnp.float32(1.0)}), {}),
        (),
        "at params['w'], now float32[]{weak_type=False} and before float32[]{weak_type=True}",
    ),
    (
        "nested path",
        ((_ones(3), {"w": [1.0, _ones(2)]}), {}),
        ((_ones(3), {"w": [1.0, _ones(5)]}), {}),
        (),
        "at params['w'][1], now float32[5] and before float32[2]",
    ),
    (
        "tree",
        ((_ones(3), {"w": 1.0}), {}),
        ((_ones(3), {"w": 1.0, "b": 2.0}), {}),
        (),
        "at params, now {'b': *, 'w': *} and before {'w': *}",
    ),
    (
        "inner tree",
        ((_ones(3), {"w": (1.0, 2.0)}), {}),
        ((_ones(3), {"w": [1.0, 2.0]}), {}),
        (),
        "at params['w'], now list [*, *] and before tuple (*, *)",
    ),
    (
        "keyword",
        ((_ones(3), {"w": 1.0}), {"scale": 2.0}),
        ((_ones(3), {"w": 1.0}), {"scale": _ones(2)}),
        (),
        "at scale, now float32[2]{weak_type=False} and before float32[]{weak_type=True}",
    ),
    (
        "static",
        ((_ones(3), {"w": 1.0}), {"scale": 2.0}),
        ((_ones(3), {"w": 1.0}), {"scale": 3.0}),
        ("scale",),
        "static argument scale: now 3.0 and before 2.0",
    ),
]


@pytest.mark.parametrize("name,first,second,static,expected", CASES, ids=[c[0] for c in CASES])
def test_explain_names_what_changed(caplog, name, first, second, static, expected):
    f = stablax.jit(_step, static_argnames=static) if static else stablax.jit(_step)
    f.clear_cache()
    with stablax.explain_cache_misses():
        f(*first[0], **first[1])
        with caplog.at_level(logging.WARNING, "stablax"):
            caplog.clear()
            f(*second[0], **second[1])
    messages = [r.getMessage() for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    assert len(messages) == 1, caplog.text
    assert f"jit(_step defined at {__file__}:{_LINE})" in messages[0]
    assert expected in messages[0], messages[0]


def test_explain_first_trace_and_no_message_on_hit(caplog):
    f = stablax.jit(lambda x: x + 1)
    with stablax.explain_cache_misses(), caplog.at_level(logging.WARNING, "stablax"):
        f(_ones(2))
        f(_ones(2))
    misses = [r for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    assert len(misses) == 1 and "never seen function" in misses[0].getMessage()


def test_explain_prefers_the_trace_with_the_same_tree(caplog):
    f = stablax.jit(_step)
    with stablax.explain_cache_misses():
        f(_ones(3), {"w": 1.0})
        f(_ones(3), {"w": 1.0, "b": 1.0})
        with caplog.at_level(logging.WARNING, "stablax"):
            f(_ones(6), {"w": 1.0})
    assert "at x, now float32[6] and before float32[3]" in caplog.text


def test_log_compiles_after_each_compile_with_reason_and_time(caplog):
    f = stablax.jit(lambda x: x * 5.75 - 1.25)  # a program no other test compiles
    x13, x17 = jnp.ones(13), jnp.ones(17)
    with stablax.log_compiles(), caplog.at_level(logging.WARNING, "stablax"):
        f(x13)
        f(x13)  # a hit: no compile
        f(x17)
    logged = [r.getMessage() for r in caplog.records]
    compiles = [m for m in logged if re.search(r"(compilation|persistent compilation cache)", m)]
    assert len(compiles) == 2, logged
    assert all(re.search(r" in \d+\.\d{4} s because ", m) for m in compiles), compiles
    assert "never seen function" in compiles[0]
    assert "at x, now float32[17] and before float32[13]" in compiles[1]
