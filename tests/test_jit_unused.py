"""jit compiles without the inputs a function never reads, as JAX's `keep_unused=False` does: a
call still keys on every input's signature, passes no buffer for the others and does not consume
a donated one; `keep_unused=True` keeps them (behaviours recorded from JAX 0.10.2)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import jit, lax


def _entry_parameters(compiled) -> int:
    """How many parameters the compiled program's entry computation takes."""
    layout = re.search(r"entry_computation_layout=\{\((.*?)\)->", compiled.as_text()).group(1)
    return layout.count("[")


def test_unused_inputs_are_left_out_of_the_executable():
    a, b = jnp.ones(3), jnp.arange(3.0)
    pruned, kept = jit(lambda a, b: b * 2), jit(lambda a, b: b * 2, keep_unused=True)
    assert _entry_parameters(pruned.lower(a, b).compile()) == 1
    assert _entry_parameters(kept.lower(a, b).compile()) == 2
    for f in (pruned, kept):
        for _ in range(2):  # the second call hits
            np.testing.assert_array_equal(np.asarray(f(a, b)), [0.0, 2.0, 4.0])
        np.testing.assert_array_equal(np.asarray(f.lower(a, b).compile()(a, b)), [0.0, 2.0, 4.0])


def test_a_deleted_unused_input_runs_and_a_donated_one_is_kept():
    # JAX 0.10.2: no error, and the donated unused array is not deleted; with keep_unused=True
    # the deleted one raises and the donated one is consumed.
    b = jnp.arange(3.0)
    for keep_unused in (False, True):
        f = jit(lambda a, b: b * 2, keep_unused=keep_unused)
        a = jnp.ones(3)
        f(a, b)
        a.delete()
        if keep_unused:
            with pytest.raises(RuntimeError, match="deleted"):
                f(a, b)
        else:
            np.testing.assert_array_equal(np.asarray(f(a, b)), [0.0, 2.0, 4.0])
        donating = jit(lambda a, b: b * 2, donate_argnums=0, keep_unused=keep_unused)
        a = jnp.ones(3)
        donating(a, b)
        assert a.is_deleted() is keep_unused
    used = jit(lambda a, b: a + b, donate_argnums=0)
    a = jnp.ones(3)
    used(a, b)
    assert a.is_deleted()


def test_the_signature_of_an_unused_input_still_keys_the_cache():
    traces = []

    @jit
    def f(a, b):
        traces.append(1)
        return b + 1

    b = jnp.ones(2)
    for a in (jnp.ones(3), jnp.ones(3), jnp.ones(3, jnp.int32), 1.0, 1.0, jnp.ones(4)):
        np.testing.assert_array_equal(np.asarray(f(a, b)), [2.0, 2.0])
    assert len(traces) == 4 and f._cache_size() == 4


def test_hits_pass_the_kept_inputs_in_order():
    scale = jnp.arange(3.0)  # a captured constant follows the kept leaves

    @jit
    def f(tree, offset, unused):
        return {"y": tree["b"] * tree["s"] * scale + offset, "n": tree["n"]}

    tree = {"a": jnp.ones(3), "b": jnp.full(3, 2.0), "n": 7, "s": 0.5, "z": jnp.zeros(3)}
    for offset in (1.0, -1.0, 1.0):  # hits after the first call
        out = f(tree, offset, jnp.ones(5))
        np.testing.assert_array_equal(np.asarray(out["y"]), np.arange(3.0) + offset)
        assert int(out["n"]) == 7
    assert f._jitted._tree_hits and f._cache_size() == 1
    g = jit(lambda a, b: b - 1)  # the flat hit table
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(g(jnp.ones(2), jnp.arange(2.0))), [-1.0, 0.0])
    h = jit(lambda a, s, b: b * s)  # the mixed hit table (a Python scalar)
    for s in (2.0, 3.0):
        np.testing.assert_array_equal(np.asarray(h(jnp.ones(2), s, jnp.ones(2))), [s, s])


def test_inputs_read_only_in_regions_or_markers_are_used():
    f = jit(lambda p, x: lax.cond(x > 0, lambda: p * 2, lambda: jnp.zeros_like(p)))
    g = jit(lambda a, b: lax.stop_gradient(a))
    x = jnp.arange(3.0)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(x, 1.0)), [0.0, 2.0, 4.0])
        np.testing.assert_array_equal(np.asarray(g(x, x)), [0.0, 1.0, 2.0])
    assert _entry_parameters(f.lower(x, 1.0).compile()) == 2
    assert _entry_parameters(g.lower(x, x).compile()) == 1


def test_a_function_reading_none_of_its_inputs():
    f = jit(lambda t: jnp.zeros(2))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f({"a": jnp.ones(3), "b": 2.0})), [0.0, 0.0])
    assert stablax.block_until_ready(f({"a": jnp.ones(3), "b": 2.0})).shape == (2,)
