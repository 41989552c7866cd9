"""The first thing a JAX user tries: NumPy on the accelerator, jit, and the program XLA receives."""

import stablax as jax
import stablax.numpy as jnp

x = jnp.arange(1024.0).reshape(32, 32)
print(x @ x.T + 1)  # runs eagerly, prints like NumPy with the dtype


@jax.jit
def f(a, b):
    return jnp.tanh(a @ b).sum(axis=0)


print(f(x, x).block_until_ready())  # compiled once, cached by shape/dtype
print(jax.make_jaxpr(f)(x, x))  # the StableHLO module XLA receives
print(jax.devices(), jax.default_backend())
