"""stablax.scipy.stats.dirichlet: as `jax.scipy.stats.dirichlet`."""

from stablax._src.scipy.stats.dirichlet import logpdf, pdf

__all__ = ["logpdf", "pdf"]
