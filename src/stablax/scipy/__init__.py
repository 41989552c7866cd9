"""stablax.scipy: JAX's jax.scipy submodules on stablax arrays."""

from stablax.scipy import linalg as linalg
