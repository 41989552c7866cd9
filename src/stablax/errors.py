"""stablax.errors: the exceptions tracing and the runtime raise, under JAX's names."""

from stablax._src.errors import (
    ConcretizationTypeError,
    InconclusiveDimensionOperation,
    JAXIndexError,
    JaxprTypeError,
    JaxRuntimeError,
    JAXTypeError,
    KeyReuseError,
    NonConcreteBooleanIndexError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)

__all__ = [
    "ConcretizationTypeError",
    "InconclusiveDimensionOperation",
    "JAXIndexError",
    "JAXTypeError",
    "JaxRuntimeError",
    "JaxprTypeError",
    "KeyReuseError",
    "NonConcreteBooleanIndexError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "UnexpectedTracerError",
]
