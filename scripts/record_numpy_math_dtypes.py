"""Records JAX's result dtypes and weak types for stablax.numpy's math functions.

Run with a Python that has JAX installed (never imported by stablax or its tests):
    /work/venv-jax/bin/python scripts/record_numpy_math_dtypes.py
It writes tests/data/numpy_math_dtypes.json (jax_enable_x64 off) and numpy_math_dtypes_x64.json
(on, with the 64-bit input types too), which tests/numpy/test_math_dtypes.py reads.
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from tests.numpy_math_cases import DTYPE_CASES, INPUT_KINDS, INPUT_KINDS_X64, make_input


def _describe(result) -> object:
    if isinstance(result, (tuple, list)):
        return [_describe(r) for r in result]
    return [str(result.dtype), bool(getattr(result, "weak_type", False))]


def record(kinds: tuple[str, ...]) -> dict:
    table = {}
    for name, fn, arity, shape in DTYPE_CASES:
        row = {}
        for kind in kinds:
            args = [make_input(jnp, kind, seed, shape) for seed in range(arity)]
            try:
                row[kind] = _describe(fn(jnp, *args))
            except Exception as error:
                row[kind] = f"error: {type(error).__name__}"
        table[name] = row
    return table


def main() -> None:
    data = pathlib.Path(__file__).parent.parent / "tests" / "data"
    for x64, kinds, filename in (
        (False, INPUT_KINDS, "numpy_math_dtypes.json"),
        (True, INPUT_KINDS_X64, "numpy_math_dtypes_x64.json"),
    ):
        jax.config.update("jax_enable_x64", x64)
        table = record(kinds)
        (data / filename).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(table)} functions to {data / filename}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
