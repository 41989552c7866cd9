"""`jax.experimental.checkify` under the alias (chex: asserts, chexify; flax: nnx.checkify):
stablax.experimental.checkify, plus the private names of `jax._src.checkify` that flax reads."""

from __future__ import annotations

from typing import TypeVar

from stablax._src.transforms.checkify_kinds import (  # noqa: F401  (jax._src.checkify's names)
    DivisionByZeroError,
    FailedCheckError,
    JaxException,
    NaNError,
    OOBError,
)
from stablax.experimental.checkify import *  # noqa: F403

Out = TypeVar("Out")  # flax annotates checkify's output with jax._src.checkify.Out
