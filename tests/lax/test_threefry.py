"""lax.threefry2x32: the Random123 known answers from both of its implementations, the rolled
loop XLA receives on CPU, and batching."""

from __future__ import annotations

import re

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax, random
from stablax._src.lax import _threefry

U32 = np.uint32
# (key, counter, hash) from the Random123 known-answer tests for threefry2x32 with 20 rounds.
KNOWN_ANSWERS = [
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]
IMPLEMENTATIONS = {"rolled": _threefry._rolled, "unrolled": _threefry._unrolled}


@pytest.mark.parametrize("impl", IMPLEMENTATIONS.values(), ids=IMPLEMENTATIONS.keys())
@pytest.mark.parametrize("key, count, expected", KNOWN_ANSWERS)
def test_known_answers(impl, key, count, expected):
    args = [U32(key[0]), U32(key[1]), np.array([count[0]], U32), np.array([count[1]], U32)]
    got = stablax.jit(impl)(*args)
    assert [int(np.asarray(g)[0]) for g in got] == list(expected)
    eager = lax.threefry2x32(*args)  # the marker op, expanded for the default backend
    assert [int(np.asarray(g)[0]) for g in eager] == list(expected)


def test_both_implementations_agree_on_many_counters():
    rng = np.random.default_rng(0)
    k0, k1 = (U32(v) for v in rng.integers(0, 2**32, 2))
    x0, x1 = (rng.integers(0, 2**32, (4, 33)).astype(U32) for _ in range(2))
    rolled = stablax.jit(_threefry._rolled)(k0, k1, x0, x1)
    unrolled = stablax.jit(_threefry._unrolled)(k0, k1, x0, x1)
    for a, b in zip(rolled, unrolled, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.skipif(stablax.default_backend() != "cpu", reason="the rolled loop is CPU's form")
def test_cpu_programs_hash_in_a_rolled_loop():
    # One loop of four rounds, not twenty unrolled rounds copied into every consumer.
    def sample(key):
        bits = random.bernoulli(key, 0.5, (64, 32)).astype(jnp.float32)
        return [bits[i : i + 2].sum() for i in range(0, 64, 8)]

    hlo = stablax.jit(sample).lower(random.PRNGKey(0)).compile().as_text()
    assert " while(" in hlo
    assert len(re.findall(r" xor\(", hlo)) < 20


def test_batching_keys_and_counters():
    keys = np.arange(6, dtype=U32).reshape(3, 2)
    x0 = np.arange(5, dtype=U32)
    x1 = np.arange(5, 10, dtype=U32)

    def hash_with(key, a, b):
        return lax.threefry2x32(key[0], key[1], a, b)

    batched = stablax.vmap(hash_with, in_axes=(0, None, None))(keys, x0, x1)
    for row, key in enumerate(keys):
        expected = hash_with(key, x0, x1)
        for got, want in zip(batched, expected, strict=True):
            np.testing.assert_array_equal(np.asarray(got)[row], np.asarray(want))
    per_counter = stablax.vmap(hash_with, in_axes=(None, 0, 0))(keys[0], x0, x1)
    for got, want in zip(per_counter, hash_with(keys[0], x0, x1), strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_shape_and_dtype_errors():
    with pytest.raises(TypeError, match="uint32"):
        lax.threefry2x32(np.int32(0), U32(0), np.zeros(2, U32), np.zeros(2, U32))
    with pytest.raises(TypeError, match="one shape"):
        lax.threefry2x32(U32(0), U32(0), np.zeros(2, U32), np.zeros(3, U32))
