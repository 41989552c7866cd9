"""Where stablax deliberately differs from JAX 0.10.2, with the reason: each rule says which
calls it covers; the comparison counts a covered difference as explained, not as a finding.

A rule is (name, predicate(call, ours, theirs, difference), reason). `ours` and `theirs` are the
outcomes of fuzz_worker.py; `difference` is (category, detail) from fuzz_compare.py.

The rules live in one module per area; RULES is their concatenation and explain() names the
first rule that applies.
"""

from __future__ import annotations

from tests.reliability.known_differences import (
    argument_checks,
    fft,
    jax_internals,
    lax_functions,
    linalg,
    numpy_semantics,
    sets_and_indexing,
    statistical_functions,
    transforms,
)
from tests.reliability.known_differences._shared import Rule

__all__ = ["RULES", "Rule", "explain"]

RULES: list[Rule] = [
    *numpy_semantics.RULES,
    *statistical_functions.RULES,
    *linalg.RULES,
    *fft.RULES,
    *sets_and_indexing.RULES,
    *lax_functions.RULES,
    *transforms.RULES,
    *argument_checks.RULES,
    *jax_internals.RULES,
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
