"""The jvp rule of an operation JAX does not differentiate: it raises JAX's NotImplementedError,
naming the operation as JAX does ('pmax', 'rng_uniform', 'lax.igamma_grad_a')."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def jvp_not_implemented(name: str) -> Callable[..., Any]:
    """An op's jvp rule, or a custom_jvp rule, that raises JAX's error for `name`."""

    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")

    return rule
