"""stablax.scipy.stats.uniform: as `jax.scipy.stats.uniform`."""

from stablax._src.scipy.stats.uniform import cdf, logpdf, pdf, ppf

__all__ = ["cdf", "logpdf", "pdf", "ppf"]
