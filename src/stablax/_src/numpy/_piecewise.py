"""jnp.piecewise: a `lax.switch` per element, under vmap."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src import lax
from stablax._src.avals import aval_of
from stablax._src.numpy import _asarray
from stablax._src.transforms.vmap_api import vmap


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """NumPy's piecewise: funclist[i] where condlist[i] holds (later conditions win), the extra
    last function (or 0) where none does; constants stand for constant functions.

    Each element picks its function through a `lax.switch` under vmap (a select of the
    branches' values), as jnp.piecewise does in JAX.
    """
    x = _asarray.asarray(x)
    dtype = aval_of(x).dtype
    conds = _asarray.asarray(condlist, dtype=np.bool_)
    if aval_of(conds).ndim == 0 or aval_of(conds).ndim == aval_of(x).ndim == 0:
        conds = lax.reshape(conds, (1, *aval_of(conds).shape))
    nc, nf = aval_of(conds).shape[0], len(funclist)
    if nf == nc + 1:
        default, funcs = funclist[-1], list(funclist[:-1])
    elif nf == nc:
        default, funcs = 0, list(funclist)
    else:
        raise ValueError(
            f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}"
        )
    shape = aval_of(x).shape
    cond_shape = aval_of(conds).shape[1:]
    if len(cond_shape) > len(shape) or any(
        c not in (1, d) for c, d in zip(cond_shape[::-1], shape[::-1], strict=False)
    ):
        raise ValueError(
            f"jnp.piecewise: conditions of shape {cond_shape} do not broadcast to x's shape "
            f"{shape}{mlir.where_suffix()}"
        )
    conds = lax.broadcast_in_dim(
        conds, (nc, *shape), (0, *range(1 + len(shape) - len(cond_shape), 1 + len(shape)))
    )
    counts = lax.cumsum(lax.convert_element_type(conds, np.int32), 0)
    # Index of the last condition that holds, plus one (0: none holds, the default applies).
    index = lax.argmax(
        lax.concatenate([lax.full((1, *shape), 0, np.int32), counts], 0), 0, np.int32
    )

    def as_function(f: Any) -> Callable:
        if callable(f):
            return lambda v: lax.convert_element_type(f(v, *args, **kw), dtype)
        constant = np.asarray(f, dtype=dtype)
        return lambda v: lax.full((), constant, dtype)

    branches = [as_function(f) for f in [default, *funcs]]
    flat = vmap(lambda i, v: lax.switch(i, branches, v))(
        lax.reshape(index, (int(np.prod(shape, dtype=np.int64)),)),
        lax.reshape(x, (int(np.prod(shape, dtype=np.int64)),)),
    )
    return lax.reshape(flat, shape)
