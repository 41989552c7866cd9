"""stablax.scipy.optimize: JAX's jax.scipy.optimize (unconstrained minimization)."""

from stablax._src.scipy.optimize._minimize import OptimizeResults, minimize

__all__ = ["OptimizeResults", "minimize"]
