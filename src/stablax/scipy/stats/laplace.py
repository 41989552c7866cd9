"""stablax.scipy.stats.laplace: as `jax.scipy.stats.laplace`."""

from stablax._src.scipy.stats.laplace import cdf, logpdf, pdf

__all__ = ["cdf", "logpdf", "pdf"]
