"""Records the configuration flags of JAX 0.10.2 and their default values (run with JAX):

    /work/venv-jax/bin/python scripts/record_jax_flags.py

Writes tests/data/jax_flags.json: {name: repr(default)}; enum defaults are recorded by value.
"""

from __future__ import annotations

import enum
import json
import pathlib

import jax

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "jax_flags.json"


def main() -> None:
    flags = {}
    for name in sorted(jax.config.values):
        value = jax.config._value_holders[name].value
        flags[name] = value.value if isinstance(value, enum.Enum) else value
    OUT.write_text(json.dumps(flags, indent=1, sort_keys=True, default=repr) + "\n")
    print(f"recorded {len(flags)} flags of JAX {jax.__version__}")


if __name__ == "__main__":
    main()
