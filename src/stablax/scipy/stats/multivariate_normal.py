"""stablax.scipy.stats.multivariate_normal: as `jax.scipy.stats.multivariate_normal`."""

from stablax._src.scipy.stats.multivariate_normal import logpdf, pdf

__all__ = ["logpdf", "pdf"]
