"""`jax.experimental.layout` under the alias (flax.core.spmd: isinstance checks on Format).

stablax arrays always have the default (row-major) layout, so `Layout` only records what was
asked and `Format` pairs it with a sharding.
"""

from __future__ import annotations

from typing import Any


class Layout:
    """A device-local memory layout (stablax: always the default one)."""

    def __init__(self, major_to_minor: Any = None, *args: Any, **kwargs: Any) -> None:
        self.major_to_minor = major_to_minor


class Format:
    """A layout and a sharding together."""

    def __init__(self, layout: Any = None, sharding: Any = None) -> None:
        self.layout = layout
        self.sharding = sharding

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, Format)
            and self.layout == other.layout
            and self.sharding == other.sharding
        )

    def __hash__(self) -> int:
        return hash((id(self.layout), self.sharding))

    def __repr__(self) -> str:
        return f"Format({self.layout!r}, {self.sharding!r})"
