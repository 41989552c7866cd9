"""jaxlib's C++ pytree flattening, for `jit`'s cache-hit path.

`tree_util` flattens in Python with stablax's registry (registration, key paths, `PyTreeDef`
semantics). A cache hit only needs a hashable structure and the leaves, so `jit` flattens its
arguments with a C++ `PyTreeRegistry` that knows the built-in containers (None, tuple,
namedtuple, list, dict) and mirrors stablax's registrations (`sync`, run on every jit cache miss
before a call is filed, calls each node type's own stablax flatten/unflatten). Anything that
registry does not know is one leaf there, so a call is only filed for the fast path when the C++
leaves are exactly (by identity) the leaves stablax's own flatten produced: the two registries
then agree on that call's structure, and any other structure (a class registered since, a dict
subclass) keeps a leaf whose type no fast-path key holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaxlib import _jax

from stablax._src import pytree_registry, tree_util

_registry = _jax.pytree.PyTreeRegistry(
    enable_none=True, enable_tuple=True, enable_namedtuple=True, enable_list=True, enable_dict=True
)

flatten = _registry.flatten  # tree -> (leaves, C++ PyTreeDef)

_BUILT_IN = ("tuple", "list", "dict", "none", "namedtuple")  # the C++ registry's own node kinds
_mirrored: set[type] = set()


def sync() -> None:
    """Registers in the C++ registry every stablax node type registered since the last call."""
    registered = pytree_registry._registry
    if len(registered) == len(_mirrored) + len(_BUILT_IN) - 1:  # namedtuples are not in it
        return
    for nodetype, kind in list(registered.items()):
        if kind.category in _BUILT_IN or nodetype in _mirrored:
            continue
        _mirrored.add(nodetype)
        try:
            _registry.register_node(nodetype, kind.flatten, kind.unflatten)
        except Exception:  # not mirrorable: calls holding it stay on stablax's flatten
            pass


def same_leaves(fast: Sequence[Any], slow: Sequence[Any]) -> bool:
    """Whether the C++ flatten of a call saw exactly stablax's leaves, in stablax's order."""
    return len(fast) == len(slow) and all(a is b for a, b in zip(fast, slow))


def output_treedef(out_tree: Any) -> Any:
    """The C++ treedef equivalent to stablax treedef `out_tree`, or None where they differ."""
    n = out_tree.num_leaves
    markers = [object() for _ in range(n)]
    try:
        leaves, treedef = flatten(tree_util.tree_unflatten(out_tree, markers))
    except Exception:  # a registered class whose unflatten rejects placeholder leaves
        return None
    if not same_leaves(leaves, markers):
        return None
    try:  # the C++ rebuild must give back stablax's structure (namedtuples, dict key order)
        rebuilt = treedef.unflatten(markers)
        if tree_util.tree_structure(rebuilt) != out_tree:
            return None
    except Exception:
        return None
    return treedef
