"""stablax.scipy.integrate: JAX's jax.scipy.integrate (trapezoid)."""

from stablax._src.scipy.integrate import trapezoid

__all__ = ["trapezoid"]
