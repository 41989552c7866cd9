"""stablax.scipy.sparse: JAX's jax.scipy.sparse."""

from stablax.scipy.sparse import linalg as linalg
