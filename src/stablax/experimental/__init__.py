"""stablax.experimental: JAX's jax.experimental modules."""

from stablax._src.callbacks import io_callback as io_callback
