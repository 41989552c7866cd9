"""Findings of the seed-2001 comparison fuzz (`fuzz_runner --seed 2001 --compare-jax`) in the
polynomial, numeric and statistics functions, one row each, with JAX 0.10.2's answer as the
expected outcome: (id, call, expected value or exception class), and (id, call, value, dtype,
weak type) where the result's type is the finding.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, check_result_type

_FINDINGS = [
    # polyadd/polysub follow `longer.at[-k:].add(shorter)`: an empty longer polynomial comes
    # back unchecked, an empty shorter one must broadcast into all of the longer one, and
    # scatter-add refuses bool.
    (
        "polyadd empty longer, unbroadcastable shorter",
        lambda: jnp.polyadd(jnp.zeros((3, 0), "int16"), jnp.zeros((1, 2), "int32")).shape,
        [3, 0],
    ),
    (
        "polysub empty longer of lower rank",
        lambda: jnp.polysub(jnp.zeros((0, 3, 0), "int16"), jnp.zeros((3, 0), "int16")).shape,
        [3, 0],
    ),
    ("polyadd empty shorter", lambda: jnp.polyadd(jnp.ones(3), jnp.zeros(0)), ValueError),
    (
        "polysub empty shorter under vmap",
        lambda: stablax.vmap(lambda x: jnp.polysub(x, jnp.zeros(0)))(jnp.zeros((0, 3))),
        ValueError,
    ),
    ("polyadd bool", lambda: jnp.polyadd(jnp.array([True, False]), jnp.array([True])), TypeError),
    ("polyadd empty bool", lambda: jnp.polyadd(jnp.zeros(0, bool), jnp.zeros(0, bool)), []),
    ("polysub empty bool", lambda: jnp.polysub(jnp.zeros(0, bool), jnp.zeros(0, bool)), TypeError),
    # polyfit: JAX's checks of x, the weights and the covariance's data count.
    ("polyfit empty x", lambda: jnp.polyfit(jnp.zeros(0), jnp.zeros(0), 0, rcond=0), TypeError),
    (
        "polyfit 3-D weights",
        lambda: jnp.polyfit(jnp.arange(3.0), jnp.arange(3.0), 1, w=jnp.ones((1, 1, 1))),
        TypeError,
    ),
    (
        "polyfit short weights",
        lambda: jnp.polyfit(jnp.arange(3.0), jnp.arange(3.0), 1, w=jnp.ones(2)),
        TypeError,
    ),
    (
        "polyfit scaled cov of too few points",
        lambda: jnp.polyfit(jnp.arange(2.0), jnp.arange(2.0), 1, cov=True),
        ValueError,
    ),
    # array_equal of None: JAX's ValueError from its asarray.
    ("array_equal of None", lambda: jnp.array_equal(None, jnp.ones(2)), ValueError),
    # divmod of 4-bit integers floors as the wider ones; a traced Python int wraps into uint64.
    (
        "divmod int4",
        lambda: jnp.divmod(jnp.array([-7, 7], "int4"), jnp.array([2, -2], "int4")),
        ([-4, -4], [1, -1]),
    ),
    (
        "divmod uint4",
        lambda: jnp.divmod(jnp.array([3, 5], "uint4"), jnp.array([2, 1], "uint4")),
        ([1, 5], [1, 0]),
    ),
    (
        "negative Python int into uint8 under vmap",
        lambda: stablax.vmap(lambda x: jnp.divmod(-1, x))(jnp.array([3, 7], "uint8")),
        ([85, 36], [0, 3]),
    ),
    # isclose: equal elements are close whatever the tolerances, as JAX and NumPy.
    (
        "isclose negative atol",
        lambda: jnp.isclose(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.5]), atol=-1.0),
        [True, False],
    ),
    ("isclose infinite a, infinite atol", lambda: jnp.isclose(np.inf, 1.0, atol=np.inf), True),
    # logspace of exact powers into integers: NumPy's exact values (JAX's XLA pow gives 99999).
    ("logspace int32 exact", lambda: jnp.logspace(5, 5, 3, dtype=jnp.int32), [100000] * 3),
]

_TYPES = [
    ("exp2 of a Python complex is weak", lambda: jnp.exp2(0j), 1 + 0j, "complex64", True),
    (
        "polyadd empty longer promotes",
        lambda: jnp.polyadd(jnp.zeros((3, 0), "uint32"), jnp.zeros((1, 2), "int32")),
        [[], [], []],
        "int32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_f_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_f_finding(name, call, expected):
    check_finding(call, expected)
