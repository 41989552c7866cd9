"""stablax.scipy.special's implementation, one file per family of functions."""
