"""JAX's `out_sharding=` keyword on the functions that have it in JAX 0.10.2, for the alias.

flax and optax pass `out_sharding=` (often `jax.typeof(x).sharding`) to `jax.random`,
`jax.lax` and `jax.numpy` functions. Every stablax array lives on one device, where any
sharding holds, so the wrapped function checks the value is a sharding (or a PartitionSpec, or
None) and computes exactly what stablax's function computes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from stablax._compat import sharding

# The functions of each module that take `out_sharding` in JAX 0.10.2 (and not yet in stablax).
NAMES = {
    "random": (
        "ball bernoulli beta bits categorical cauchy chisquare dirichlet exponential f gamma "
        "generalized_normal geometric gumbel laplace loggamma logistic lognormal maxwell "
        "multivariate_normal normal orthogonal pareto permutation poisson rademacher randint "
        "rayleigh t triangular truncated_normal uniform wald"
    ).split(),
    "lax": (
        "broadcast broadcast_in_dim broadcasted_iota conv_general_dilated dot reduce reduce_sum "
        "reshape"
    ).split(),
    "numpy": (
        "arange array asarray broadcast_to dot einsum empty full full_like matmul ones ones_like "
        "percentile ravel repeat reshape zeros zeros_like"
    ).split(),
}


def _check(name: str, out_sharding: Any) -> None:
    if out_sharding is None:
        return
    if isinstance(out_sharding, (sharding.Sharding, sharding.PartitionSpec)):
        return
    raise TypeError(
        f"{name}: out_sharding must be a Sharding, a PartitionSpec or None, got "
        f"{type(out_sharding).__name__}"
    )


def accepting_out_sharding(qualname: str, fun: Callable) -> Callable:
    """`fun` with an `out_sharding=` keyword (checked, then dropped: one device)."""

    @functools.wraps(fun)
    def wrapped(*args: Any, out_sharding: Any = None, **kwargs: Any) -> Any:
        _check(qualname, out_sharding)
        return fun(*args, **kwargs)

    return wrapped


def wrappers(module: Any, module_name: str, names: Iterable[str]) -> dict[str, Callable]:
    """`{name: wrapper}` for each of `names` that `module` has and that lacks the keyword."""
    import inspect

    out = {}
    for name in names:
        fun = getattr(module, name, None)
        if fun is None:
            continue
        try:
            params = inspect.signature(fun).parameters
        except (TypeError, ValueError):
            params = {}
        if "out_sharding" in params:
            continue  # stablax already takes it
        out[name] = accepting_out_sharding(f"jax.{module_name}.{name}", fun)
    return out
