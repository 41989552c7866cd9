"""Flattening pytrees to leaves and a `PyTreeDef`, rebuilding them, and structure-mismatch errors.

A treedef holds a *spec*: `_LEAF` for a leaf, else a tuple `(kind, aux, children)` where `children`
is a tuple of child specs or, when every child is a leaf, just their count. Specs are plain nested
tuples, so treedef equality and hashing run in C; `kind` is one `_NodeKind` per node type.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from stablax._src.pytree_registry import (
    _DICT,
    _LEAF,
    _LIST,
    _NONE,
    _NONE_SPEC,
    _TUPLE,
    KeyPath,
    _kind_of,
    _kinds,
    _NodeKind,
    _simple_key_str,
    _sorted_keys,
    _unbox,
    keystr,
)

# --- flattening ---------------------------------------------------------------------------------


def _node_spec(kind: _NodeKind, aux: Any, child_specs: tuple) -> tuple:
    # The canonical spec: children that are all leaves are stored as their count.
    for child_spec in child_specs:
        if child_spec is not _LEAF:
            return (kind, aux, child_specs)
    return (kind, aux, len(child_specs))


def _child_specs(spec: tuple) -> tuple:
    children = spec[2]
    return (_LEAF,) * children if type(children) is int else children


def _flatten(node: Any, kind: _NodeKind, leaves: list) -> tuple:
    # The hot path (no is_leaf, no paths): common containers inline, no per-leaf spec objects.
    if kind is _TUPLE or kind is _LIST:
        children, aux = node, None
    elif kind is _DICT:
        keys = tuple(node)
        aux = _sorted_keys(keys)
        children = node.values() if aux == keys else [node[k] for k in aux]
    elif kind is _NONE:
        return _NONE_SPEC
    else:
        children, aux = kind.flatten(node)
    start = len(leaves)
    specs = None  # stays None while every child so far is a leaf
    for child in children:
        try:
            child_kind = _kinds[type(child)]
        except KeyError:
            child_kind = _kind_of(type(child))
        if child_kind is None:
            leaves.append(child)
            if specs is not None:
                specs.append(_LEAF)
        else:
            if specs is None:
                specs = [_LEAF] * (len(leaves) - start)
            specs.append(_flatten(child, child_kind, leaves))
    return (kind, aux, len(leaves) - start if specs is None else tuple(specs))


def _flatten_is_leaf(node: Any, is_leaf: Callable[[Any], bool], leaves: list) -> Any:
    # is_leaf sees every subtree, leaves included, as in JAX.
    if is_leaf(node) or (kind := _kind_of(type(node))) is None:
        leaves.append(node)
        return _LEAF
    children, aux = kind.flatten(node)
    return _node_spec(kind, aux, tuple([_flatten_is_leaf(c, is_leaf, leaves) for c in children]))


def _flatten_with_paths(node: Any, path: tuple, is_leaf: Callable | None, pairs: list) -> Any:
    # `is_leaf` here always takes (path, node).
    if (is_leaf is not None and is_leaf(path, node)) or (kind := _kind_of(type(node))) is None:
        pairs.append((path, node))
        return _LEAF
    keyed, aux = kind.flatten_with_keys(node)
    specs = tuple([_flatten_with_paths(c, (*path, k), is_leaf, pairs) for k, c in keyed])
    return _node_spec(kind, aux, specs)


def _path_is_leaf(is_leaf: Callable | None, takes_path: bool) -> Callable | None:
    if is_leaf is None or takes_path:
        return is_leaf
    return lambda path, node: is_leaf(node)


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
    """Splits a pytree into its leaves (in order) and its structure.

    Args:
      tree: nested tuples, lists, dicts (in sorted key order), None, namedtuples, OrderedDicts,
        defaultdicts and registered types; anything else is a leaf.
      is_leaf: optional predicate; a subtree for which it returns True is kept whole as a leaf.

    Returns:
      `(leaves, treedef)`; `tree_unflatten(treedef, leaves)` rebuilds `tree`.

    Example: `tree_flatten(((1, 2), {'a': 3}))` gives `([1, 2, 3], PyTreeDef(((*, *), {'a': *})))`.
    """
    leaves: list = []
    if is_leaf is None:
        try:
            kind = _kinds[type(tree)]
        except KeyError:
            kind = _kind_of(type(tree))
        if kind is None:
            return [tree], _LEAF_TREEDEF
        spec = _flatten(tree, kind, leaves)
    else:
        spec = _flatten_is_leaf(tree, is_leaf, leaves)
    return leaves, PyTreeDef(spec, len(leaves))


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of `tree`, in `tree_flatten` order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The treedef of `tree`, as `tree_flatten` would return it."""
    return tree_flatten(tree, is_leaf)[1]


