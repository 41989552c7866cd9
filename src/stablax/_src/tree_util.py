"""Pytrees as in JAX: this module gathers the registry (`pytree_registry`), flattening and treedefs
(`pytree_treedef`), and holds the operations on whole trees (`tree_map`, ...) and `Partial`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Self, TypeVar

# Re-exported: the whole tree_util API is reachable from this module.
from stablax._src.pytree_registry import (
    DictKey as DictKey,
)
from stablax._src.pytree_registry import (
    FlattenedIndexKey as FlattenedIndexKey,
)
from stablax._src.pytree_registry import (
    GetAttrKey as GetAttrKey,
)
from stablax._src.pytree_registry import (
    KeyEntry as KeyEntry,
)
from stablax._src.pytree_registry import (
    KeyPath as KeyPath,
)
from stablax._src.pytree_registry import (
    SequenceKey as SequenceKey,
)
from stablax._src.pytree_registry import (
    is_tree_node as is_tree_node,
)
from stablax._src.pytree_registry import (
    keystr as keystr,
)
from stablax._src.pytree_registry import (
    register_dataclass as register_dataclass,
)
from stablax._src.pytree_registry import (
    register_pytree_node as register_pytree_node,
)
from stablax._src.pytree_registry import (
    register_pytree_node_class as register_pytree_node_class,
)
from stablax._src.pytree_registry import (
    register_pytree_with_keys as register_pytree_with_keys,
)
from stablax._src.pytree_registry import (
    register_pytree_with_keys_class as register_pytree_with_keys_class,
)
from stablax._src.pytree_registry import (
    register_static as register_static,
)
from stablax._src.pytree_treedef import (
    PyTreeDef as PyTreeDef,
)
from stablax._src.pytree_treedef import _flatten_rest, _path_is_leaf
from stablax._src.pytree_treedef import (
    all_leaves as all_leaves,
)
from stablax._src.pytree_treedef import (
    flatten_one_level as flatten_one_level,
)
from stablax._src.pytree_treedef import (
    flatten_one_level_with_keys as flatten_one_level_with_keys,
)
from stablax._src.pytree_treedef import (
    tree_flatten as tree_flatten,
)
from stablax._src.pytree_treedef import (
    tree_flatten_with_path as tree_flatten_with_path,
)
from stablax._src.pytree_treedef import (
    tree_leaves as tree_leaves,
)
from stablax._src.pytree_treedef import (
    tree_leaves_with_path as tree_leaves_with_path,
)
from stablax._src.pytree_treedef import (
    tree_structure as tree_structure,
)
from stablax._src.pytree_treedef import (
    tree_unflatten as tree_unflatten,
)
from stablax._src.pytree_treedef import (
    treedef_children as treedef_children,
)
from stablax._src.pytree_treedef import (
    treedef_is_leaf as treedef_is_leaf,
)
from stablax._src.pytree_treedef import (
    treedef_tuple as treedef_tuple,
)

T = TypeVar("T")


# --- operations on trees ------------------------------------------------------------------------


def tree_map(
    f: Callable[..., Any],
    tree: Any,
    *rest: Any,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Applies `f` to the leaves of `tree` (and the matching subtrees of `rest`).

    Args:
      f: called as `f(leaf, *matching_subtrees_of_rest)`.
      tree: a pytree; its structure is that of the result.
      *rest: pytrees that `tree` is a prefix of (usually the same structure).
      is_leaf: optional predicate marking subtrees of `tree` to treat as leaves.

    Returns:
      A pytree shaped like `tree` holding the results of `f`.

    Raises:
      ValueError: naming the key path where `tree` and a tree in `rest` differ.
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    path_is_leaf = _path_is_leaf(is_leaf, False)
    flat = _flatten_rest(treedef, tree, rest, path_is_leaf, "tree_map tree")
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *flat, strict=True)])


def tree_map_with_path(
    f: Callable[..., Any],
    tree: Any,
    *rest: Any,
    is_leaf: Callable[..., bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> Any:
    """Like `tree_map`, calling `f(key_path, leaf, *matching_subtrees_of_rest)`."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    path_is_leaf = _path_is_leaf(is_leaf, is_leaf_takes_path)
    flat = _flatten_rest(treedef, tree, rest, path_is_leaf, "tree_map_with_path tree")
    return treedef.unflatten([f(path, x, *xs) for (path, x), *xs in zip(pairs, *flat, strict=True)])


