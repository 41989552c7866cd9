"""Findings in jnp functions of the seed-2001 comparison fuzz (`fuzz_runner --calls 100000
--seed 2001 --compare-jax`, report findings-g2), one row each, with JAX 0.10.2's answer (or
NumPy's, where JAX's is an artefact) as the expected outcome: (id, call, expected value or
exception class), and (id, call, value, dtype, weak) where the result type is the finding.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, check_result_type, under_x64

_FINDINGS = [
    # cov checks the weights as JAX does: fweights integer, 1-D, one per observation, after m
    # and y have been promoted; negative weights count by their magnitude.
    ("cov float fweights", lambda: jnp.cov(jnp.arange(3.0), fweights=jnp.ones(3)), TypeError),
    (
        "cov bfloat16 fweights",
        lambda: jnp.cov(jnp.ones(3), fweights=jnp.ones(3, jnp.bfloat16), ddof=0),
        TypeError,
    ),
    (
        "cov 2-D aweights",
        lambda: jnp.cov(jnp.arange(3.0), aweights=jnp.ones((1, 3))),
        ValueError,  # NumPy and JAX: RuntimeError
    ),
    ("cov aweights too many", lambda: jnp.cov(jnp.arange(3.0), aweights=jnp.ones(4)), ValueError),
    (
        "cov promotes m and y before reading a list of aweights",
        lambda: jnp.cov(
            jnp.ones((2, 2), ml_dtypes.float8_e5m2),
            y=np.ones((), ml_dtypes.bfloat16),
            aweights=[[1.0, 2.0]],
        ),
        stablax.dtypes.TypePromotionError,
    ),
    (
        "cov 0-d fweights",
        lambda: jnp.cov(jnp.arange(3.0), fweights=jnp.array(2)),
        ValueError,  # JAX: IndexError from its shape lookup
    ),
    ("cov list fweights", lambda: jnp.cov(jnp.arange(3.0), fweights=[1, 2, 3]), TypeError),
    (
        "cov no observations, weights unread",
        lambda: (
            jnp.cov(jnp.zeros((0, 4), int), rowvar=False, fweights=jnp.zeros((0, 4), int)).shape
        ),
        [4, 4],
    ),
    ("cov rowvar=False of one row", lambda: jnp.cov(jnp.ones((1, 3)), rowvar=False).shape, [3, 3]),
    # fromfunction: a negative size is refused (JAX gives an empty axis; NumPy refuses it).
    ("fromfunction negative size", lambda: jnp.fromfunction(jnp.add, (-1, 2)), TypeError),
    # fftfreq/rfftfreq of a non-integer n: refused, as NumPy (JAX takes arange(1.5)).
    ("fftfreq float n", lambda: jnp.fft.fftfreq(1.5, d=2), TypeError),
    ("rfftfreq float n", lambda: jnp.fft.rfftfreq(1.5), TypeError),
    ("fftfreq 0-d integer array n", lambda: jnp.fft.fftfreq(jnp.array(4)), [0, 0.25, -0.5, -0.25]),
    # partition: the first kth + 1 ascending, the rest descending, as JAX's top_k halves.
    (
        "partition int8",
        lambda: jnp.partition(jnp.array([4, -2, -1, 2, 2], jnp.int8), 2, axis=0),
        [-2, -1, 2, 4, 2],
    ),
    ("partition kth 0", lambda: jnp.partition(jnp.array([3.0, 1, 2, 5]), 0), [1, 5, 3, 2]),
    (
        "partition axis 0 of 2-D",
        lambda: jnp.partition(jnp.array([[3, 0], [1, 2], [2, 1], [0, 3]]), -3, axis=0),
        [[0, 0], [1, 1], [3, 3], [2, 2]],
    ),
    # pow of a Python int base that does not fit its integer type: OverflowError, as every
    # other jnp function (JAX's integer_pow path wraps it).
    ("pow Python int over int32", lambda: jnp.pow(2**40, 2), OverflowError),
    ("pow Python int over int64", under_x64(lambda: jnp.pow(2**63, 2**63)), OverflowError),
    ("pow Python int that fits", under_x64(lambda: jnp.pow(2**40, 2)), 0),
    ("partition bool kth", lambda: jnp.partition(jnp.arange(3), True), TypeError),  # as NumPy
    # array_repr of NumPy values is NumPy's (JAX's array_repr is NumPy's).
    (
        "array_repr NumPy float16 scalar",
        lambda: jnp.array_repr(np.float16(0.8833)),
        "float16(0.8833, dtype=float16)",
    ),
    ("array_repr NumPy array", lambda: jnp.array_repr(np.array([1.0, 2.0])), "array([1., 2.])"),
    (
        "array_repr stablax array",
        lambda: jnp.array_repr(jnp.arange(2.0)),
        "Array([0., 1.], dtype=float32)",
    ),
]

_TYPES = [
    (
        "cov bias=None is a bias",
        lambda: jnp.cov(np.array([7, 4, 0], np.uint16), bias=None),
        8.222222328186035,
        "float32",
        False,
    ),
    (
        "cov negative fweights",
        lambda: jnp.cov(jnp.arange(3.0), fweights=jnp.array([1, -2, 3])),
        0.6666666865348816,
        "float32",
        False,
    ),
    (
        "cov negative aweights",
        lambda: jnp.cov(jnp.arange(3.0), aweights=jnp.array([1.0, -2.0, 3.0])),
        0.9090909361839294,
        "float32",
        False,
    ),
    (
        "cov weights widen the result",
        lambda: jnp.cov(
            jnp.arange(3, dtype=jnp.float16), aweights=jnp.arange(3.0), dtype=jnp.float16
        ),
        0.4998779296875,
        "float32",
        False,
    ),
    # unwrap of no elements along the axis returns the promoted input as it is (weak here).
    (
        "unwrap empty ints, Python period",
        lambda: jnp.unwrap(jnp.zeros((0, 0), int), axis=0, period=1.0),
        [],
        "float32",
        True,
    ),
    (
        "unwrap empty ints under vmap",
        lambda: stablax.vmap(lambda x: jnp.unwrap(x, axis=0, period=0.0))(jnp.zeros((1, 0), int)),
        [[]],
        "float32",
        True,
    ),
    (
        "unwrap one element",
        lambda: jnp.unwrap(jnp.zeros(1, int), period=1.0),
        [0.0],
        "float32",
        False,
    ),
    # heaviside: JAX's 0 and 1 are weak only beside a 0-d weak x1.
    (
        "heaviside int8 array, Python float",
        lambda: jnp.heaviside(jnp.array([3, 0, -3], jnp.int8), 0.0),
        [1.0, 0.0, 0.0],
        "float32",
        False,
    ),
    (
        "heaviside Python x1, int array x2",
        lambda: jnp.heaviside(0.0, jnp.array([1, 2])),
        [1.0, 2.0],
        "float32",
        True,
    ),
    (
        "heaviside 0-d int, Python float",
        lambda: jnp.heaviside(jnp.array(0), 0.5),
        0.5,
        "float32",
        True,
    ),
    # fromfunction with dtype=None: arange's default for integer sizes.
    (
        "fromfunction dtype=None",
        lambda: jnp.fromfunction(lambda x: x * 2, (3,), dtype=None),
        [0, 2, 4],
        "int32",
        False,
    ),
    (
        "fromfunction dtype=None x64",
        under_x64(lambda: jnp.fromfunction(lambda x, y: x + y, (2, 2), dtype=None)),
        [[0, 1], [1, 2]],
        "int64",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_jnp_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_jnp_finding(name, call, expected):
    check_finding(call, expected)
