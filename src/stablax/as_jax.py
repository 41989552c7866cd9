"""`python -m stablax.as_jax script.py [args]`: runs a program written for JAX on stablax.

The script runs as `__main__` with `import jax` resolving to stablax (`stablax.install_as_jax`);
`python -m stablax.as_jax -m package.module [args]` runs a module the same way.
"""

from __future__ import annotations

import runpy
import sys

from stablax._compat.finder import install_as_jax

_USAGE = "usage: python -m stablax.as_jax script.py [args ...] | -m module [args ...]"


def main(argv: list[str]) -> None:
    """Runs `argv[0]` (a script path, or `-m module`) with `argv[1:]` as its arguments."""
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr)
        raise SystemExit(2)
    install_as_jax()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            raise SystemExit(2)
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
