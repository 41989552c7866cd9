"""stablax.scipy.stats.logistic: as `jax.scipy.stats.logistic`."""

from stablax._src.scipy.stats.logistic import cdf, isf, logpdf, pdf, ppf, sf

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]
