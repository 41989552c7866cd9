"""Findings of the seed-2001 comparison fuzz (second report) in lax functions, one row each, with
JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception class).
Differences kept on purpose are rules in known_differences/ (reshape-empty-batch,
update-slice-vmap-float-index, random-gamma-grad-reverse, eigh-integer-symmetrize).
"""

from __future__ import annotations

import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type

_FINDINGS = [
    # lax.reshape with dimensions compares the permuted operand's shape with new_sizes.
    (
        "reshape permuted into the original shape",
        lambda: lax.reshape(jnp.zeros((3, 1, 1)), (3, 1, 1), dimensions=(2, 0, 1)).shape,
        [3, 1, 1],
    ),
    (
        "reshape permuted 2-D values",
        lambda: lax.reshape(jnp.arange(6).reshape(2, 3), (2, 3), (1, 0)),
        [[0, 3, 1], [4, 2, 5]],
    ),
    (
        "reshape permuted under jit",
        lambda: stablax.jit(lambda x: lax.reshape(x, (2, 3), (1, 0)))(jnp.arange(6).reshape(2, 3)),
        [[0, 3, 1], [4, 2, 5]],
    ),
    # bitcast_convert_type checks the sizes before the bool/complex kinds.
    (
        "bitcast bool to float32 wrong last dim",
        lambda: lax.bitcast_convert_type(jnp.ones((1, 3), bool), jnp.float32),
        ValueError,
    ),
    (
        "bitcast uint8 0-d to complex64",
        lambda: lax.bitcast_convert_type(jnp.uint8(1), jnp.complex64),
        ValueError,
    ),
    (
        "bitcast bool to float32 right last dim",
        lambda: lax.bitcast_convert_type(jnp.ones((1, 4), bool), jnp.float32),
        TypeError,
    ),
    # lax.linalg.eigh checks the operand's shape before subset_by_index and the algorithm.
    (
        "eigh non-square before subset_by_index",
        lambda: lax.linalg.eigh(
            jnp.ones((5, 3)), symmetrize_input=False, subset_by_index=float("nan")
        ),
        ValueError,
    ),
    (
        "eigh non-square before the algorithm",
        lambda: lax.linalg.eigh(
            jnp.ones((5, 3)),
            symmetrize_input=False,
            implementation=lax.linalg.EighImplementation.QDWH,
        ),
        ValueError,
    ),
    (
        "eigh symmetrize broadcasts first",
        lambda: lax.linalg.eigh(jnp.ones((5, 3)), subset_by_index=float("nan")),
        TypeError,
    ),
    (
        "eigh subset_by_index of a square matrix",
        lambda: lax.linalg.eigh(jnp.ones((3, 3)), subset_by_index=float("nan")),
        TypeError,
    ),
    # lax.reduce_window with a padding string: the window dilation first, then the strides.
    (
        "reduce_window zero dilation first",
        lambda: lax.reduce_window(jnp.ones(4), 0.0, lax.add, (2,), (0,), "SAME", (0,), (0,)),
        TypeError,
    ),
    (
        "reduce_window zero stride with SAME",
        lambda: lax.reduce_window(jnp.ones(4), 0.0, lax.add, (2,), (0,), "SAME"),
        TypeError,
    ),
    (
        "reduce_window short dilation with SAME",
        lambda: lax.reduce_window(jnp.ones(4), 0.0, lax.add, (2,), (1,), "SAME", (1,), (0, 1)),
        TypeError,
    ),
    (
        "reduce_window SAME",
        lambda: lax.reduce_window(jnp.ones(4), 0.0, lax.add, (2,), (2,), "SAME"),
        [2.0, 2.0],
    ),
    # lax.scan takes its arguments' types before the lengths.
    (
        "scan str init and no xs",
        lambda: stablax.jit(lambda: lax.scan(lambda c: jnp.all(c < 3), "a"))(),
        TypeError,
    ),
    ("scan str xs", lambda: lax.scan(lambda c, x: (c, x), 0.0, "a"), TypeError),
    (
        "scan None xs with a length",
        lambda: lax.scan(lambda c, x: (c, x), None, None, length=2),
        [None, None],
    ),
    # lax.stop_gradient of a Python float or complex outside transformations is the scalar.
    ("stop_gradient float", lambda: lax.stop_gradient(3.0), 3.0),
    ("stop_gradient float type", lambda: type(lax.stop_gradient(3.0)) is float, True),
    ("stop_gradient complex type", lambda: type(lax.stop_gradient(1j)) is complex, True),
]

# (id, call, value, dtype, weak_type) as JAX 0.10.2 gives.
_TYPES = [
    (
        "stop_gradient float under jit",
        lambda: stablax.jit(lambda: lax.stop_gradient(3.0))(),
        3.0,
        "float32",
        True,
    ),
    (
        "stop_gradient float under grad",
        lambda: stablax.grad(lambda x: lax.stop_gradient(3.0) * x)(2.0),
        3.0,
        "float32",
        True,
    ),
    (
        "reshape permuted int32",
        lambda: lax.reshape(jnp.arange(6, dtype=jnp.int32).reshape(2, 3), (2, 3), (1, 0)),
        [[0, 3, 1], [4, 2, 5]],
        "int32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_lax_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_lax_finding(name, call, expected):
    check_finding(call, expected)
