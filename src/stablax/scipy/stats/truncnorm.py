"""stablax.scipy.stats.truncnorm: as `jax.scipy.stats.truncnorm`."""

from stablax._src.scipy.stats.truncnorm import cdf, logcdf, logpdf, logsf, pdf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
