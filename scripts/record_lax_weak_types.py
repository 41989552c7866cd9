"""Records JAX's weak types for the op records that call a lax function as it is.

For each such record and each dtype JAX can hold weakly typed (float32, int32, complex64, bool),
it calls `jax.lax.<name>` on the record's inputs made weakly typed (all of them, and all but the
first) and writes whether each output is weakly typed. Run with a Python that has JAX installed
(never imported by stablax or its tests), from the repository root:
    PYTHONPATH=src:. /work/venv/bin/python scripts/record_lax_weak_types.py
It writes tests/data/lax_weak_types.json, which tests/interpreters/test_weak_types.py reads.
"""

from __future__ import annotations

import json
import pathlib
import zlib

import jax
import numpy as np
from jax._src.lax import lax as jax_lax_internal
from tests.op_record import all_records

import stablax.lax

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "lax_weak_types.json"
WEAK_DTYPES = [np.dtype(d) for d in (np.float32, np.int32, np.complex64, np.bool_)]


def _flags(tree) -> list[bool]:
    return [bool(jax.typeof(leaf).weak_type) for leaf in jax.tree.leaves(tree)]


def main() -> None:
    recorded = {}
    for record in all_records():
        name = getattr(record.fun, "__name__", "")
        if getattr(stablax.lax, name, None) is not record.fun or not hasattr(jax.lax, name):
            continue
        for dtype in map(np.dtype, record.dtypes):
            if dtype not in WEAK_DTYPES:
                continue
            rng = np.random.default_rng(zlib.crc32(record.name.encode()))
            args = record.make_args(rng, record.shapes[0], dtype)
            variants = {"weak": [True] * len(args)}
            if len(args) > 1:
                variants["first_strong"] = [False] + [True] * (len(args) - 1)
            for variant, flags in variants.items():
                weak = [
                    jax_lax_internal._convert_element_type(a, a.dtype, weak_type=f)
                    for a, f in zip(args, flags, strict=True)
                ]
                try:
                    out = getattr(jax.lax, name)(*weak)
                except TypeError:  # a dtype JAX's lax function refuses (add of bools)
                    continue
                key = f"{record.name}/{dtype.name}/{variant}"
                recorded[key] = _flags(out)
                if record.differentiable and dtype.kind in "fc":
                    # jvp with the inputs as tangents; vjp with the outputs as cotangents.
                    try:
                        _, tangents = jax.jvp(getattr(jax.lax, name), weak, weak)
                        recorded[key + "/jvp"] = _flags(tangents)
                        out, pullback = jax.vjp(getattr(jax.lax, name), *weak)
                        recorded[key + "/vjp"] = _flags(pullback(out))
                    except (TypeError, ValueError):  # a derivative JAX refuses (clamp's bounds)
                        pass
    OUT.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(recorded)} cases to {OUT}")


if __name__ == "__main__":
    main()
