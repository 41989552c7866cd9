"""stablax.scipy.stats.norm: as `jax.scipy.stats.norm`."""

from stablax._src.scipy.stats.norm import cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
