"""stablax.scipy.cluster: JAX's jax.scipy.cluster."""

from stablax.scipy.cluster import vq as vq
