"""`jax._src.compiler` under the alias (chex.restrict_backends patches these at import time).

stablax compiles through its own runtime and never calls these, so a restriction chex patches in
here would not be enforced; calling them raises NotImplementedError rather than pretending.
"""

from __future__ import annotations

from typing import Any


def _not_used(name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"jax._src.compiler.{name} (stablax alias; chex.restrict_backends): stablax compiles "
            "through its own runtime, so backend restrictions are not enforced"
        )

    fn.__name__ = name
    return fn


backend_compile = _not_used("backend_compile")
backend_compile_and_load = _not_used("backend_compile_and_load")
compile_or_get_cached = _not_used("compile_or_get_cached")
