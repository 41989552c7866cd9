"""stablax.errors: the exceptions tracing raises, under JAX's names."""

from stablax._src.core import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    UnexpectedTracerError,
)
from stablax._src.numpy._indexing import NonConcreteBooleanIndexError

__all__ = [
    "ConcretizationTypeError",
    "NonConcreteBooleanIndexError",
    "TracerArrayConversionError",
    "UnexpectedTracerError",
]
