"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`), one row
each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception
class), and (id, call, value, dtype, weak type) where the result's type is the finding.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type, under_x64


def _pair(c, x=None):
    return c, x


_FINDINGS = [
    # reduce_window checks init_value's tree against the operand's first (JAX's ValueError).
    (
        "reduce_window nested list init_value",
        lambda: lax.reduce_window(jnp.ones((1, 2), "int32"), [[2, -2]], lax.add, (1, 2)),
        ValueError,
    ),
    (
        "reduce_window nested list init_value, non-monoid computation",
        lambda: lax.reduce_window(jnp.ones((1, 1)), [[0.0]], lambda a, b: a, (1, 1)),
        ValueError,
    ),
    (
        "reduce_window None init_value",
        lambda: lax.reduce_window(jnp.ones(2), None, lax.add, (1,)),
        ValueError,
    ),
    (
        "reduce_window scalar init_value still reduces",
        lambda: lax.reduce_window(jnp.ones(3), 0.0, lax.add, (2,)),
        [2.0, 2.0],
    ),
    # scan refuses a negative unroll, after tracing the body (JAX's ValueError).
    (
        "scan negative unroll under jit",
        lambda: stablax.jit(lambda: lax.scan(_pair, True, length=-3, reverse=True, unroll=-3))(),
        ValueError,
    ),
    ("scan negative unroll", lambda: lax.scan(_pair, 0.0, length=2, unroll=-1), ValueError),
    (
        "scan unroll 0",
        lambda: lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0), unroll=0)[0],
        3.0,
    ),
    # conv: a bad precision before the missing feature dimension of rank < 2 operands, and the
    # shapes before the dtypes (JAX's shape rule runs before its dtype rule).
    (
        "conv rank 0 bogus precision",
        lambda: lax.conv(jnp.float32(1), jnp.int8(4), (), "SAME", precision="bogus"),
        ValueError,
    ),
    (
        "conv rank 0 bogus preferred type",
        lambda: lax.conv(
            jnp.float32(1), jnp.float32(4), (), "SAME", preferred_element_type="bogus"
        ),
        TypeError,
    ),
    (
        "conv features mismatch before dtypes",
        under_x64(lambda: lax.conv(jnp.zeros((4, 0), "float16"), jnp.ones((2, 1)), (), "SAME")),
        ValueError,
    ),
    (
        "conv feature groups before dtypes",
        lambda: lax.conv_general_dilated(
            jnp.ones((4, 2, 3), "float16"),
            jnp.ones((2, 1, 1)),
            (1,),
            "VALID",
            feature_group_count=3,
        ),
        ValueError,
    ),
    (
        "conv dtypes differ",
        lambda: lax.conv(jnp.ones((4, 1), "float16"), jnp.ones((2, 1)), (), "SAME"),
        TypeError,
    ),
    (
        "conv rank 4 bogus precision",
        lambda: lax.conv(
            jnp.ones((1, 1, 2, 2)), jnp.ones((1, 1, 1, 1)), (1, 1), "SAME", precision="bogus"
        ),
        ValueError,
    ),
]

_TYPES = [
    # RFFT converts any real input to its inexact type, uint4 too (float32), as JAX.
    (
        "rfft of a uint4 scalar, no lengths",
        under_x64(lambda: stablax.jit(lambda: lax.fft(np.zeros((), "uint4"), "RFFT", ()))()),
        0.0,
        "float32",
        False,
    ),
    (
        "rfft of an int4 vector",
        lambda: lax.fft(jnp.ones(2, "int4"), "RFFT", (2,)),
        [2 + 0j, 0j],
        "complex64",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_j_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_j_finding(name, call, expected):
    check_finding(call, expected)
