"""Elementwise lax functions beyond the op-record table: select_n's one-case shortcut."""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
from stablax import lax


@pytest.mark.parametrize(
    "case, expected, dtype",  # JAX 0.10.2's results (x64 off), eagerly and under jit
    [
        (np.array([2**40 + 3, 1], np.uint64), [3, 1], np.uint32),
        (np.array([1.5, 1.0], np.float64), [1.5, 1.0], np.float32),
    ],
)
@pytest.mark.parametrize("jitted", [False, True])
def test_select_n_of_one_numpy_case_is_a_canonical_array(case, expected, dtype, jitted):
    select = jax.jit(lax.select_n) if jitted else lax.select_n
    out = select(np.zeros(2, np.int32), case)
    assert isinstance(out, jax.Array) and out.dtype == dtype and not out.weak_type
    np.testing.assert_array_equal(np.asarray(out), expected)
