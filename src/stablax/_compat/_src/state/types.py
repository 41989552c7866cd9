"""`jax._src.state.types` under the alias: the abstract value of a Ref (flax nnx variables)."""

from stablax._src.refs import AbstractRef  # noqa: F401
