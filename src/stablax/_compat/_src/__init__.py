"""`jax._src` under the alias: only the internals optax, chex, flax, equinox and haiku touch.

Every other `jax._src.X` is absent (ImportError), as stablax has no such internals.
"""
