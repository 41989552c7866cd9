"""stablax.scipy.stats.binom: as `jax.scipy.stats.binom`."""

from stablax._src.scipy.stats.binom import logpmf, pmf

__all__ = ["logpmf", "pmf"]
