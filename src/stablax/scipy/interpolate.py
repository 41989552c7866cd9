"""stablax.scipy.interpolate: JAX's jax.scipy.interpolate (RegularGridInterpolator)."""

from stablax._src.scipy.interpolate import RegularGridInterpolator

__all__ = ["RegularGridInterpolator"]