def tree_flatten_with_path(
    tree: Any, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Like `tree_flatten`, with each leaf paired with its key path.

    Args:
      tree: a pytree.
      is_leaf: optional predicate on a subtree, or on `(path, subtree)` if `is_leaf_takes_path`.
      is_leaf_takes_path: see `is_leaf`.

    Returns:
      `([(key_path, leaf), ...], treedef)`; render a path with `keystr`.
    """
    pairs: list = []
    spec = _flatten_with_paths(tree, (), _path_is_leaf(is_leaf, is_leaf_takes_path), pairs)
    return pairs, PyTreeDef(spec, len(pairs))


def tree_leaves_with_path(
    tree: Any, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> list[tuple[KeyPath, Any]]:
    """The `(key_path, leaf)` pairs of `tree`, in `tree_flatten` order."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """The direct children and aux data of one pytree node.

    Raises:
      ValueError: if `tree` is a leaf.
    """
    kind = _kind_of(type(tree))
    if kind is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    children, aux = kind.flatten(tree)
    return children, (type(tree) if kind.category == "namedtuple" else _unbox(aux))


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[Any, Any]], Hashable]:
    """The direct `(key, child)` pairs and aux data of one pytree node."""
    kind = _kind_of(type(tree))
    if kind is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    pairs, aux = kind.flatten_with_keys(tree)
    return pairs, (type(tree) if kind.category == "namedtuple" else _unbox(aux))


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every element of `iterable` is a pytree leaf (or satisfies `is_leaf`)."""
    if is_leaf is None:
        return all(_kind_of(type(x)) is None for x in iterable)
    return all(_kind_of(type(x)) is None or is_leaf(x) for x in iterable)


# --- treedefs -----------------------------------------------------------------------------------


def _unflatten(spec: tuple, leaves: list | tuple, pos: int) -> tuple[Any, int]:
    # Rebuilds the node of `spec` from leaves[pos:]; returns it and the position after its leaves.
    kind, aux, children = spec
    if type(children) is int:
        end = pos + children
        children = leaves[pos:end]
    else:
        built = []
        for child_spec in children:
            if child_spec is _LEAF:
                built.append(leaves[pos])
                pos += 1
            else:
                child, pos = _unflatten(child_spec, leaves, pos)
                built.append(child)
        children, end = built, pos
    if kind is _TUPLE:
        return tuple(children), end
    if kind is _LIST:
        return (children if type(children) is list else list(children)), end
    if kind is _DICT:
        return dict(zip(aux, children)), end
    return kind.unflatten(aux, children), end


def _count_leaves(spec: Any) -> int:
    if spec is _LEAF:
        return 1
    children = spec[2]
    if type(children) is int:
        return children
    return sum(_count_leaves(c) for c in children)


def _count_nodes(spec: Any) -> int:
    if spec is _LEAF:
        return 1
    children = spec[2]
    if type(children) is int:
        return 1 + children
    return 1 + sum(_count_nodes(c) for c in children)


def _spec_str(spec: Any) -> str:
    if spec is _LEAF:
        return "*"
    kind, aux, _ = spec
    parts = [_spec_str(c) for c in _child_specs(spec)]
    category = kind.category
    if category == "none":
        return "None"
    if category == "tuple":
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if category == "list":
        return "[" + ", ".join(parts) + "]"
    if category == "dict":
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(aux, parts, strict=True)) + "}"
    if category == "namedtuple":
        name = f"namedtuple[{kind.nodetype.__name__}]"
    else:
        name = f"{kind.nodetype.__name__}[{_unbox(aux)}]"
    return f"CustomNode({name}, [{', '.join(parts)}])"


def _compose(spec: Any, inner: Any) -> Any:
    if spec is _LEAF:
        return inner
    kind, aux, _ = spec
    return _node_spec(kind, aux, tuple([_compose(c, inner) for c in _child_specs(spec)]))


_NONE_HINT = (
    "\n\nNone is a pytree node with no children, not a leaf, so it is only a prefix of None. To "
    "map over trees where None stands for a missing subtree, pass is_leaf=lambda x: x is None."
)


