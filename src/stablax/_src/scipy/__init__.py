"""Implementations behind stablax.scipy (compositions of stablax.numpy and stablax.lax)."""
