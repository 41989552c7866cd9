"""stablax.errors: the exceptions tracing raises, under JAX's names."""

from stablax._src.core import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    UnexpectedTracerError,
)

__all__ = ["ConcretizationTypeError", "TracerArrayConversionError", "UnexpectedTracerError"]