def _flatten_up_to(spec: Any, tree: Any, out: list) -> None:
    if spec is _LEAF:
        out.append(tree)
        return
    kind, aux, _ = spec
    child_specs = _child_specs(spec)
    category = kind.category
    if category == "tuple" or category == "list":
        if type(tree) is not kind.nodetype:
            raise ValueError(f"Expected {category}, got {tree!r}.")
        if len(tree) != len(child_specs):
            raise ValueError(
                f"{category.capitalize()} arity mismatch: {len(tree)} != {len(child_specs)}; "
                f"{category}: {tree!r}."
            )
        children = tree
    elif category == "dict":
        if type(tree) is not dict:
            raise ValueError(f"Expected dict, got {tree!r}.")
        keys = _sorted_keys(tuple(tree))
        if keys != aux:
            raise ValueError(
                f"Dict key mismatch; expected keys: {list(aux)!r}; present keys: {list(keys)!r}."
            )
        children = [tree[k] for k in keys]
    elif category == "none":
        if tree is not None:
            raise ValueError(f"Expected None, got {tree!r}.{_NONE_HINT}")
        return
    elif category == "namedtuple":
        if type(tree) is not kind.nodetype:
            if isinstance(tree, tuple) and hasattr(tree, "_fields"):
                raise ValueError(
                    f"Named tuple type mismatch: expected type: {kind.nodetype!r}, tuple: {tree!r}."
                )
            raise ValueError(f"Expected named tuple, got {tree!r}.")
        children = tree
    else:
        if type(tree) is not kind.nodetype:
            raise ValueError(
                f"Custom node type mismatch: expected type: {kind.nodetype!r}, value: {tree!r}."
            )
        children, tree_aux = kind.flatten(tree)
        if tree_aux != aux:
            raise ValueError(
                f"Mismatch custom node data: {_unbox(aux)!r} != {_unbox(tree_aux)!r}; "
                f"value: {tree!r}."
            )
        if len(children) != len(child_specs):
            raise ValueError(
                f"Custom type arity mismatch: {len(children)} != {len(child_specs)}; "
                f"value: {tree!r}."
            )
    for child_spec, child in zip(child_specs, children, strict=True):
        _flatten_up_to(child_spec, child, out)


class PyTreeDef:
    """The structure of a pytree: node types, aux data (dict keys, ...) and where leaves go.

    Equal treedefs have equal node types and aux data; the hash is computed once and cached, so
    treedefs serve as jit cache keys. Built by `tree_flatten`, not directly.
    """

    __slots__ = ("_hash", "_num_leaves", "_num_nodes", "_spec")

    def __init__(self, spec: Any, num_leaves: int):
        self._spec = spec
        self._num_leaves = num_leaves
        self._num_nodes = None
        self._hash = None

    @property
    def num_leaves(self) -> int:
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        """Leaves plus internal nodes (None and empty containers count as one node each)."""
        if self._num_nodes is None:
            self._num_nodes = _count_nodes(self._spec)
        return self._num_nodes

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Rebuilds the pytree with `leaves` in the leaf positions."""
        if type(leaves) is not list and type(leaves) is not tuple:
            leaves = list(leaves)
        n = self._num_leaves
        if len(leaves) != n:
            if len(leaves) < n:
                raise ValueError(f"Too few leaves for PyTreeDef; expected {n}, got {len(leaves)}")
            raise ValueError(f"Too many leaves for PyTreeDef; expected {n}.")
        spec = self._spec
        if spec is _LEAF:
            return leaves[0]
        return _unflatten(spec, leaves, 0)[0]

    def flatten_up_to(self, tree: Any) -> list:
        """The subtrees of `tree` at this treedef's leaf positions; `tree` must extend this one.

        Raises:
          ValueError: naming the first node where `tree` has a different type, arity or aux data.
        """
        out: list = []
        _flatten_up_to(self._spec, tree, out)
        return out

    def children(self) -> list[PyTreeDef]:
        """Treedefs of the root's direct children (empty for a leaf)."""
        if self._spec is _LEAF:
            return []
        return [PyTreeDef(c, _count_leaves(c)) for c in _child_specs(self._spec)]

    def node_data(self) -> tuple[type, Any] | None:
        """`(root node type, aux data)`, or None for a leaf."""
        if self._spec is _LEAF:
            return None
        kind, aux, _ = self._spec
        if kind is _DICT:
            return dict, list(aux)
        return kind.nodetype, _unbox(aux)

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """The treedef of this structure with every leaf replaced by `inner`."""
        spec = _compose(self._spec, inner._spec)
        return PyTreeDef(spec, self._num_leaves * inner._num_leaves)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return self._spec == other._spec

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._spec)
        return self._hash

    def __repr__(self) -> str:
        return f"PyTreeDef({_spec_str(self._spec)})"


