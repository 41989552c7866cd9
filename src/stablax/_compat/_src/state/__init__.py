"""`jax._src.state` under the alias (flax: `jax._src.state.types.AbstractRef`)."""
