"""`stablax.tree`: the short names of `stablax.tree_util` (`tree.map`, `tree.leaves`, ...), as
`jax.tree`."""

from __future__ import annotations

import dataclasses
from typing import Any

from stablax._src.tree_util import tree_all as all  # noqa: A004 (JAX's name)
from stablax._src.tree_util import tree_broadcast as broadcast
from stablax._src.tree_util import tree_flatten as flatten
from stablax._src.tree_util import tree_flatten_with_path as flatten_with_path
from stablax._src.tree_util import tree_leaves as leaves
from stablax._src.tree_util import tree_leaves_with_path as leaves_with_path
from stablax._src.tree_util import tree_map as map  # noqa: A004
from stablax._src.tree_util import tree_map_with_path as map_with_path
from stablax._src.tree_util import tree_reduce as reduce
from stablax._src.tree_util import tree_reduce_associative as reduce_associative
from stablax._src.tree_util import tree_structure as structure
from stablax._src.tree_util import tree_transpose as transpose
from stablax._src.tree_util import tree_unflatten as unflatten


def static(**kwargs: Any) -> Any:
    """A `dataclasses.field` marked static: `register_dataclass` puts it in the treedef.

    Args:
      **kwargs: the arguments of `dataclasses.field`; `metadata` is extended with
        `static=True`.

    Returns:
      The field, e.g. `op: str = stablax.tree.static(default="add")`.
    """
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)


__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]
