"""stablax.example_libraries: JAX's example libraries, stax (networks) and optimizers."""
