"""Comparing a call's stablax outcome with JAX's: values (dtype, shape, weak type, numbers) or
exception classes; differences listed in known_differences/ are explained, not findings."""

from __future__ import annotations

import math
from typing import Any

from tests.reliability import known_differences

# Relative tolerance per result dtype: the two libraries emit different programs for the same
# function, so results may differ by rounding.
_RTOL = {
    "float16": 2e-2,
    "bfloat16": 5e-2,
    "float32": 2e-4,
    "complex64": 2e-4,
    "float64": 1e-9,
    "complex128": 1e-9,
}
_LOOSE_RTOL = 0.25  # float8 and the like


def compare(call: dict, ours: dict, theirs: dict | None) -> tuple[str, str] | None:
    """None when the outcomes agree; ("explained", reason) or (category, detail) otherwise."""
    if theirs is None:
        return None
    if theirs["kind"] in ("crash", "timeout"):
        return None  # JAX's own crash: stablax gave a value or a clean exception
    difference = _difference(call, ours, theirs)
    if difference is None:
        return None
    reason = known_differences.explain(call, ours, theirs, difference)
    if reason is not None:
        return ("explained", reason)
    return difference


def _difference(call: dict, ours: dict, theirs: dict) -> tuple[str, str] | None:
    if ours["kind"] == "error" and theirs["kind"] == "error":
        if ours["type"] == theirs["type"]:
            return None
        # stablax's errors subclass the builtin JAX's do (ConcretizationTypeError is a
        # TypeError in both), so compare the closest builtin class.
        if _builtin(ours) == _builtin(theirs):
            return None
        return (
            "diverge-exception",
            f"stablax {ours['type']}: {ours['message'][:200]} | "
            f"JAX {theirs['type']}: {theirs['message'][:200]}",
        )
    if ours["kind"] == "error":
        return ("diverge-raises", f"stablax {ours['type']}: {ours['message'][:300]}")
    if theirs["kind"] == "error":
        return ("diverge-accepts", f"JAX {theirs['type']}: {theirs['message'][:300]}")
    problem = _compare_values(ours["value"], theirs["value"], call)
    return None if problem is None else (problem[0], problem[1])


_BUILTINS = (
    "TypeError",
    "ValueError",
    "IndexError",
    "NotImplementedError",
    "NameError",
    "OverflowError",
    "ZeroDivisionError",
    "KeyError",
    "AttributeError",
    "RuntimeError",
)


def _builtin(outcome: dict) -> str:
    for name in outcome["bases"]:
        if name in _BUILTINS:
            return name
    return outcome["type"]


def _compare_values(ours: Any, theirs: Any, call: dict, path: str = "") -> tuple[str, str] | None:
    if set(ours) != set(theirs):
        return ("diverge-structure", f"{path}: stablax {_brief(ours)} vs JAX {_brief(theirs)}")
    if "seq" in ours:
        if len(ours["seq"]) != len(theirs["seq"]):
            return (
                "diverge-structure",
                f"{path}: {len(ours['seq'])} results vs JAX {len(theirs['seq'])}",
            )
        for i, (a, b) in enumerate(zip(ours["seq"], theirs["seq"])):
            found = _compare_values(a, b, call, f"{path}[{i}]")
            if found:
                return found
        return None
    if "dict" in ours:
        if sorted(ours["dict"]) != sorted(theirs["dict"]):
            return ("diverge-structure", f"{path}: keys differ")
        for k in ours["dict"]:
            found = _compare_values(ours["dict"][k], theirs["dict"][k], call, f"{path}[{k}]")
            if found:
                return found
        return None
    if "dtype" in ours and "shape" in ours:
        if ours["dtype"] != theirs["dtype"]:
            return ("diverge-dtype", f"{path}: stablax {ours['dtype']} vs JAX {theirs['dtype']}")
        if ours["shape"] != theirs["shape"]:
            return ("diverge-shape", f"{path}: stablax {ours['shape']} vs JAX {theirs['shape']}")
        if ours["weak"] != theirs["weak"]:
            return (
                "diverge-weak-type",
                f"{path}: stablax weak_type={ours['weak']} vs JAX {theirs['weak']} "
                f"({ours['dtype']})",
            )
        return _compare_numbers(ours["values"], theirs["values"], ours["dtype"], path)
    if "ndarray" in ours:
        if ours["ndarray"] != theirs["ndarray"] or ours["shape"] != theirs["shape"]:
            return ("diverge-dtype", f"{path}: numpy result {ours} vs JAX {theirs}")
        return _compare_numbers(ours["values"], theirs["values"], ours["ndarray"], path)
    if ours != theirs:
        if "scalar" in ours and _close_scalars(ours["scalar"], theirs["scalar"]):
            return None
        return ("diverge-value", f"{path}: stablax {_brief(ours)} vs JAX {_brief(theirs)}")
    return None


def _close_scalars(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return all(_close_scalars(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and type(a) is type(b):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
    return a == b


def _compare_numbers(a: Any, b: Any, dtype: str, path: str) -> tuple[str, str] | None:
    if a is None or b is None:
        return None  # too large to ship
    if "ints" in a:  # integers and booleans: exact
        if a != b:
            return (
                "diverge-value",
                f"{path}: {dtype} values differ: {_first_diff(a['ints'], b['ints'])}",
            )
        return None
    rtol = _RTOL.get(dtype, _LOOSE_RTOL)
    flat_a, flat_b = a["flat"], b["flat"]
    finite = [abs(v) for v in flat_b if isinstance(v, float)]
    scale = max(finite) if finite else 0.0
    for i, (x, y) in enumerate(zip(flat_a, flat_b)):
        if isinstance(x, str) or isinstance(y, str):
            if x != y:
                return ("diverge-value", f"{path}: {dtype} element {i}: {x} vs JAX {y}")
            continue
        if abs(x - y) > rtol * (abs(y) + scale) + 1e-30:
            return ("diverge-value", f"{path}: {dtype} element {i}: {x!r} vs JAX {y!r}")
    return None


def _first_diff(a: list, b: list) -> str:
    flat_a, flat_b = _flatten(a), _flatten(b)
    for i, (x, y) in enumerate(zip(flat_a, flat_b)):
        if x != y:
            return f"element {i}: {x} vs JAX {y}"
    return f"{len(flat_a)} vs {len(flat_b)} elements"


def _flatten(x: Any) -> list:
    if isinstance(x, list):
        return [v for item in x for v in _flatten(item)]
    return [x]


def _brief(x: Any) -> str:
    text = repr(x)
    return text if len(text) < 160 else text[:157] + "..."
