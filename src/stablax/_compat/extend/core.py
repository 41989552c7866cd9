"""`jax.extend.core` under the alias: trace state, avals and user primitives.

flax nnx and haiku call `get_opaque_trace_state` while training; equinox defines primitives;
the jaxpr classes exist for isinstance checks and annotations (see compat.core).
"""

from stablax._compat.core import (  # noqa: F401
    ClosedJaxpr,  # equinox: annotations
    DropVar,  # haiku jaxpr_info
    Effect,  # equinox
    Effects,  # equinox
    Jaxpr,  # equinox: annotations
    JaxprEqn,  # haiku jaxpr_info: annotations at import
    Literal,  # haiku jaxpr_info
    TraceTag,  # haiku to_dot
    Var,  # haiku jaxpr_info
    concrete_or_error,  # equinox
    find_top_trace,  # equinox: filter_custom_jvp
    get_aval,  # equinox
    get_opaque_trace_state,  # flax nnx, haiku: while training
    jaxpr_as_fun,  # haiku to_dot
    jaxprs_in_params,  # equinox internals
    mapped_aval,  # equinox: batching rules
    no_effects,  # equinox
    primal_dtype_to_tangent_dtype,  # equinox
    primitives,  # haiku to_dot: primitives.jit_p
    set_current_trace,  # haiku to_dot
    subjaxprs,  # equinox internals
    take_current_trace,  # haiku to_dot
    unmapped_aval,  # equinox: batching rules
    valid_jaxtype,  # equinox
)
from stablax._compat.primitives import Primitive  # noqa: F401  (equinox: its own primitives)
