"""scipy.cluster.vq.vq: assigns each observation to its nearest code book entry."""

from __future__ import annotations

from typing import Any

from stablax import numpy as jnp
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.transforms.vmap_api import vmap


def vq(obs: Any, code_book: Any, check_finite: bool = True) -> tuple[Any, Any]:
    """Vector quantization (scipy.cluster.vq.vq).

    Args:
      obs: observations (M, N), or (M,) for scalars.
      code_book: code words (K, N), or (K,).

    Returns:
      `(code, dist)`: the index of each observation's nearest code word and the Euclidean
      distance to it.
    """
    del check_finite
    obs, code_book = promote_dtypes_inexact(jnp.asarray(obs), jnp.asarray(code_book))
    if obs.ndim != code_book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, code_book = obs[..., None], code_book[..., None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: jnp.linalg.norm(ob[None] - code_book, axis=-1))(obs)
    code = jnp.argmin(dist, axis=-1)
    return code, vmap(lambda d, c: d[c])(dist, code)
