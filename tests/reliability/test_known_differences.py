"""The known-difference rules themselves: each is a named, documented predicate that answers
every outcome pair without raising (a rule that raises stops a fuzz shard), whatever the
function, its arguments and the outcomes' shapes."""

from __future__ import annotations

import inspect
import itertools
import re

import pytest

from tests.reliability import known_differences

# Values of the shapes fuzz_worker.py reports, including the awkward ones: a bare scalar, an
# array whose values were too large to ship, an empty sequence.
_VALUES = [
    {"kind": "value", "value": {"scalar": 0}},
    {"kind": "value", "value": {"dtype": "float32", "shape": [], "weak": False, "values": None}},
    {"kind": "value", "value": {"seq": []}},
]
_ERRORS = [{"kind": "error", "type": "TypeError", "message": ""}]
# The comparisons fuzz_compare.py makes: (ours, theirs, difference), each outcome of the kind
# the difference's category implies.
_DIFFERENCES = [
    *(
        (ours, theirs, (category, detail))
        for ours, theirs in itertools.product(_VALUES, _VALUES)
        for category, detail in [
            ("diverge-value", ": float32 element 0: 1.0 vs JAX 2.0"),
            ("diverge-dtype", ": stablax float32 vs JAX float64"),
            ("diverge-structure", ""),
        ]
    ),
    *(
        (e, t, ("diverge-exception", "stablax TypeError | JAX TypeError"))
        for e in _ERRORS
        for t in _ERRORS
    ),
    *((e, v, ("diverge-raises", "stablax TypeError")) for e in _ERRORS for v in _VALUES),
    *((v, e, ("diverge-accepts", "JAX TypeError")) for v in _VALUES for e in _ERRORS),
]
_ARRAY = {"array": [2], "dtype": "float32", "seed": 0, "fill": "normal", "as": "array"}
_ARGUMENTS = [[], [_ARRAY, {"py": 1.0}]]


def _calls(predicate) -> list[dict]:
    """Calls of an unknown function (with and without arguments) and of up to four of the
    functions the rule names (with arguments), in two modes."""
    named = re.findall(r'"((?:jnp|lax)\.[\w.]+)"', inspect.getsource(predicate))[:4]
    functions = [("jnp.not_a_function", args) for args in _ARGUMENTS]
    functions += [(fn, _ARGUMENTS[-1]) for fn in named]
    return [
        {"fn": fn, "mode": mode, "x64": False, "args": args, "kwargs": {}, "batch": []}
        for fn, args in functions
        for mode in ("eager", "grad")
    ]


def test_rule_names_are_unique_and_documented():
    names = [name for name, _, _ in known_differences.RULES]
    assert len(names) == len(set(names))
    for name, predicate, reason in known_differences.RULES:
        assert reason and reason.strip(), name
        assert predicate.__doc__ == reason, name


@pytest.mark.parametrize(
    "name, predicate",
    [r[:2] for r in known_differences.RULES],
    ids=[r[0] for r in known_differences.RULES],
)
def test_rule_answers_any_outcome_without_raising(name, predicate):
    for call in _calls(predicate):
        for ours, theirs, difference in _DIFFERENCES:
            try:
                predicate(call, ours, theirs, difference)
            except Exception as error:
                pytest.fail(
                    f"{name} raised {error!r} on {call['fn']} {call['args']}, {ours}, "
                    f"{theirs}, {difference}"
                )
