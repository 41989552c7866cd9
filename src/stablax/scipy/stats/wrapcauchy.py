"""stablax.scipy.stats.wrapcauchy: as `jax.scipy.stats.wrapcauchy`."""

from stablax._src.scipy.stats.wrapcauchy import logpdf, pdf

__all__ = ["logpdf", "pdf"]
