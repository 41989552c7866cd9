"""The implementation of stablax.numpy (_array_methods gives Array and Tracer their methods)."""
