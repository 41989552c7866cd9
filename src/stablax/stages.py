"""`stablax.stages`: the types of `jit`'s ahead-of-time stages, as `jax.stages`.

`jit(f)` is a `Wrapped`; `jit(f).lower(*args)` a `Lowered` (the StableHLO module);
`.compile()` a `Compiled` (an XLA executable for that one signature).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, Union, runtime_checkable

from stablax._src.jit import Compiled, Lowered

# Options passed to XLA's compiler by name: `{"xla_cpu_enable_fast_math": False, ...}`.
CompilerOptions = dict[str, Union[str, bool]]  # noqa: UP007


@dataclasses.dataclass(frozen=True, slots=True)
class ArgInfo:
    """The abstract value of one argument of a lowered function, and whether it is donated."""

    _aval: Any
    donated: bool

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape

    @property
    def dtype(self) -> Any:
        return self._aval.dtype


@runtime_checkable
class Wrapped(Protocol):
    """What `jit(f)` returns: callable, with the `lower` and `trace` stages."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def lower(self, *args: Any, **kwargs: Any) -> Lowered: ...

    def trace(self, *args: Any, **kwargs: Any) -> Any: ...


__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Wrapped"]
