"""stablax.scipy.stats.chi2: as `jax.scipy.stats.chi2`."""

from stablax._src.scipy.stats.chi2 import cdf, logcdf, logpdf, logsf, pdf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
