"""stablax.experimental: JAX's jax.experimental modules."""

from stablax._src.callbacks import io_callback as io_callback

# A star import (the jax alias's jax.experimental) takes these names, never the submodules
# imported so far (the alias has its own checkify).
__all__ = ["io_callback"]
