"""stablax.scipy.stats.gumbel_l: as `jax.scipy.stats.gumbel_l`."""

from stablax._src.scipy.stats.gumbel_l import cdf, logcdf, logpdf, logsf, pdf, ppf, sf

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
