"""stablax.scipy.stats.vonmises: as `jax.scipy.stats.vonmises`."""

from stablax._src.scipy.stats.vonmises import logpdf, pdf

__all__ = ["logpdf", "pdf"]
