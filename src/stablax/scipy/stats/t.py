"""stablax.scipy.stats.t: as `jax.scipy.stats.t`."""

from stablax._src.scipy.stats.t import logpdf, pdf

__all__ = ["logpdf", "pdf"]
