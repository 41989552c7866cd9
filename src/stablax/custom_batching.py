"""stablax.custom_batching: functions with user-defined batching rules (JAX's
`jax.custom_batching`)."""

from stablax._src.transforms.custom_batching import custom_vmap as custom_vmap
from stablax._src.transforms.custom_batching import sequential_vmap as sequential_vmap
