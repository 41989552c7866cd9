"""`jax.experimental.io_callback` under the alias (equinox: imported, used by its debug tools)."""

from __future__ import annotations

from typing import Any

from stablax import numpy as jnp
from stablax._src import core as _core
from stablax._src import tree_util


def io_callback(callback: Any, result_shape_dtypes: Any, *args: Any, **kwargs: Any) -> Any:
    """Calls `callback` on host values: eagerly it is simply called; traced it is not supported.

    Raises:
      NotImplementedError: an argument is traced (host callbacks inside jit are a later issue).
    """
    kwargs.pop("sharding", None)
    kwargs.pop("ordered", None)
    leaves = tree_util.tree_leaves((args, kwargs))
    if any(isinstance(x, _core.Tracer) for x in leaves):
        raise NotImplementedError(
            "jax.experimental.io_callback inside a transformation (stablax alias; equinox's "
            "debug callbacks need it): later issue: host callbacks"
        )
    out = callback(*args, **kwargs)
    return tree_util.tree_map(lambda o, s: jnp.asarray(o, dtype=s.dtype), out, result_shape_dtypes)
