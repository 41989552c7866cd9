"""`jax.numpy` under the alias: stablax.numpy, its creation and product functions taking
`out_sharding=` as in JAX (flax, optax; see compat.out_sharding). `jax.numpy.linalg` and the
other submodules are stablax's own."""

from typing import Any

import stablax.numpy as _numpy
from stablax._compat import out_sharding as _out_sharding
from stablax.numpy import *  # noqa: F403

globals().update(_out_sharding.wrappers(_numpy, "numpy", _out_sharding.NAMES["numpy"]))


def __getattr__(name: str) -> Any:  # stablax.numpy's private and late names
    return getattr(_numpy, name)
