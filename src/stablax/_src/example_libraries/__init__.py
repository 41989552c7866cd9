"""JAX's example libraries (stax, optimizers) written on stablax.numpy, lax, random and nn."""
