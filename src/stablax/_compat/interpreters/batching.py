"""`jax.interpreters.batching` under the alias (equinox registers batching rules)."""
