"""`Primitive`: JAX's primitive objects (`lax.add_p`, `random.random_gamma_p`, ...), with a `bind`
that maps JAX's parameters onto the stablax function each one stands for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Primitive:
    """A named operation with JAX's `bind` interface.

    Libraries written for JAX compare primitives by identity and sometimes bind them directly;
    both work. stablax's own rule tables are keyed by StableHLO op names, not by these objects.
    """

    def __init__(self, name: str, impl: Callable[..., Any], multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        self._impl = impl

    def bind(self, *args: Any, **params: Any) -> Any:
        """Applies the operation to `args` with JAX's parameters for it.

        Returns:
          One array, or a list of arrays when `multiple_results`.
        """
        out = self._impl(*args, **params)
        return list(out) if self.multiple_results else out

    def __repr__(self) -> str:
        return self.name
