"""Findings of the second seed-2001 comparison fuzz (`fuzz_runner --seed 2001 --compare-jax`,
on the tree with the first run's fixes), one row each, with JAX 0.10.2's answer as the expected
outcome: (id, call, expected value or exception class).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding

_FINDINGS = [
    # interp on a segment of zero width (repeated sample points) gives its left value, as JAX:
    # at x = 2 the clipped segment [2, 2] gives fp[1] = 2, not fp[2] = 5.
    (
        "interp repeated last point",
        lambda: jnp.interp(
            jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 2.0, 2.0]), jnp.array([1.0, 2.0, 5.0])
        ),
        [1.5, 2.0, 5.0],
    ),
    # broadcast_shapes takes a shape as `tuple(shape)`: an array whose first axis is empty is
    # the empty shape, whatever its other axes and its dtype.
    (
        "broadcast_shapes (0, 3) float16",
        lambda: jnp.broadcast_shapes(jnp.zeros((0, 3), "float16")),
        [],
    ),
    (
        "lax.broadcast_shapes (0, 3) with (2,)",
        lambda: lax.broadcast_shapes(np.zeros((0, 3)), (2,)),
        [2],
    ),
    ("broadcast_shapes (2, 0)", lambda: jnp.broadcast_shapes(jnp.zeros((2, 0))), TypeError),
    # lax's Python scalars take the dtype of an array case: -1 into uint32 overflows (JAX's lax
    # converts it to int32 and then refuses the mixed dtypes: a TypeError; see
    # known_differences.lax_functions).
    (
        "select_n Python int into uint32",
        lambda: lax.select_n(True, -1, jnp.asarray(np.uint32(6))),
        OverflowError,
    ),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_i_finding(name, call, expected):
    check_finding(call, expected)
