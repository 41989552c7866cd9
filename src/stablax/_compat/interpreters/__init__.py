"""`jax.interpreters` under the alias: the rule tables of user primitives (equinox, flax)."""

from stablax._compat.interpreters import ad, batching, mlir, partial_eval  # noqa: F401
