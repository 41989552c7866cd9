"""`jax.interpreters.batching` under the alias (equinox registers batching rules)."""

from stablax._compat.primitives import (
    AxisData,
    axis_primitive_batchers,
    not_mapped,
    primitive_batchers,
)  # noqa: F401
