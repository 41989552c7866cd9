"""stablax.scipy.stats.expon: as `jax.scipy.stats.expon`."""

from stablax._src.scipy.stats.expon import cdf, logcdf, logpdf, logsf, pdf, ppf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
