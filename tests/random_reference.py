"""Replays the JAX calls recorded by scripts/record_random_reference.py through stablax.random."""

from __future__ import annotations

import contextlib
import json
import pathlib
from typing import Any

import numpy as np

import stablax
from stablax import random

DATA = pathlib.Path(__file__).resolve().parent / "data" / "random"
CASES: list[dict] = json.loads((DATA / "cases.json").read_text())
_VALUES = np.load(DATA / "values.npz")


def expected(case: dict, use_jit: bool = False) -> np.ndarray:
    """JAX's output, eager or inside a jit (bfloat16 is stored, and compared, as uint16 bits)."""
    return _VALUES[case["id"] + ("_jit" if use_jit else "")]


def decode(x: Any) -> Any:
    if isinstance(x, dict) and "array" in x:
        return np.array(x["array"], dtype=x["dtype"])
    if isinstance(x, dict) and "tuple" in x:
        return tuple(decode(v) for v in x["tuple"])
    if isinstance(x, dict):
        return {k: decode(v) for k, v in x.items()}
    return x


@contextlib.contextmanager
def modes(partitionable: bool, x64: bool):
    """The stream layout and x64 flag of a case, restored afterwards."""
    saved = (stablax.config.jax_threefry_partitionable, stablax.config.jax_enable_x64)
    stablax.config.update("jax_threefry_partitionable", partitionable)
    stablax.config.update("jax_enable_x64", x64)
    try:
        yield
    finally:
        stablax.config.update("jax_threefry_partitionable", saved[0])
        stablax.config.update("jax_enable_x64", saved[1])


def signature(case: dict) -> str:
    """Cases that differ only in the seed share a signature (and one compiled function)."""
    return json.dumps([case[k] for k in ("fn", "args", "kwargs", "key", "partitionable", "x64")])


_jitted: dict[str, Any] = {}


def run(case: dict, use_jit: bool = False) -> np.ndarray:
    """The case's output under stablax, as a NumPy array (keys as their uint32 data)."""
    args, kwargs = decode(case["args"]), decode(case["kwargs"])
    with modes(case["partitionable"], case["x64"]):
        if case["fn"] == "PRNGKey":
            return np.asarray(random.PRNGKey(*args))
        make_key = random.PRNGKey if case["key"] == "raw" else random.key
        fn = getattr(random, case["fn"])

        def sample(key):
            out = fn(key, *args, **kwargs)
            return random.key_data(out) if isinstance(out, random.PRNGKeyArray) else out

        if use_jit:
            sig = signature(case)
            if sig not in _jitted:
                _jitted[sig] = stablax.jit(sample)
            sample = _jitted[sig]
        out = np.asarray(sample(make_key(case["seed"])))
        return out.view(np.uint16) if out.dtype.name == "bfloat16" else out
