"""`jax.random` under the alias: stablax.random, its samplers taking `out_sharding=` (flax's
Dropout passes `jax.typeof(x).sharding`; see compat.out_sharding)."""

from typing import Any

import stablax.random as _random
from stablax._compat import out_sharding as _out_sharding
from stablax.random import *  # noqa: F403

globals().update(_out_sharding.wrappers(_random, "random", _out_sharding.NAMES["random"]))


def __getattr__(name: str) -> Any:  # stablax.random's other names
    return getattr(_random, name)
