"""stablax.nn's implementation: activations, the softmax family, attention, block-scaled
products, preprocessing helpers and parameter initializers."""
