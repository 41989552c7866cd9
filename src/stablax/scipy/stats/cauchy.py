"""stablax.scipy.stats.cauchy: as `jax.scipy.stats.cauchy`."""

from stablax._src.scipy.stats.cauchy import cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
