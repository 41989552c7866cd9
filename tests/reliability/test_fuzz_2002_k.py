"""Findings of the full seed-2002 comparison fuzz (`fuzz_runner --calls 100000 --seed 2002
--compare-jax`) beyond those of its first 62,000 calls, one row each, with JAX 0.10.2's answer
as the expected outcome: (id, call, expected value or exception class).
"""

from __future__ import annotations

import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding

_FINDINGS = [
    # mask_indices takes the indices with jnp.nonzero, as JAX: a traced mask works under jit
    # when `size` is given (it went through NumPy and needed a concrete mask).
    (
        "mask_indices under jit with size",
        lambda: stablax.jit(lambda: jnp.mask_indices(3, jnp.tril, size=4))(),
        ([0, 1, 1, 2], [0, 0, 1, 0]),
    ),
    (
        "mask_indices of a traced mask with size",
        lambda: stablax.jit(lambda: jnp.mask_indices(1, lambda a, k: a, k=6, size=True))(),
        ([0], [0]),
    ),
    ("mask_indices of a 1-d mask", lambda: jnp.mask_indices(2, lambda a, k: a[0]), ValueError),
    # where checks its arguments' types before refusing size/fill_value in the 3-term form.
    ("where None with size", lambda: jnp.where(None, jnp.ones(3), 1.0, size=0), TypeError),
    ("where with size", lambda: jnp.where(True, jnp.ones(3), 1.0, size=0), ValueError),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_k_finding(name, call, expected):
    check_finding(call, expected)
