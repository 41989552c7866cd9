"""The fuzz worker: a process that runs calls read from stdin and writes one outcome per line.

    python -m tests.reliability.fuzz_worker [--compare-jax]

Each input line is a call (see fuzz_strategies.calls); for each library the worker writes
{"lib": name, "start": true} before running it and {"lib": name, "outcome": outcome} after, then
{"done": true}. An outcome is {"kind": "value", "value": summary} or {"kind": "error", "type":
"ValueError", "message": ...}, with the warnings raised and what was written to stderr.
A crash kills only this process; the runner (fuzz_runner.py) sees it and starts another.
With --compare-jax the same call also runs through JAX (never imported by stablax or its tests
otherwise: this mode is for an interpreter that has JAX installed).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import traceback
import warnings
from typing import Any

import numpy as np

# Allocations past this fail with an exception instead of swapping a shared machine to death.
_MEMORY_LIMIT = int(os.environ.get("STABLAX_FUZZ_MEMORY_GB", "8")) * 2**30


class _Library:
    """stablax or jax behind one interface: numpy, lax, jit, grad, vmap, config."""

    def __init__(self, name: str) -> None:
        root = __import__(name)
        __import__(f"{name}.numpy")
        __import__(f"{name}.lax")
        __import__(f"{name}.lax.linalg")
        self.name = name
        self.root = root
        self.numpy = root.numpy
        self.lax = root.lax
        self.array_types = (root.Array,) if hasattr(root, "Array") else ()

    def set_x64(self, flag: bool) -> None:
        if bool(self.root.config.jax_enable_x64) != flag:
            self.root.config.update("jax_enable_x64", flag)


def _summarize(value: Any, lib: _Library, depth: int = 0) -> Any:
    """A JSON-able description of a result: arrays as dtype, shape, weak type and values."""
    if depth > 6:
        return {"other": type(value).__name__}
    if isinstance(value, lib.array_types) or type(value).__name__ in ("Array", "ArrayImpl"):
        host = np.asarray(value)
        return {
            "dtype": str(host.dtype),
            "shape": list(host.shape),
            "weak": bool(getattr(value, "weak_type", False)),
            "values": _values(host),
        }
    if isinstance(value, (tuple, list)):
        return {"seq": [_summarize(v, lib, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): _summarize(v, lib, depth + 1) for k, v in sorted(value.items())}}
    if isinstance(value, np.ndarray):
        return {"ndarray": str(value.dtype), "shape": list(value.shape), "values": _values(value)}
    if isinstance(value, (bool, int, float, complex, str, type(None), np.generic)):
        if isinstance(value, (complex, np.complexfloating)):
            return {"scalar": [float(np.real(value)), float(np.imag(value))]}
        if isinstance(value, np.generic):
            return {"scalar": value.item() if np.isfinite(value).all() else str(value)}
        if isinstance(value, float) and not np.isfinite(value):
            return {"scalar": str(value)}
        return {"scalar": value}
    if isinstance(value, np.dtype):
        return {"dtype_object": str(value)}
    if isinstance(value, type):
        return {"type": value.__name__}
    return {"other": type(value).__name__}


def _values(host: np.ndarray) -> Any:
    if host.size > 4096:
        return None
    if host.dtype.kind == "c":
        pairs = np.stack([host.real, host.imag], -1).astype(np.float64)
        return _floats(pairs)
    if host.dtype.kind in "biu":
        return {
            "ints": host.reshape(-1)
            .astype(np.uint64 if host.dtype == np.uint64 else np.int64)
            .tolist()
        }
    try:
        return _floats(host.astype(np.float64))
    except (TypeError, ValueError):
        return None


def _floats(host: np.ndarray) -> Any:
    flat = [v if np.isfinite(v) else str(v) for v in host.reshape(-1).tolist()]
    return {"shape": list(host.shape), "flat": flat}


def _error(error: BaseException) -> dict:
    message = str(error)
    frames = traceback.extract_tb(error.__traceback__)
    return {
        "kind": "error",
        "type": type(error).__name__,
        "bases": [c.__name__ for c in type(error).__mro__],
        "message": message[:2000],
        # Raised by one of the fuzz's own callables (the user's code), passed through.
        "user_raised": bool(frames) and frames[-1].filename.endswith("fuzz_values.py"),
    }


def _call(lib: _Library, case: dict) -> Any:
    from tests.reliability import fuzz_strategies, fuzz_values

    fn = fuzz_strategies.resolve(lib, case["fn"])
    args = [fuzz_values.materialize(a, lib) for a in case["args"]]
    kwargs = {k: fuzz_values.materialize(v, lib) for k, v in case["kwargs"].items()}
    mode = case["mode"]
    if mode == "eager":
        return fn(*args, **kwargs)
    if mode == "jit":
        positions = [
            i for i, a in enumerate(case["args"]) if "array" in a and a.get("as") == "array"
        ]

        def traced(*arrays):
            full = list(args)
            for i, a in zip(positions, arrays):
                full[i] = a
            return fn(*full, **kwargs)

        return lib.root.jit(traced)(*[args[i] for i in positions])
    if mode == "grad":
        position = case["grad_arg"]
        jnp = lib.numpy

        def scalar(v):
            full = list(args)
            full[position] = v
            out = fn(*full, **kwargs)
            leaves = [
                leaf
                for leaf in lib.root.tree_util.tree_leaves(out)
                if hasattr(leaf, "dtype") and jnp.issubdtype(leaf.dtype, jnp.inexact)
            ]
            total = jnp.zeros((), v.dtype)
            for leaf in leaves:
                total = total + jnp.sum(jnp.real(leaf)).astype(v.dtype)
            return total

        return lib.root.grad(scalar)(args[position])
    if mode == "vmap":
        positions = [b["position"] for b in case["batch"]]
        batched = [fuzz_values.materialize(b["spec"], lib) for b in case["batch"]]

        def mapped(*arrays):
            full = list(args)
            for i, a in zip(positions, arrays):
                full[i] = a
            return fn(*full, **kwargs)

        return lib.root.vmap(mapped)(*batched)
    raise ValueError(f"fuzz: unknown mode {mode}")


def run(lib: _Library, case: dict) -> dict:
    lib.set_x64(case["x64"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = _call(lib, case)
            outcome = {"kind": "value", "value": _summarize(result, lib)}
        except RecursionError as error:
            outcome = _error(error)
        except Exception as error:
            outcome = _error(error)
    outcome["warnings"] = sorted({f"{w.category.__name__}: {w.message}"[:300] for w in caught})
    return outcome


def main() -> None:
    compare = "--compare-jax" in sys.argv
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > _MEMORY_LIMIT:
        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_LIMIT, hard))
    # XLA writes its errors to file descriptor 2: keep them, report them with the call.
    log = tempfile.TemporaryFile(mode="w+b")
    out = os.fdopen(os.dup(1), "w")
    os.dup2(log.fileno(), 1)  # what called functions print must not mix with the outcomes
    os.dup2(log.fileno(), 2)
    np.seterr(all="ignore")
    libs = [_Library("stablax")] + ([_Library("jax")] if compare else [])
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        case = json.loads(line)
        for lib in libs:  # one line per library, so a crash in either is attributed to it
            out.write(json.dumps({"lib": lib.name, "start": True}) + "\n")
            out.flush()
            start = log.seek(0, 2)
            outcome = run(lib, case)
            sys.stdout.flush()
            sys.stderr.flush()
            log.seek(start)
            outcome["stderr"] = log.read().decode(errors="replace")[-2000:]
            out.write(json.dumps({"lib": lib.name, "outcome": outcome}, default=str) + "\n")
            out.flush()
        out.write(json.dumps({"done": True}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
