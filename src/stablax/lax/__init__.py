"""stablax.lax: primitives that map one-to-one (or nearly) onto StableHLO operations."""

from stablax._src.lax import *  # noqa: F403
from stablax._src.lax import abs, complex, max, min, pow, round, slice
from stablax.lax import linalg
