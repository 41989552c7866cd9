"""stablax.scipy.cluster.vq: JAX's jax.scipy.cluster.vq (vq)."""

from stablax._src.scipy.cluster import vq

__all__ = ["vq"]
