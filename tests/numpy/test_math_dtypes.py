"""Result dtypes and weak types of stablax.numpy's math functions against those JAX gave.

Only traced (`eval_shape`): eager calls run the same traced function, and values are tested
against NumPy elsewhere.

The expected tables (jax_enable_x64 off and on) are recorded from JAX by
scripts/record_numpy_math_dtypes.py.
"""

from __future__ import annotations

import json
import pathlib
import warnings

import pytest

import stablax
import stablax.numpy as jnp
from stablax._src.config import config
from tests.numpy_math_cases import DTYPE_CASES, INPUT_KINDS, INPUT_KINDS_X64, make_input

_DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
_TABLES = {
    False: json.loads((_DATA / "numpy_math_dtypes.json").read_text()),
    True: json.loads((_DATA / "numpy_math_dtypes_x64.json").read_text()),
}

# Where stablax deliberately differs from the recorded JAX result: (case, input kind) -> why.
_KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("polymul", "pyint"): "NumPy multiplies scalar polynomials; JAX raises",
    ("polymul", "pyfloat"): "NumPy multiplies scalar polynomials; JAX raises",
    ("rfft", "float16"): "stablax transforms half-precision input in float32; JAX raises",
    ("rfft", "bfloat16"): "stablax transforms half-precision input in float32; JAX raises",
    ("slogdet", "float16"): "stablax factors half-precision matrices in float32; JAX raises",
    ("slogdet", "bfloat16"): "stablax factors half-precision matrices in float32; JAX raises",
}


def _describe(result):
    if isinstance(result, (tuple, list)):
        return [_describe(r) for r in result]
    return [str(result.dtype), bool(result.weak_type)]


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("name, fn, arity, shape", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_result_dtypes_match_jax(name, fn, arity, shape, x64):
    previous = config.jax_enable_x64
    config.update("jax_enable_x64", x64)
    try:
        mismatches = _mismatches(name, fn, arity, shape, x64)
    finally:
        config.update("jax_enable_x64", previous)
    assert not mismatches, f"{name}: " + "; ".join(mismatches)


def _mismatches(name, fn, arity, shape, x64):
    mismatches = []
    for kind in INPUT_KINDS_X64 if x64 else INPUT_KINDS:
        if (name, kind) in _KNOWN_DIFFERENCES:
            continue
        expected = _TABLES[x64][name][kind]
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
    return mismatches
