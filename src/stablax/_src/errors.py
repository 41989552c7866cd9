"""The exception classes of `stablax.errors`, with JAX's names and hierarchy.

Defined here, below every other layer, so that tracing, indexing and the runtime raise the
very classes users catch.
"""

from __future__ import annotations

from stablax._src.runtime import XlaRuntimeError


class JAXTypeError(TypeError):
    """Base of the TypeErrors that tracing raises."""


class JAXIndexError(IndexError):
    """Base of the IndexErrors that tracing raises."""


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where Python needs a concrete one (`if x > 0:` under jit)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """`bool()` of a traced value (`if x:`, `while x:`, `x and y`) under jit."""


class TracerIntegerConversionError(JAXTypeError):
    """`__index__()` of a traced value: a traced integer used as a Python index or size."""


class TracerArrayConversionError(JAXTypeError):
    """A tracer was handed to NumPy (`np.asarray(tracer)`)."""


class UnexpectedTracerError(JAXTypeError):
    """A tracer escaped the function that created it (e.g. stored in a global)."""


class NonConcreteBooleanIndexError(JAXIndexError):
    """A boolean mask index whose value is only known when the program runs (under `jit`)."""


class KeyReuseError(JAXTypeError):
    """A PRNG key was consumed twice (raised by key-reuse checking)."""


class JaxprTypeError(TypeError):
    """A staged program is ill-typed (raised by internal consistency checks)."""


class InconclusiveDimensionOperation(Exception):  # noqa: N818 (JAX's name)
    """A comparison of symbolic dimensions has no single answer (shape polymorphism)."""


# The error the runtime raises when compiling or running a program fails (jaxlib's class).
JaxRuntimeError = XlaRuntimeError
