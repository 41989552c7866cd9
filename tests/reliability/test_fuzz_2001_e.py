"""Findings of the seed-2001 comparison fuzz in set, split and indexing functions, one row each,
with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception class).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, check_result_type

_I = jnp.array([3, 1, 2, 1])

_FINDINGS = [
    # setdiff1d: assume_unique keeps ar1's order; size pads with zeros when no fill_value.
    ("setdiff1d assume_unique order", lambda: jnp.setdiff1d(_I, 5, True), [3, 1, 2, 1]),
    (
        "setdiff1d assume_unique size",
        lambda: jnp.setdiff1d(_I, 1, True, size=4, fill_value=9),
        [3, 2, 9, 9],
    ),
    ("setdiff1d size pads zeros", lambda: jnp.setdiff1d(_I, 1, size=4), [2, 3, 0, 0]),
    ("setdiff1d empty result pads zeros", lambda: jnp.setdiff1d(_I, _I, size=2), [0, 0]),
    ("setdiff1d empty ar1 pads zeros", lambda: jnp.setdiff1d(_I[:0], 1, size=2), [0, 0]),
    (
        "setdiff1d fill_value not scalar",
        lambda: jnp.setdiff1d(_I, 1, size=0, fill_value=jnp.ones(1)),
        ValueError,
    ),
    (
        "setdiff1d traced ar1 without size",
        lambda: stablax.jit(lambda x: jnp.setdiff1d(x, 3.0))(jnp.zeros((2, 0), "uint8")),
        stablax.errors.ConcretizationTypeError,
    ),
    # split: a float count of sections is read with int(), as JAX and NumPy.
    ("split 1.5 sections", lambda: len(jnp.split(jnp.zeros((3, 1)), 1.5)), 1),
    ("split 2.0 sections", lambda: [p.shape for p in jnp.split(jnp.zeros(4), 2.0)], [[2], [2]]),
    ("split 2.5 sections of 3", lambda: jnp.split(jnp.zeros(3), 2.5), ValueError),
    ("dsplit 1.5 sections", lambda: len(jnp.dsplit(jnp.zeros((1, 2, 0)), 1.5)), 1),
    # arange: bool results are refused (iota makes numbers only); empty ranges of huge ints.
    ("arange bool dtype", lambda: jnp.arange(1, step=5, dtype=jnp.bool_), TypeError),
    ("arange of bools", lambda: jnp.arange(True, True, True), TypeError),
    ("arange of a numpy bool", lambda: jnp.arange(np.bool_(True)), TypeError),
    ("arange empty past int64", lambda: jnp.arange(2**63, 5), []),
    ("arange empty huge bounds", lambda: jnp.arange(2**63, stop=2**63), []),
    # delete: one index out of bounds is JAX's ValueError; an object for obj its TypeError.
    ("delete scalar index out of bounds", lambda: jnp.delete(3, 3), ValueError),
    ("delete 0-d index out of bounds", lambda: jnp.delete(_I, jnp.int8(-5)), ValueError),
    ("delete object obj", lambda: jnp.delete(-1j, object()), TypeError),
    ("delete index array out of bounds", lambda: jnp.delete(_I, jnp.array([5])), IndexError),
    ("delete negative index", lambda: jnp.delete(_I, -4), [1, 2, 1]),
    # place: every argument is an array first; no values to place is an error, as JAX.
    ("place object vals", lambda: jnp.place(jnp.ones(3), 0.5, object()), TypeError),
    (
        "place from nothing",
        lambda: jnp.place(jnp.ones((0, 0)), jnp.ones((0, 0)), jnp.ones((0, 0)), inplace=False),
        ValueError,
    ),
    (
        "place from an empty array",
        lambda: jnp.place(jnp.ones(3), jnp.array([1, 0, 1]), jnp.array([]), inplace=False),
        ValueError,
    ),
    # block: None is no block (JAX's ValueError).
    ("block of None", lambda: jnp.block([jnp.ones((2, 1)), None]), ValueError),
    # dstack/concatenate with a dtype: each array converted, no promotion, then the ranks.
    (
        "dstack ranks before promotion",
        lambda: jnp.dstack((jnp.ones(3, "int8"), jnp.zeros((2, 2, 1, 2), "uint4")), dtype="uint8"),
        TypeError,
    ),
    (
        "concatenate uint4 and int8 with a dtype",
        lambda: jnp.concatenate([jnp.ones(1, "uint4"), jnp.ones(1, "int8")], dtype="float32"),
        [1.0, 1.0],
    ),
]

_TYPES = [
    (
        "setdiff1d weak ar1 with size",
        lambda: jnp.setdiff1d(3.0, 1, size=2),
        [3.0, 0.0],
        "float32",
        True,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_e_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_e_finding(name, call, expected):
    check_finding(call, expected)
