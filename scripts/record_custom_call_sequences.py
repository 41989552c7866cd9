"""Records which user functions JAX's custom_jvp / custom_vjp run, in order, per transformation.

Run with a Python that has JAX installed (never imported by stablax or its tests), from the
repository root:
    PYTHONPATH=. /work/jaxvenv/bin/python scripts/record_custom_call_sequences.py
It writes tests/data/custom_call_sequences.json, which tests/interpreters/test_custom_call_sequences.py reads.
"""

from __future__ import annotations

import json
import pathlib

import jax

from tests.custom_call_cases import ALL_SCENARIOS

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data"


def main() -> None:
    table = {}
    for name, scenario in ALL_SCENARIOS.items():
        calls, values = scenario(jax)
        table[name] = {"calls": calls, "values": values}
    text = json.dumps({"jax": jax.__version__, "scenarios": table}, indent=1, sort_keys=True)
    (OUT / "custom_call_sequences.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