_LEAF_TREEDEF = PyTreeDef(_LEAF, 1)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuilds a pytree from a treedef and its leaves (inverse of `tree_flatten`)."""
    return treedef.unflatten(leaves)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """Treedefs of the root's direct children."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """Whether the treedef has a single node: a leaf, None or an empty container."""
    return treedef.num_nodes == 1


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose elements have the given treedefs."""
    treedefs = list(treedefs)
    spec = _node_spec(_TUPLE, None, tuple([t._spec for t in treedefs]))
    return PyTreeDef(spec, sum(t._num_leaves for t in treedefs))


# --- structure errors ---------------------------------------------------------------------------


def _prefix_error(
    prefix: Any, full: Any, is_leaf: Callable | None, path: tuple = ()
) -> Callable[[str], ValueError] | None:
    """Where `prefix` is not a tree prefix of `full`: a function `name -> ValueError`, else None.

    `is_leaf` takes `(path, subtree)` and applies to `prefix`.
    """
    kind = _kind_of(type(prefix))
    if kind is None or (is_leaf is not None and is_leaf(path, prefix)):
        return None
    where = keystr(path)

    def error(difference: str, description: str) -> Callable[[str], ValueError]:
        return lambda name: ValueError(
            f"pytree structure error: different {difference} at key path\n    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type{description}"
        )

    if type(prefix) is not type(full):
        return error(
            "types",
            f"\n    {type(prefix)}\nbut at the same key path the full pytree has a subtree of "
            f"different type\n    {type(full)}.",
        )
    if (kind is _TUPLE or kind is _LIST) and len(prefix) != len(full):
        return error(
            f"lengths of {kind.category}",
            f" {kind.category} of length {len(prefix)}, but the full pytree has a subtree of the "
            f"same type but of length {len(full)}.",
        )
    prefix_pairs, prefix_aux = kind.flatten_with_keys(prefix)
    full_pairs, full_aux = kind.flatten_with_keys(full)
    if len(prefix_pairs) != len(full_pairs):
        prefix_keys = [_simple_key_str(k) for k, _ in prefix_pairs]
        full_keys = [_simple_key_str(k) for k, _ in full_pairs]
        only_one = [k for k in prefix_keys if k not in full_keys]
        only_one += [k for k in full_keys if k not in prefix_keys]
        return error(
            "numbers of pytree children",
            f"\n    {type(prefix)}\nwith {len(prefix_keys)} child keys\n    {' '.join(prefix_keys)}"
            "\nbut at the same key path the full pytree has a subtree of the same type but with "
            f"{len(full_keys)} child keys\n    {' '.join(full_keys)}\n"
            f"so the symmetric difference on key sets is\n    {' '.join(only_one)}",
        )
    if prefix_aux != full_aux:
        import difflib  # only this error message needs it: kept out of `import stablax`

        prefix_str, full_str = str(_unbox(prefix_aux)), str(_unbox(full_aux))
        aux_diff = "\n    ".join(difflib.ndiff([prefix_str], [full_str]))
        return error(
            "pytree metadata",
            f"\n    {type(prefix)}\nwith metadata\n    {prefix_str}\nbut at the same key path the "
            f"full pytree has a subtree of the same type but with metadata\n    {full_str}\n"
            f"so the diff in the metadata at these pytree nodes is\n    {aux_diff}",
        )
    for (key, prefix_child), (_, full_child) in zip(prefix_pairs, full_pairs, strict=True):
        error = _prefix_error(prefix_child, full_child, is_leaf, (*path, key))
        if error is not None:
            return error
    return None


def _flatten_rest(
    treedef: PyTreeDef, tree: Any, rest: tuple, is_leaf: Callable | None, name: str
) -> list[list]:
    # flatten_up_to every tree in `rest`; on failure explain the first mismatch with key paths.
    flat = []
    for other in rest:
        try:
            flat.append(treedef.flatten_up_to(other))
        except ValueError as e:
            error = _prefix_error(tree, other, is_leaf)
            if error is None:
                raise
            raise error(name) from e
    return flat