def tree_broadcast(
    prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Copies each leaf of `prefix_tree` over the matching subtree of `full_tree`.

    Returns:
      A pytree shaped like `full_tree`.
    """
    prefix_leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    path_is_leaf = _path_is_leaf(is_leaf, False)
    name = "broadcast_prefix prefix_tree"
    (subtrees,) = _flatten_rest(treedef, prefix_tree, (full_tree,), path_is_leaf, name)
    broadcast = []
    for value, subtree in zip(prefix_leaves, subtrees, strict=True):
        sub_leaves, sub_treedef = tree_flatten(subtree, is_leaf)
        broadcast.append(sub_treedef.unflatten([value] * len(sub_leaves)))
    return treedef.unflatten(broadcast)


_NO_INITIAL = object()


def tree_reduce(
    function: Callable[[T, Any], T],
    tree: Any,
    initializer: Any = _NO_INITIAL,
    is_leaf: Callable[[Any], bool] | None = None,
) -> T:
    """`functools.reduce` over the leaves of `tree`, left to right."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIAL:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(
    operation: Callable[[T, T], T],
    tree: Any,
    *,
    identity: Any = _NO_INITIAL,
    is_leaf: Callable[[Any], bool] | None = None,
) -> T:
    """Reduces the leaves pairwise (a balanced tree of calls), keeping their order.

    Args:
      operation: an associative binary function.
      tree: a pytree.
      identity: returned for a tree without leaves.
      is_leaf: optional leaf predicate.
    """
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_INITIAL:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    while len(leaves) > 1:
        paired = [operation(a, b) for a, b in zip(leaves[::2], leaves[1::2])]
        if len(leaves) % 2:
            paired.append(leaves[-1])
        leaves = paired
    return leaves[0]


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every leaf of `tree` is truthy."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any
) -> Any:
    """Turns an outer-of-inner pytree into an inner-of-outer one.

    Args:
      outer_treedef: structure of the outer level.
      inner_treedef: structure of each inner subtree; if None, that of the first one.
      pytree_to_transpose: a tree with structure `outer_treedef.compose(inner_treedef)`.

    Example: `tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])`
    gives `([1, 3], [2, 4])`.
    """
    pytree = pytree_to_transpose
    leaves, treedef = tree_flatten(pytree)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree)[0])
    inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    # Leaves are outer-major: leaf (i, j) sits at i * inner_size + j.
    columns = [leaves[j::inner_size] for j in range(inner_size)]
    return inner_treedef.unflatten([outer_treedef.unflatten(c) for c in columns])


# --- Partial ------------------------------------------------------------------------------------


class _PartialFunc:
    """Wraps a `functools.partial` used as a `Partial`'s function so its arguments stay static.

    Without it `functools.partial` would merge the inner partial's arguments into the outer one.
    """

    __slots__ = ("func",)

    def __init__(self, func: functools.partial):
        self.func = func

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _PartialFunc) and self.func == other.func

    def __hash__(self) -> int:
        return hash(self.func)

    def __repr__(self) -> str:
        return f"_PartialFunc({self.func!r})"


class Partial(functools.partial):
    """A `functools.partial` that is a pytree: the bound arguments are children, `func` is static.

    Lets a function with some bound (array) arguments cross `jit` and other transforms.

    Example: `tree_map(lambda x: 2 * x, Partial(operator.add, 1))(1)` gives `3`.
    """

    def __new__(cls, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Self:
        if isinstance(func, functools.partial):
            func = _PartialFunc(func)
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]),
)


# --- the registry as an object ------------------------------------------------------------------


class PyTreeRegistry:
    """`default_registry`: the pytree registry as an object, with the methods of JAX's.

    stablax has one registry; this object gives access to it under JAX's method names.
    """

    def flatten(self, tree: Any, leaf_predicate: Callable[[Any], bool] | None = None):
        """`(leaves, treedef)` of `tree`, as `tree_flatten`."""
        return tree_flatten(tree, leaf_predicate)

    def flatten_with_path(self, tree: Any, leaf_predicate: Callable[..., bool] | None = None):
        """`([(key_path, leaf), ...], treedef)`; `leaf_predicate(key_path, x)` if given."""
        return tree_flatten_with_path(tree, leaf_predicate, is_leaf_takes_path=True)

    def flatten_one_level(self, tree: Any):
        """`(children, aux_data)` of one node, or None for a leaf."""
        if not is_tree_node(type(tree)):
            return None
        children, aux = flatten_one_level(tree)
        return tuple(children), aux

    def flatten_one_level_with_keys(self, tree: Any):
        """`(((key, child), ...), aux_data)` of one node, or None for a leaf."""
        if not is_tree_node(type(tree)):
            return None
        pairs, aux = flatten_one_level_with_keys(tree)
        return tuple(pairs), aux

    def is_node(self, typ: type) -> bool:
        """Whether instances of `typ` are pytree nodes."""
        return is_tree_node(typ)

    def register_node(self, typ, to_iterable, from_iterable, to_iterable_with_keys=None) -> None:
        """`register_pytree_node(typ, to_iterable, from_iterable, to_iterable_with_keys)`."""
        register_pytree_node(typ, to_iterable, from_iterable, to_iterable_with_keys)

    def register_dataclass_node(self, typ, data_fields, meta_fields, /) -> None:
        """`register_dataclass(typ, data_fields, meta_fields)`."""
        register_dataclass(typ, data_fields, meta_fields)


default_registry = PyTreeRegistry()
