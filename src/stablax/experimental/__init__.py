"""stablax.experimental: JAX's jax.experimental modules."""
