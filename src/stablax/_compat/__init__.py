"""The compatibility package behind `stablax.install_as_jax()`.

Under the alias, `jax.X` is `stablax._compat.X` where this package has a module `X` and
`stablax.X` otherwise. Its modules are JAX's internals (`jax._src.*`, `jax.extend`,
`jax.interpreters`, `jax.core`) and the modules stablax does not export yet (`jax.sharding`,
parts of `jax.experimental`), cut down to what optax, chex, flax, equinox and haiku touch, each
name mapped onto stablax's real machinery with a comment saying which library needs it. Nothing
here is imported by stablax itself unless the alias is installed.
"""
