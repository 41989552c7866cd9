"""stablax.random's implementation: threefry2x32 from lax ops, keys, and the samplers."""
