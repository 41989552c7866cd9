"""stablax.scipy.stats.gamma: as `jax.scipy.stats.gamma`."""

from stablax._src.scipy.stats.gamma import cdf, logcdf, logpdf, logsf, pdf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
