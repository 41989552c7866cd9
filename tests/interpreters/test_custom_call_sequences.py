"""custom_jvp / custom_vjp run the user's functions as JAX does: the same calls, in the same order,
on concrete values outside jit (Python `if` on values works), with JAX's values.

The expected sequences were recorded from JAX 0.10.2 (scripts/record_custom_call_sequences.py).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import stablax
from tests.custom_call_cases import ALL_SCENARIOS

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
RECORDED = json.loads((DATA / "custom_call_sequences.json").read_text())["scenarios"]


@pytest.mark.parametrize("name", sorted(ALL_SCENARIOS))
def test_calls_and_values_match_jax(name):
    calls, values = ALL_SCENARIOS[name](stablax)
    assert calls == RECORDED[name]["calls"]
    np.testing.assert_allclose(values, RECORDED[name]["values"], rtol=1e-6)


def test_every_recorded_scenario_is_run():
    assert sorted(RECORDED) == sorted(ALL_SCENARIOS)
