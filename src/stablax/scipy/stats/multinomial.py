"""stablax.scipy.stats.multinomial: as `jax.scipy.stats.multinomial`."""

from stablax._src.scipy.stats.multinomial import logpmf, pmf

__all__ = ["logpmf", "pmf"]
