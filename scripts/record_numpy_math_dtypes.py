"""Records JAX's result dtypes and weak types for stablax.numpy's math functions.

Run with a Python that has JAX installed (never imported by stablax or its tests):
    /work/jaxvenv/bin/python scripts/record_numpy_math_dtypes.py
It writes tests/data/numpy_math_dtypes.json, which tests/test_numpy_math_dtypes.py reads.
"""

from __future__ import annotations

import json
import pathlib

import jax.numpy as jnp
import numpy as np
from tests.numpy_math_cases import DTYPE_CASES, INPUT_KINDS, make_input


def _describe(result) -> object:
    if isinstance(result, (tuple, list)):
        return [_describe(r) for r in result]
    return [str(result.dtype), bool(getattr(result, "weak_type", False))]


def main() -> None:
    table = {}
    for name, fn, arity, shape in DTYPE_CASES:
        row = {}
        for kind in INPUT_KINDS:
            args = [make_input(jnp, kind, seed, shape) for seed in range(arity)]
            try:
                row[kind] = _describe(fn(jnp, *args))
            except Exception as error:
                row[kind] = f"error: {type(error).__name__}"
        table[name] = row
    path = pathlib.Path(__file__).parent.parent / "tests" / "data" / "numpy_math_dtypes.json"
    path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(table)} functions to {path}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
