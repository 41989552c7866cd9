"""More findings of the comparison fuzz with seed 2001 (report findings-g3: lax.cumlogsumexp,
lax.fft, lax.split, jnp.compress, jnp.nanargmax/nanargmin), one row each, with JAX 0.10.2's
answer as the expected outcome: (id, call, expected value or exception class), and a typed
table (id, call, value, dtype, weak).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type


def _c64(*values):
    return np.array(values, np.complex64)


def _irfft_zero(x):
    return lax.fft(x, "IRFFT", (3, 0))


_FINDINGS = [
    # lax.cumlogsumexp takes any number dtype (bool is not one); integers only along an empty
    # axis (JAX has no -inf to start their windows from); complex wraps its phase into [-pi, pi].
    ("cumlogsumexp bool", lambda: lax.cumlogsumexp(np.zeros((2, 0), bool), axis=1), TypeError),
    ("cumlogsumexp int non-empty", lambda: lax.cumlogsumexp(np.ones(3, np.int32)), TypeError),
    ("cumlogsumexp complex one element", lambda: lax.cumlogsumexp(_c64(1 + 4j)), [1 - 2.2831852j]),
    (
        "cumlogsumexp complex",
        lambda: lax.cumlogsumexp(np.ones((2, 2), np.complex64), axis=1),
        [[1 + 0j, 1.6931471824645996 + 0j]] * 2,
    ),
    # lax.fft: the type first (TypeError unless an FftType or its name), then RFFT's real input,
    # then fft_lengths; IRFFT to zero samples is an empty result.
    ("fft RFFT complex before lengths", lambda: lax.fft(1 + 2j, "RFFT", None), ValueError),
    ("fft type None", lambda: lax.fft(np.zeros((4, 3, 1)), None, (4, 3, 1)), TypeError),
    ("fft type int", lambda: lax.fft(np.zeros((2, 0, 2)), 3, (0, 3)), TypeError),
    ("fft type mixed case", lambda: lax.fft(np.zeros(3), "Fft", (3,)), ValueError),
    ("fft IRFFT zero length, 1 wide", lambda: _irfft_zero(np.zeros((3, 1))), [[]] * 3),
    ("fft IRFFT zero length, 5 wide", lambda: _irfft_zero(np.zeros((3, 5))), ValueError),
    ("fft RFFT zero length", lambda: lax.fft(np.zeros((3, 0)), "RFFT", (3, 0)), ValueError),
    # lax.split: sizes must be a sequence (iterable before the axis check, integers after it).
    ("split int sizes", lambda: lax.split(jnp.ones(3), 3), TypeError),
    ("split int sizes, bad axis", lambda: lax.split(jnp.ones(3), 3, axis=5), TypeError),
    ("split float sizes, bad axis", lambda: lax.split(False, (1.5,), axis=0), ValueError),
    (
        "split int sizes under jit",
        lambda: stablax.jit(lambda x: lax.split(x, 3))(jnp.ones(5, jnp.complex64)),
        TypeError,
    ),
    # jnp.compress checks its three array arguments first, then out, then the condition's rank.
    (
        "compress object fill_value before condition rank",
        lambda: jnp.compress(jnp.ones((3, 1)), jnp.ones((1, 4)), axis=1, fill_value=object()),
        TypeError,
    ),
    (
        "compress string a before out",
        lambda: jnp.compress(jnp.ones(0, jnp.uint8), "a", axis=-2, size=3, out="a"),
        TypeError,
    ),
    ("compress list condition", lambda: jnp.compress([True, False], jnp.ones(2)), TypeError),
    # jnp.nanargmax/nanargmin of complex: an empty axis raises ValueError, an empty result is an
    # empty index array, anything else is a TypeError; argmax checks the empty axis first too.
    (
        "nanargmax complex empty axis",
        lambda: jnp.nanargmax(np.zeros((0, 3, 0), np.complex64), axis=0),
        ValueError,
    ),
    (
        "nanargmax complex flattened empty",
        lambda: jnp.nanargmax(np.zeros((1, 2, 0, 0, 2, 2), np.complex64), keepdims=True),
        ValueError,
    ),
    ("nanargmax complex", lambda: jnp.nanargmax(np.ones((2, 3), np.complex64), axis=0), TypeError),
    ("argmax complex empty axis", lambda: jnp.argmax(np.zeros((0, 3), "complex64"), 0), ValueError),
    ("argmax complex, empty result", lambda: jnp.argmax(np.zeros((4, 0), "c8"), 0), TypeError),
]

_TYPES = [
    (
        "cumlogsumexp uint32 empty axis",
        lambda: stablax.jit(lambda x: lax.cumlogsumexp(x, axis=1))(jnp.zeros((1, 0), jnp.uint32)),
        [[]],
        "uint32",
        False,
    ),
    (
        "cumlogsumexp complex64 empty axis",
        lambda: lax.cumlogsumexp(np.zeros((5, 0, 0), np.complex64), axis=2),
        [[]] * 5,
        "complex64",
        False,
    ),
    (
        "fft IRFFT zero length of int8",
        lambda: stablax.jit(lambda: lax.fft(np.zeros((3, 0), np.int8), "IRFFT", (3, 0)))(),
        [[]] * 3,
        "float32",
        False,
    ),
    (
        "fft IRFFT zero length under vmap",
        lambda: stablax.vmap(_irfft_zero)(jnp.zeros((2, 3, 0), jnp.complex64)),
        [[[]] * 3] * 2,
        "float32",
        False,
    ),
    (
        "compress fill_value widens the slices",
        lambda: jnp.compress(
            jnp.array([1, 0, 1]),
            jnp.arange(6).reshape(2, 1, 3),
            axis=-1,
            size=3,
            fill_value=jnp.array([7, 8]),
        ),
        [[[0, 2, 7], [0, 2, 8]], [[3, 5, 7], [3, 5, 8]]],
        "int32",
        False,
    ),
    (
        "nanargmax complex empty result",
        lambda: jnp.nanargmax(np.zeros((4, 3, 0), np.complex64), axis=0, keepdims=True),
        [[[], [], []]],
        "int32",
        False,
    ),
    (
        "nanargmin complex empty result under jit",
        lambda: stablax.jit(lambda x: jnp.nanargmin(x, axis=1))(jnp.zeros((0, 3), jnp.complex64)),
        [],
        "int32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_more_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_more_finding(name, call, expected):
    check_finding(call, expected, rtol=1e-6)
