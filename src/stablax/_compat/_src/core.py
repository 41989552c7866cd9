"""`jax._src.core` under the alias: the same names as the alias's `jax.core` (flax, haiku)."""

from stablax._compat.core import *  # noqa: F403
from stablax._compat.core import OpaqueTraceState, get_opaque_trace_state  # noqa: F401
