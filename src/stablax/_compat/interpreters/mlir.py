"""`jax.interpreters.mlir` under the alias (equinox lowers its primitives with `lower_fun`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablax._compat.primitives import lowerings


class _LoweredFun:
    """`lower_fun(f)`: the primitive is lowered by tracing `f` (stablax runs it as is)."""

    lowers_by_tracing = True

    def __init__(self, fun: Callable, multiple_results: bool) -> None:
        self.fun = fun
        self.multiple_results = multiple_results

    def __call__(self, *args: Any, **params: Any) -> Any:
        return self.fun(*args, **params)


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
    """Marks `fun` (of arrays) as the lowering of a primitive."""
    return _LoweredFun(fun, multiple_results)


def register_lowering(prim: Any, rule: Any, platform: str | None = None, **unused: Any) -> Any:
    """Registers `rule` as `prim`'s lowering.

    A rule made by `lower_fun` is run as stablax code when `prim` is bound; a rule that emits
    MLIR by hand is recorded, and binding `prim` then uses its implementation (`def_impl`), or
    raises NotImplementedError if it has none.
    """
    lowerings[prim] = rule
    return rule
