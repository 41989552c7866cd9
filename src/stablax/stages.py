"""`stablax.stages`: the types of `jit`'s ahead-of-time stages, as `jax.stages`.

`jit(f)` is a `Wrapped`; `jit(f).trace(*args)` a `Traced`; `jit(f).lower(*args)` (or
`.trace(*args).lower()`) a `Lowered` (the StableHLO module);
`.compile()` a `Compiled` (an XLA executable for that one signature).
"""

from __future__ import annotations

from typing import Any, Protocol, Union, runtime_checkable

from stablax._src.jit_stages import Compiled, Lowered
from stablax._src.traced import ArgInfo, Traced

# Options passed to XLA's compiler by name: `{"xla_cpu_enable_fast_math": False, ...}`.
CompilerOptions = dict[str, Union[str, bool]]  # noqa: UP007


@runtime_checkable
class Wrapped(Protocol):
    """What `jit(f)` returns: callable, with the `lower` and `trace` stages."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def lower(self, *args: Any, **kwargs: Any) -> Lowered: ...

    def trace(self, *args: Any, **kwargs: Any) -> Any: ...


__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]
