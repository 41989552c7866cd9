"""`stablax.Array`: the abstract array type, as JAX's `jax.Array`.

Concrete device arrays, tracers and typed PRNG key arrays are all instances of it (each is
registered by the module that defines it), so `isinstance(x, stablax.Array)` holds inside `jit`,
`grad` and `vmap` as in JAX. Internal hot paths test the concrete class, `type(x) is ArrayImpl`.
"""

from __future__ import annotations

import abc


class Array(abc.ABC):  # noqa: B024 (abstract by registration, not by methods)
    """The type of every stablax array: device arrays, traced values and typed key arrays.

    Use it in `isinstance` checks and annotations; arrays are made by `stablax.numpy`
    functions (`jnp.asarray`, `jnp.zeros`, ...), never by calling this class.
    """

    __slots__ = ()
    __module__ = "stablax"

    def __new__(cls, *args, **kwargs):
        raise TypeError(
            "stablax.Array is abstract and cannot be instantiated: use stablax.numpy.asarray"
        )
