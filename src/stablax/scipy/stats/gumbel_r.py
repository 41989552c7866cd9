"""stablax.scipy.stats.gumbel_r: as `jax.scipy.stats.gumbel_r`."""

from stablax._src.scipy.stats.gumbel_r import cdf, logcdf, logpdf, logsf, pdf, ppf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
