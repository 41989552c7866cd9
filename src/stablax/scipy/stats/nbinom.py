"""stablax.scipy.stats.nbinom: as `jax.scipy.stats.nbinom`."""

from stablax._src.scipy.stats.nbinom import logpmf, pmf

__all__ = ["logpmf", "pmf"]
