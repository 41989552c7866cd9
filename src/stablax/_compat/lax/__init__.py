"""`jax.lax` under the alias: stablax.lax plus the collectives libraries reference at import.

`jax.lax.linalg` and other submodules still come from stablax.lax. The named-axis collectives
below raise NotImplementedError when called (they need pmap/shard_map, a later issue);
`with_sharding_constraint` is exact for one device (the data is already all on it).
"""

from __future__ import annotations

from typing import Any

import stablax.lax as _lax
from stablax._compat import out_sharding as _out_sharding
from stablax.lax import *  # noqa: F403

# JAX's out_sharding= keyword (flax's nnx.Conv passes it; see compat.out_sharding).
globals().update(_out_sharding.wrappers(_lax, "lax", _out_sharding.NAMES["lax"]))

_COLLECTIVES = "later issue: parallelism (collectives over named axes need pmap/shard_map)"


def _collective(name: str, needed_by: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"jax.lax.{name} (stablax alias; {needed_by}): {_COLLECTIVES}")

    fn.__name__ = name
    return fn


all_to_all = _collective("all_to_all", "chex's fake_pmap wraps it at import")
ppermute = _collective("ppermute", "chex's fake_pmap wraps it at import")
pswapaxes = _collective("pswapaxes", "chex's fake_pmap wraps it at import")
pbroadcast = _collective("pbroadcast", "multi-device code")
pshuffle = _collective("pshuffle", "multi-device code")


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """`x` unchanged: with one device every sharding constraint already holds (flax, optax)."""
    return x


def __getattr__(name: str) -> Any:  # stablax.lax's private names and late additions
    return getattr(_lax, name)
