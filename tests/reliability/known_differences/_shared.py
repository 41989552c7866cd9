"""Helpers, regexes and the Rule type shared by the rule modules of known_differences."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Rule = tuple[str, Callable[[dict, dict, dict, tuple[str, str]], bool], str]


def _error(outcome: dict) -> bool:
    return outcome["kind"] == "error"


_BROADCAST = re.compile(r"(?i)incompatible shapes for broadcasting|cannot broadcast|broadcast")


def _fn(*names: str) -> Callable[[dict], bool]:
    wanted = set(names)
    return lambda call: call["fn"] in wanted


def _arrays(call: dict) -> list[dict]:
    from tests.reliability.fuzz_values import array_specs

    specs = []
    for spec in [*call["args"], *call["kwargs"].values(), *[b["spec"] for b in call["batch"]]]:
        specs.extend(array_specs(spec))
    return specs


def _has_dtype(call: dict, *kinds: str) -> bool:
    return any(s["dtype"].startswith(kinds) for s in _arrays(call))


def _special_values(call: dict) -> bool:
    return any(s.get("fill") in ("special", "zeros") for s in _arrays(call)) or any(
        isinstance(s.get("py"), float) or "complex" in s for s in call["args"]
    )


def _value_difference(difference: tuple[str, str]) -> bool:
    return difference[0] in ("diverge-value",)


_UNIQUE_FNS = ("jnp.unique_values", "jnp.unique_all", "jnp.unique_counts", "jnp.unique_inverse")
_SET_FNS = ("jnp.setxor1d", "jnp.union1d", "jnp.intersect1d", "jnp.setdiff1d")


def _given(call: dict, position: int, name: str) -> Any:
    """The spec of an argument given at `position` or by keyword `name`, or None."""
    args = call["args"]
    return args[position] if len(args) > position else call["kwargs"].get(name)


def _any(*args: Any) -> bool:
    return any(args)
