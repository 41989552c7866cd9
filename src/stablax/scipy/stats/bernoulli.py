"""stablax.scipy.stats.bernoulli: as `jax.scipy.stats.bernoulli`."""

from stablax._src.scipy.stats.bernoulli import cdf, logpmf, pmf, ppf

__all__ = ["cdf", "logpmf", "pmf", "ppf"]
