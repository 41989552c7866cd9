"""Result dtypes and weak types of stablax.numpy's math functions against those JAX gave.

Only traced (`eval_shape`): eager calls run the same traced function, and values are tested
against NumPy elsewhere.

The expected table is recorded from JAX by scripts/record_numpy_math_dtypes.py.
"""

from __future__ import annotations

import json
import pathlib
import warnings

import pytest

import stablax
import stablax.numpy as jnp
from tests.numpy_math_cases import DTYPE_CASES, INPUT_KINDS, make_input

_TABLE = json.loads((pathlib.Path(__file__).parent / "data" / "numpy_math_dtypes.json").read_text())

# Where stablax deliberately differs from the recorded JAX result: (case, input kind) -> why.
_KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("polymul", "pyint"): "NumPy multiplies scalar polynomials; JAX raises",
    ("polymul", "pyfloat"): "NumPy multiplies scalar polynomials; JAX raises",
}


def _describe(result):
    if isinstance(result, (tuple, list)):
        return [_describe(r) for r in result]
    return [str(result.dtype), bool(result.weak_type)]


@pytest.mark.parametrize("name, fn, arity, shape", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_result_dtypes_match_jax(name, fn, arity, shape):
    mismatches = []
    for kind in INPUT_KINDS:
        if (name, kind) in _KNOWN_DIFFERENCES:
            continue
        expected = _TABLE[name][kind]
        args = [make_input(jnp, kind, seed, shape) for seed in range(arity)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                got = _describe(stablax.eval_shape(lambda *xs: fn(jnp, *xs), *args))
            except (TypeError, ValueError, IndexError, NotImplementedError) as error:
                got = f"error: {type(error).__name__}"
        if isinstance(expected, str):
            if not isinstance(got, str):
                mismatches.append(f"{kind}: JAX raised, stablax gave {got}")
        elif got != expected:
            mismatches.append(f"{kind}: expected {expected}, got {got}")
    assert not mismatches, f"{name}: " + "; ".join(mismatches)
