"""stablax.scipy.sparse.linalg: JAX's jax.scipy.sparse.linalg (cg, bicgstab, gmres)."""

from stablax._src.scipy.sparse._isolve import bicgstab, cg, gmres

__all__ = ["bicgstab", "cg", "gmres"]
