"""stablax.scipy.stats.gennorm: as `jax.scipy.stats.gennorm`."""

from stablax._src.scipy.stats.gennorm import cdf, logpdf, pdf

__all__ = ["cdf", "logpdf", "pdf"]
