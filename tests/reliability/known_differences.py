"""Where stablax deliberately differs from JAX 0.10.2, with the reason: each rule says which
calls it covers; the comparison counts a covered difference as explained, not as a finding.

A rule is (name, predicate(call, ours, theirs, difference), reason). `ours` and `theirs` are the
outcomes of fuzz_worker.py; `difference` is (category, detail) from fuzz_compare.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Rule = tuple[str, Callable[[dict, dict, dict, tuple[str, str]], bool], str]

# Exception classes JAX lets escape from its internals on bad input (never documented API errors).
_JAX_INTERNAL_TYPES = {
    "AttributeError",
    "KeyError",
    "AssertionError",
    "ZeroDivisionError",
    "RuntimeError",
    "MLIRError",
    "JaxRuntimeError",
    "XlaRuntimeError",
    "UnboundLocalError",
    "RecursionError",
    "StopIteration",
}
# Messages of JAX's internals rather than of its API checks.
_JAX_INTERNAL_MESSAGE = re.compile(
    "|".join(
        [
            r"safe_(?:zip|map)\(\) argument",
            r"Non-hashable static arguments",
            r"Invalid argument to dtype",
            r"got an unexpected keyword argument",
            r"len\(\) of unsized object",
            r"has no len\(\)",
            r"Error interpreting argument to <function",
            r"object is not (?:iterable|subscriptable|callable)",
            r"tuple indices must be integers",
            r"cannot unpack non-iterable",
            r"unsupported operand type",
            r"incompatible function arguments",
            r"XLA operations do not allow negative axes",
            r"transpose permutation isn't a permutation",
            r"(?:rev|iota|broadcast_in_dim) (?:dimensions|shape) must",
            r"Only integer scalar arrays can be converted to a scalar index",
            r"object cannot be interpreted as an integer",
            r"argument must be a string or a real number",
            r"not supported between instances of",
            r"invalid literal for int\(\)",
            r"\bjaxlib\b|_src\.",
            r"(?:tuple|list) index out of range",
        ]
    )
)


def _error(outcome: dict) -> bool:
    return outcome["kind"] == "error"


def _jax_internal(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """JAX failed inside its own code; stablax raised a documented error (checked before)."""
    if not _error(theirs) or theirs.get("user_raised"):
        return False
    return theirs["type"] in _JAX_INTERNAL_TYPES or bool(
        _JAX_INTERNAL_MESSAGE.search(theirs["message"])
    )


def _list_input(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """JAX rejects a list or tuple passed for an array; stablax converts it, as NumPy does."""
    return _error(theirs) and bool(
        re.search(
            r"requires ndarray or scalar arguments, got <class '(?:list|tuple)'>", theirs["message"]
        )
    )


_BROADCAST = re.compile(r"(?i)incompatible shapes for broadcasting|cannot broadcast|broadcast")


def _both_broadcast(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> bool:
    """Both reject shapes that do not broadcast; the class JAX raises depends on which of its
    primitives meets the shapes first (TypeError in lax, ValueError in jnp helpers)."""
    return (
        _error(ours)
        and _error(theirs)
        and bool(_BROADCAST.search(ours["message"]))
        and bool(_BROADCAST.search(theirs["message"]))
    )


_NEGATIVE = re.compile(r"(?i)negative dimension|nonnegative|non-negative")


def _both_negative_dimensions(call, ours, theirs, difference) -> bool:
    """Both reject a negative dimension: stablax with NumPy's ValueError, JAX with whichever
    primitive sees it (a TypeError from iota or broadcast_in_dim)."""
    return (
        _error(ours)
        and _error(theirs)
        and bool(_NEGATIVE.search(ours["message"]))
        and bool(_NEGATIVE.search(theirs["message"]))
    )


RULES: list[Rule] = [
    ("jax-internal-error", _jax_internal, _jax_internal.__doc__),
    ("list-for-array", _list_input, _list_input.__doc__),
    ("broadcast-error-class", _both_broadcast, _both_broadcast.__doc__),
    ("negative-dimension-class", _both_negative_dimensions, _both_negative_dimensions.__doc__),
]


def explain(call: dict, ours: dict, theirs: dict, difference: tuple[str, str]) -> str | None:
    """The name of the first rule covering this difference, or None."""
    for name, applies, _reason in RULES:
        try:
            if applies(call, ours, theirs, difference):
                return name
        except (KeyError, IndexError, TypeError):
            continue
    return None


def _any(*args: Any) -> bool:
    return any(args)
