"""stablax.scipy.stats.betabinom: as `jax.scipy.stats.betabinom`."""

from stablax._src.scipy.stats.betabinom import logpmf, pmf

__all__ = ["logpmf", "pmf"]
