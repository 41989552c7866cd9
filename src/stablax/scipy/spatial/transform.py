"""stablax.scipy.spatial.transform: JAX's jax.scipy.spatial.transform (Rotation, Slerp)."""

from stablax._src.scipy.spatial.transform import Rotation, Slerp

__all__ = ["Rotation", "Slerp"]
