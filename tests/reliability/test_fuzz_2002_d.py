"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --compare-jax`) in lax.complex,
lax.reduce, lax.linalg.tridiagonal, lax.full_like, lax.argmin and
lax.conv_transpose_shape_tuple, one row each, with JAX 0.10.2's answer as the expected outcome:
(id, call, expected value or exception class), and (id, call, exception class, message) where
the finding was a message that did not name the function or the argument.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.lax.linalg
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding

_FINDINGS = [
    # An array operand's dtype is checked before a Python scalar is converted into it: JAX's
    # TypeError for the dtype, not the scalar's OverflowError.
    (
        "complex of uint8 and an int out of its range",
        lambda: lax.complex(jnp.zeros((0, 3, 4), "uint8"), -2147483648),
        TypeError,
    ),
    (
        "atan2 of uint8 and an int out of its range",
        lambda: lax.atan2(jnp.zeros(2, "uint8"), 300),
        TypeError,
    ),
    # lax.reduce: an init value that is not the computation's identity must have the operand's
    # dtype (it was converted: 0.5 into an int32 sum was 0).
    (
        "reduce with an init of another dtype",
        lambda: lax.reduce(jnp.array([1, 2], "int32"), jnp.float32(0.5), lax.add, (0,)),
        TypeError,
    ),
    (
        "reduce of a bool scalar with a float32 init",
        lambda: lax.reduce(jnp.array(False), jnp.float32(0.6911683678627014), lax.add, ()),
        TypeError,
    ),
    (
        "reduce max with an int32 init of a float32 operand",
        lambda: lax.reduce(jnp.array([1.0, 2.0]), np.int32(-5), lax.max, (0,)),
        TypeError,
    ),
    # tridiagonal: JAX's shape rule (a non-empty square matrix) before its dtype rule.
    (
        "tridiagonal of an empty bool matrix",
        lambda: lax.linalg.tridiagonal(jnp.zeros((0, 0), bool)),
        ValueError,
    ),
    # full_like of bytes: no number, whatever x's weak type (NumPy parsed b"1" as 1).
    (
        "full_like of bytes, weak x, under jit",
        lambda: stablax.jit(lambda: lax.full_like(0.5, b"ab", shape=(2,)))(),
        TypeError,
    ),
    ("full_like of NumPy bytes, weak x", lambda: lax.full_like(0.5, np.bytes_(b"1")), TypeError),
]

_MESSAGES = [
    (
        "argmin under vmap with a tuple axis",
        lambda: stablax.vmap(lambda x: lax.argmin(x, (-2,), jnp.int32))(jnp.zeros((3, 2))),
        TypeError,
        r"^lax\.argmin: axis must be an integer, got \(-2,\)",
    ),
    (
        "conv_transpose_shape_tuple of None padding",
        lambda: stablax.jit(
            lambda: lax.conv_transpose_shape_tuple((2, 1), (2, 1), (), None, None)
        )(),
        TypeError,
        r"^lax\.conv_transpose_shape_tuple: padding must be .* got None",
    ),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_d_finding(name, call, expected):
    check_finding(call, expected)


@pytest.mark.parametrize("name, call, error, message", _MESSAGES, ids=[c[0] for c in _MESSAGES])
def test_fuzz_2002_d_message(name, call, error, message):
    with pytest.raises(error, match=message):
        call()
