"""`jax.interpreters.batching` under the alias (equinox registers batching rules)."""

from stablax._compat.primitives import (  # noqa: F401
    AxisData,  # equinox: axis_primitive_batchers rules get one
    axis_primitive_batchers,  # equinox: create_vprim
    not_mapped,  # equinox: batching rules
    primitive_batchers,  # equinox: batching rules
)
