"""Prints pyproject's `ecosystem` extra, one requirement a line, for `pip install --no-deps`.

The JAX libraries must be installed without their `jax` dependency (stablax stands in for it
under `stablax.install_as_jax()`), which an extra alone cannot express.
"""

import pathlib
import tomllib

PYPROJECT = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"

if __name__ == "__main__":
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    print("\n".join(extras["ecosystem"]))
