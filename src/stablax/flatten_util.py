"""`stablax.flatten_util`: `ravel_pytree`, as `jax.flatten_util`."""

from stablax._src.flatten_util import ravel_pytree

__all__ = ["ravel_pytree"]
