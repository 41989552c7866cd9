"""stablax.scipy.stats.geom: as `jax.scipy.stats.geom`."""

from stablax._src.scipy.stats.geom import logpmf, pmf

__all__ = ["logpmf", "pmf"]
