"""`jax.extend.core` under the alias: trace state, avals and user primitives.

flax nnx and haiku call `get_opaque_trace_state` while training; equinox defines primitives.
"""

from stablax._compat.core import (  # noqa: F401
    ClosedJaxpr,  # equinox: annotations
    Effect,  # equinox
    Jaxpr,  # equinox: annotations
    Literal,  # haiku jaxpr_info
    Var,  # haiku jaxpr_info
    find_top_trace,  # equinox: filter_custom_jvp
    get_aval,  # equinox
    get_opaque_trace_state,  # flax nnx, haiku: while training
    mapped_aval,  # equinox: batching rules
    unmapped_aval,  # equinox: batching rules
)
from stablax._compat.primitives import Primitive  # noqa: F401  (equinox: its own primitives)
