"""`Primitive`: JAX's primitive objects (`lax.add_p`, `random.random_gamma_p`, ...), with a `bind`
that maps JAX's parameters onto the stablax function each one stands for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_BY_NAME: dict[str, Primitive] = {}  # JAX's primitive name -> the first object made with it


def lookup(name: str) -> Primitive | None:
    """The primitive object with JAX's name `name` ("dot_general", "mul", ...), if one exists."""
    return _BY_NAME.get(name)


class Primitive:
    """A named operation with JAX's `bind` interface.

    Libraries written for JAX compare primitives by identity and sometimes bind them directly;
    both work. stablax's own rule tables are keyed by StableHLO op names, not by these objects.
    """

    def __init__(
        self,
        name: str,
        impl: Callable[..., Any],
        multiple_results: bool = False,
        *,
        register: bool = True,
    ) -> None:
        self.name = name
        self.multiple_results = multiple_results
        self._impl = impl
        if register:  # `lookup(name)` finds the first one registered
            _BY_NAME.setdefault(name, self)

    def bind(self, *args: Any, **params: Any) -> Any:
        """Applies the operation to `args` with JAX's parameters for it.

        Returns:
          One array, or a list of arrays when `multiple_results`.
        """
        out = self._impl(*args, **params)
        return list(out) if self.multiple_results else out

    def __repr__(self) -> str:
        return self.name
