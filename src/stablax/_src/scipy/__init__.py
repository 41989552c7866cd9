"""stablax.scipy's implementation: special functions and statistical distributions."""
