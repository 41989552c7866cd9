"""stablax.scipy.ndimage: JAX's jax.scipy.ndimage (map_coordinates)."""

from stablax._src.scipy.ndimage import map_coordinates

__all__ = ["map_coordinates"]
