"""stablax.scipy.stats.pareto: as `jax.scipy.stats.pareto`."""

from stablax._src.scipy.stats.pareto import cdf, logcdf, logpdf, logsf, pdf, ppf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
