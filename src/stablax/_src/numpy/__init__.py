"""The implementation of stablax.numpy; importing it attaches operators to Array and Tracer."""

from stablax._src.numpy import _array_methods  # noqa: F401
