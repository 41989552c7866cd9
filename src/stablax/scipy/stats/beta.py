"""stablax.scipy.stats.beta: as `jax.scipy.stats.beta`."""

from stablax._src.scipy.stats.beta import cdf, logcdf, logpdf, logsf, pdf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
