"""stablax.scipy.stats.poisson: as `jax.scipy.stats.poisson`."""

from stablax._src.scipy.stats.poisson import cdf, entropy, logpmf, pmf

__all__ = ["cdf", "entropy", "logpmf", "pmf"]
