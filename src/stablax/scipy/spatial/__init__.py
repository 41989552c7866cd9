"""stablax.scipy.spatial: JAX's jax.scipy.spatial."""

from stablax.scipy.spatial import transform as transform
