"""Records JAX's jaxprs (primitive names and params) for the programs of tests/jaxpr_cases.py.

Run with a Python that has JAX installed (never imported by stablax or its tests), from the
repository root:
    PYTHONPATH=. /work/venv/bin/python scripts/record_jaxpr_view.py
It writes tests/data/jaxpr_view.json, which tests/test_jaxpr_view.py reads.
"""

from __future__ import annotations

import json
import pathlib

import jax
from tests.jaxpr_cases import CASES, describe

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data"


def main() -> None:
    table = {}
    for name, case in CASES.items():
        fun, args = case(jax)
        closed = jax.make_jaxpr(fun)(*args)
        table[name] = {
            "eqns": describe(closed),
            "in_avals": [a.str_short() for a in closed.in_avals],
            "out_avals": [a.str_short() for a in closed.out_avals],
        }
    text = json.dumps({"jax": jax.__version__, "cases": table}, indent=1, sort_keys=True)
    (OUT / "jaxpr_view.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
