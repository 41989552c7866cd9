"""Where stablax deliberately differs from JAX 0.10.2, with the reason: each rule says which
calls it covers; the comparison counts a covered difference as explained, not as a finding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# (name, predicate(call, ours, theirs, difference) -> bool, reason)
Rule = tuple[str, Callable[[dict, dict, dict, tuple[str, str]], bool], str]

RULES: list[Rule] = []


def explain(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> str | None:
    """The name of the first rule covering this difference, or None."""
    for name, applies, _reason in RULES:
        try:
            if applies(call, ours, theirs, difference):
                return name
        except (KeyError, IndexError, TypeError):
            continue
    return None


def _fn(*names: str) -> Callable[[dict], bool]:
    wanted = set(names)
    return lambda call: call["fn"] in wanted


def _any(*args: Any) -> bool:
    return any(args)
