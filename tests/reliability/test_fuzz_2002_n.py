"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`), one row
each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception
class).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import stablax
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, under_x64

_ONE = np.ones(1, "float64")
_SIZES = np.ones(1, "int32")

_FINDINGS = [
    # ragged_dot checks the precision first, as JAX's ragged_dot (then out_sharding).
    (
        "ragged_dot bad precision before float group sizes",
        lambda: lax.ragged_dot(_ONE, _ONE, _ONE, precision=3),
        ValueError,
    ),
    (
        "ragged_dot bad precision before out_sharding",
        lambda: lax.ragged_dot(_ONE, _ONE, _SIZES, precision=3, out_sharding=1.5),
        ValueError,
    ),
    (
        "ragged_dot bad precision under jit",
        lambda: stablax.jit(lambda a, g: lax.ragged_dot(a, a, g, precision=3))(_ONE, _ONE),
        ValueError,
    ),
    # ragged_dot_general refuses any out_sharding before the precision (JAX's TypeError for a
    # value that is no sharding: rule out-sharding-unsupported).
    (
        "ragged_dot_general out_sharding before a bad precision",
        lambda: lax.ragged_dot_general(
            _ONE.reshape(1, 1),
            _ONE.reshape(1, 1, 1),
            _SIZES,
            lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0]),
            precision=3,
            out_sharding=1.5,
        ),
        NotImplementedError,
    ),
    (
        "ragged_dot precision name",
        lambda: lax.ragged_dot(
            np.ones((2, 1), "float32"), np.ones((1, 1, 1), "float32"), _SIZES, precision="highest"
        ),
        [[1.0], [0.0]],
    ),  # betainc of float8 is computed in float32: I_0(a, b) = 0 (JAX's float8 loop gives NaN:
    # rule betainc-float8-precision).
    (
        "betainc float8 at x = 0",
        under_x64(
            lambda: lax.betainc(*(np.array(v, ml_dtypes.float8_e4m3fn) for v in (1.125, 0.5625, 0)))
        ),
        0.0,
    ),
    # A Python scalar b adopts a's float16 (JAX: TypeError, rule lax-python-scalars), so the
    # derivative in a meets betainc's own refusal.
    (
        "betainc grad in a with a Python scalar b",
        lambda: stablax.grad(lambda a: lax.betainc(a, 1.5, np.float16(0.5)))(np.float16(1.4)),
        ValueError,
    ),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_n_finding(name, call, expected):
    check_finding(call, expected)
