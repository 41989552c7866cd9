"""`fwd_and_bwd`: a function's forward pass (outputs and residuals) and its backward pass, as two
functions (jitted by default), so the backward compiles once and is reused across steps."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from stablax._src.jit import jit
from stablax._src.transforms.ad_reverse import vjp


def fwd_and_bwd(
    fun: Callable, argnums: int | Sequence[int], has_aux: bool = False, jitted: bool = True
) -> tuple[Callable, Callable]:
    """The forward and backward passes of `fun` as two functions.

    `fwd(*args)` is `vjp` of `fun` with respect to the arguments `argnums`: it returns
    `(outputs, residuals)` (`(outputs, residuals, aux)` with `has_aux`), where `residuals` is the
    vjp function, a pytree. `bwd(residuals, cotangent)` returns the cotangents of those arguments
    (one value for an int `argnums`, a tuple for a sequence). Jitted, `bwd` is compiled once and
    reused, unlike `jit` of a fresh vjp function on every step.

    Args:
      fun: the function to differentiate.
      argnums: the positional argument(s) to differentiate with respect to.
      has_aux: `fun` returns `(output, aux)`; aux is returned by `fwd` and not differentiated.
      jitted: return `jit(fwd)` and `jit(bwd)` (the default).

    Returns:
      `(fwd, bwd)`.
    """
    if not callable(fun):
        raise TypeError(f"fwd_and_bwd: expected a callable, got {fun!r}")
    single = isinstance(argnums, int)
    positions = (operator.index(argnums),) if single else tuple(map(operator.index, argnums))

    def fwd(*args: Any, **kwargs: Any) -> Any:
        n = len(args)
        for i in positions:
            if not -n <= i < n:
                raise TypeError(
                    f"fwd_and_bwd: argnums {argnums} out of range for {n} positional arguments"
                )
        wanted = [i % n for i in positions]

        def partial_fun(*diff: Any) -> Any:
            full = list(args)
            for i, x in zip(wanted, diff, strict=True):
                full[i] = x
            return fun(*full, **kwargs)

        return vjp(partial_fun, *[args[i] for i in wanted], has_aux=has_aux)

    def bwd(f_vjp: Callable, outgrad: Any) -> Any:
        cts = f_vjp(outgrad)
        return cts[0] if single else cts

    if jitted:
        return jit(fwd), jit(bwd)
    return fwd, bwd
