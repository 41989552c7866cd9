"""`jax.extend` under the alias (equinox, flax, haiku)."""

from stablax._compat.extend import core as core
