"""ravel_pytree: a pytree of arrays as one flat vector, and the function that restores it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, tree_util


def ravel_pytree(pytree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """Flattens a pytree of arrays into one 1-D array of their common dtype.

    Returns:
      `(flat, unravel)`: the concatenated, raveled leaves, and the function mapping such a
      vector back to the pytree (each leaf reshaped and cast back to its own dtype).
    """
    leaves, treedef = tree_util.tree_flatten(pytree)
    arrays = [jnp.asarray(x) for x in leaves]
    shapes = [x.shape for x in arrays]
    leaf_dtypes = [x.dtype for x in arrays]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    common = dtypes.result_type(*arrays) if arrays else dtypes.canonicalize_dtype(np.float32)
    if arrays:
        flat = jnp.concatenate([jnp.ravel(x).astype(common) for x in arrays])
    else:
        flat = jnp.zeros((0,), common)
    offsets = np.cumsum([0, *sizes])

    def unravel(vector: Any) -> Any:
        vector = jnp.asarray(vector)
        if vector.shape != (offsets[-1],):
            raise ValueError(
                f"The unravel function expected an array of shape {(offsets[-1],)}, got shape "
                f"{vector.shape}."
            )
        parts = [
            vector[offsets[i] : offsets[i + 1]].reshape(shapes[i]).astype(leaf_dtypes[i])
            for i in range(len(shapes))
        ]
        return tree_util.tree_unflatten(treedef, parts)

    return flat, unravel
