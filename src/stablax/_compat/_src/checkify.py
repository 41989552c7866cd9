"""`jax._src.checkify` under the alias (flax imports it as checkify_lib)."""

from stablax._compat.experimental.checkify import *  # noqa: F403
