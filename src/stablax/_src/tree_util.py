"""Pytrees: nested containers flattened to a list of leaves and a hashable `PyTreeDef`, as in JAX.

A treedef holds a *spec*: `_LEAF` for a leaf, else a tuple `(kind, aux, children)` where `children`
is a tuple of child specs or, when every child is a leaf, just their count. Specs are plain nested
tuples, so treedef equality and hashing run in C; `kind` is one `_NodeKind` per node type.
"""

from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, Self, TypeVar

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type)
KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]


# --- key path entries ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """Key of a tuple or list element: `[idx]`."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class DictKey:
    """Key of a dict entry: `['key']`."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """Key of an attribute (namedtuple field, dataclass field): `.name`."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """Position among the children of a custom node registered without keys."""

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


def _simple_key_str(key: Any) -> str:
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, DictKey):
        return str(key.key)
    if isinstance(key, GetAttrKey):
        return key.name
    if isinstance(key, FlattenedIndexKey):
        return str(key.key)
    return str(key)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Renders a key path the way it would be written to index the tree.

    Args:
      keys: a key path, as returned by `tree_flatten_with_path`.
      simple: drop brackets, quotes and dots (`0`, `a`, `x` instead of `[0]`, `['a']`, `.x`).
      separator: placed between the entries.

    Returns:
      For example `"['a'][0].x"`.
    """
    if simple:
        return separator.join(_simple_key_str(k) for k in keys)
    return separator.join(str(k) for k in keys)


# --- node kinds and the registry ----------------------------------------------------------------


class _NodeKind:
    """How one pytree node type flattens and rebuilds; compared by identity inside specs.

    `flatten(node) -> (children, aux)`, `flatten_with_keys(node) -> ([(key, child)], aux)`,
    `unflatten(aux, children_list) -> node`. `aux` is what the spec stores (boxed for user types).
    """

    __slots__ = ("category", "flatten", "flatten_with_keys", "nodetype", "unflatten")

    def __init__(self, nodetype, category, flatten, flatten_with_keys, unflatten):
        self.nodetype = nodetype
        self.category = category  # "tuple", "list", "dict", "none", "namedtuple" or "custom"
        self.flatten = flatten
        self.flatten_with_keys = flatten_with_keys
        self.unflatten = unflatten

    def __repr__(self) -> str:
        return f"_NodeKind({self.nodetype.__name__})"


class _Aux:
    """Boxes user aux data so that treedef equality reports bad metadata and hashing never fails."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: object) -> bool:
        if type(other) is not _Aux:
            return NotImplemented
        if self.value is other.value:
            return True
        try:
            return bool(self.value == other.value)
        except Exception as e:
            raise ValueError(
                "PyTreeDef: exception raised while checking equality of pytree metadata "
                f"{self.value!r} and {other.value!r}. Metadata must be hashable and have simple "
                "equality semantics (arrays cannot be metadata)."
            ) from e

    def __hash__(self) -> int:
        # Unhashable metadata hashes by type: equal treedefs may then collide, never differ wrongly.
        try:
            return hash(self.value)
        except TypeError:
            return hash(type(self.value))

    def __repr__(self) -> str:
        return repr(self.value)


def _unbox(aux: Any) -> Any:
    return aux.value if type(aux) is _Aux else aux


class _LeafMarker:
    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


_LEAF = _LeafMarker()


def _sorted_keys(keys: tuple) -> tuple:
    if len(keys) < 2:
        return keys
    try:
        return tuple(sorted(keys))
    except TypeError as e:
        raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from e


def _sequence_with_keys(node):
    return [(SequenceKey(i), c) for i, c in enumerate(node)], None


def _dict_flatten(node):
    keys = _sorted_keys(tuple(node))
    return [node[k] for k in keys], keys


def _dict_flatten_with_keys(node):
    keys = _sorted_keys(tuple(node))
    return [(DictKey(k), node[k]) for k in keys], keys


def _ordered_dict_flatten(node):
    keys = tuple(node)
    return [node[k] for k in keys], keys


def _ordered_dict_flatten_with_keys(node):
    keys = tuple(node)
    return [(DictKey(k), node[k]) for k in keys], keys


def _defaultdict_flatten(node):
    keys = _sorted_keys(tuple(node))
    return [node[k] for k in keys], _Aux((node.default_factory, keys))


def _defaultdict_flatten_with_keys(node):
    children, aux = _defaultdict_flatten(node)
    return [(DictKey(k), c) for k, c in zip(aux.value[1], children, strict=True)], aux


_TUPLE = _NodeKind(
    tuple, "tuple", lambda n: (n, None), _sequence_with_keys, lambda aux, ch: tuple(ch)
)
_LIST = _NodeKind(list, "list", lambda n: (n, None), _sequence_with_keys, lambda aux, ch: list(ch))
_DICT = _NodeKind(
    dict, "dict", _dict_flatten, _dict_flatten_with_keys, lambda keys, ch: dict(zip(keys, ch))
)
_NONE = _NodeKind(type(None), "none", lambda n: ((), None), lambda n: ([], None), lambda a, c: None)
_NONE_SPEC = (_NONE, None, 0)
_ORDERED_DICT = _NodeKind(
    collections.OrderedDict,
    "custom",
    _ordered_dict_flatten,
    _ordered_dict_flatten_with_keys,
    lambda keys, ch: collections.OrderedDict(zip(keys, ch)),
)
_DEFAULTDICT = _NodeKind(
    collections.defaultdict,
    "custom",
    _defaultdict_flatten,
    _defaultdict_flatten_with_keys,
    lambda aux, ch: collections.defaultdict(aux.value[0], zip(aux.value[1], ch)),
)

# Explicitly registered node types (the builtins above and user registrations).
_registry: dict[type, _NodeKind] = {
    k.nodetype: k for k in (_TUPLE, _LIST, _DICT, _NONE, _ORDERED_DICT, _DEFAULTDICT)
}


def _namedtuple_kind(nodetype: type) -> _NodeKind:
    fields = nodetype._fields
    return _NodeKind(
        nodetype,
        "namedtuple",
        lambda n: (n, None),
        lambda n: ([(GetAttrKey(f), c) for f, c in zip(fields, n, strict=True)], None),
        lambda aux, ch: nodetype(*ch),
    )


# type -> its `_NodeKind`, or None for leaf types; a cache over `_registry` and namedtuple classes.
_kinds: dict[type, _NodeKind | None] = dict(_registry)


def _kind_of(nodetype: type) -> _NodeKind | None:
    try:
        return _kinds[nodetype]
    except KeyError:
        pass
    kind = _registry.get(nodetype)
    if kind is None and issubclass(nodetype, tuple) and hasattr(nodetype, "_fields"):
        kind = _namedtuple_kind(nodetype)
    _kinds[nodetype] = kind
    return kind


def _check_flatten_output(out: Any, nodetype: type) -> tuple[tuple, Any]:
    if not isinstance(out, tuple) or len(out) != 2:
        raise ValueError(
            f"tree_flatten: the flatten function registered for {nodetype.__name__} should return "
            f"a (children, aux_data) tuple, got {out!r}"
        )
    children, aux = out
    try:
        return tuple(children), aux
    except TypeError:
        raise ValueError(
            f"tree_flatten: the flatten function registered for {nodetype.__name__} should return "
            f"a (children, aux_data) tuple where 'children' is iterable, got {out!r}"
        ) from None


def _custom_kind(nodetype, flatten_func, unflatten_func, flatten_with_keys_func) -> _NodeKind:
    def flatten(node):
        if flatten_func is None:
            pairs, aux = flatten_with_keys(node)
            return tuple(c for _, c in pairs), aux
        children, aux = _check_flatten_output(flatten_func(node), nodetype)
        return children, _Aux(aux)

    def flatten_with_keys(node):
        if flatten_with_keys_func is None:
            children, aux = flatten(node)
            return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux
        pairs, aux = _check_flatten_output(flatten_with_keys_func(node), nodetype)
        return pairs, _Aux(aux)

    def unflatten(aux, children):
        return unflatten_func(aux.value, tuple(children))

    return _NodeKind(nodetype, "custom", flatten, flatten_with_keys, unflatten)


def _register(kind: _NodeKind) -> None:
    nodetype = kind.nodetype
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node: expected a type, got {nodetype!r}")
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    _registry[nodetype] = kind
    _kinds[nodetype] = kind


def register_pytree_node(
    nodetype: type[T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Any]],
    unflatten_func: Callable[[Any, tuple[Any, ...]], T],
    flatten_with_keys_func: Callable[[T], tuple[Iterable[tuple[Any, Any]], Any]] | None = None,
) -> None:
    """Makes instances of `nodetype` pytree nodes instead of leaves.

    Args:
      nodetype: the class; only exact instances match, not subclasses.
      flatten_func: `node -> (children, aux_data)`; aux_data must be hashable and comparable,
        it is part of the treedef (and so of jit cache keys).
      unflatten_func: `(aux_data, children_tuple) -> node`.
      flatten_with_keys_func: optional `node -> ([(key, child), ...], aux_data)` for key paths;
        without it children are keyed `FlattenedIndexKey(i)`.
    """
    _register(_custom_kind(nodetype, flatten_func, unflatten_func, flatten_with_keys_func))


def register_pytree_with_keys(
    nodetype: type[T],
    flatten_with_keys: Callable[[T], tuple[Iterable[tuple[Any, Any]], Any]],
    unflatten_func: Callable[[Any, tuple[Any, ...]], T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Any]] | None = None,
) -> None:
    """Like `register_pytree_node`, keyed flatten first; `flatten_func` is derived if absent.

    Args:
      nodetype: the class.
      flatten_with_keys: `node -> ([(key, child), ...], aux_data)`.
      unflatten_func: `(aux_data, children_tuple) -> node`.
      flatten_func: optional faster `node -> (children, aux_data)`.
    """
    _register(_custom_kind(nodetype, flatten_func, unflatten_func, flatten_with_keys))


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: registers `cls` by its `tree_flatten` and `tree_unflatten` (classmethod).

    Returns:
      `cls`, unchanged.
    """
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator: registers `cls` by `tree_flatten_with_keys` (and `tree_flatten` if any).

    Returns:
      `cls`, unchanged.
    """
    flatten_func = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(
        cls, operator.methodcaller("tree_flatten_with_keys"), cls.tree_unflatten, flatten_func
    )
    return cls


def register_dataclass(
    nodetype: Typ,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> Typ:
    """Registers a class whose data fields are children and whose meta fields are static aux data.

    Args:
      nodetype: a dataclass, or any class whose constructor takes all the fields by keyword.
      data_fields: attribute names that are children. If both field lists are omitted (dataclasses
        only), every `init=True` field is data unless its metadata has `static=True`.
      meta_fields: attribute names that become aux data (hashable).
      drop_fields: dataclass `init=True` fields deliberately left out of both lists.

    Returns:
      `nodetype`, so that this works as a decorator.
    """
    is_dataclass = dataclasses.is_dataclass(nodetype)
    if data_fields is None and meta_fields is None:
        if not is_dataclass:
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required when nodetype is "
                f"not a dataclass. Got nodetype={nodetype!r}."
            )
        data_fields, meta_fields = [], []
        for field in dataclasses.fields(nodetype):
            if field.init and field.name not in drop_fields:
                static = field.metadata.get("static", False)
                (meta_fields if static else data_fields).append(field.name)
    elif data_fields is None or meta_fields is None:
        raise TypeError(
            "register_dataclass: data_fields and meta_fields must both be specified when either "
            f"is specified. Got data_fields={data_fields!r} meta_fields={meta_fields!r}."
        )
    elif is_dataclass:
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = set(data_fields) | set(meta_fields)
        prefix = (
            "register_dataclass: data_fields and meta_fields must include all dataclass fields "
            "with ``init=True`` and only them."
        )
        if init_fields - given:
            raise ValueError(
                f"{prefix} Missing fields: {init_fields - given}. Add them to drop_fields to "
                "suppress this error."
            )
        if given - init_fields:
            raise ValueError(f"{prefix} Unexpected fields: {given - init_fields}.")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)

    def flatten(node):
        data = tuple([getattr(node, name) for name in data_fields])
        return data, tuple([getattr(node, name) for name in meta_fields])

    def flatten_with_keys(node):
        data = [(GetAttrKey(name), getattr(node, name)) for name in data_fields]
        return data, tuple([getattr(node, name) for name in meta_fields])

    def unflatten(meta, data):
        kwargs = dict(zip(data_fields, data, strict=True))
        kwargs.update(zip(meta_fields, meta, strict=True))
        return nodetype(**kwargs)

    register_pytree_with_keys(nodetype, flatten_with_keys, unflatten, flatten)
    return nodetype


def register_static(cls: Typ) -> Typ:
    """Makes instances of `cls` childless nodes: the whole value is hashable treedef aux data.

    Returns:
      `cls`, so that this works as a decorator.
    """
    register_pytree_node(cls, lambda node: ((), node), lambda aux, _: aux)
    return cls


def is_tree_node(typ: type) -> bool:
    """Whether instances of `typ` are pytree nodes (registered, builtin container, namedtuple)."""
    return isinstance(typ, type) and _kind_of(typ) is not None


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


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree: Any) -> Any:
    """Turns an outer-of-inner pytree into an inner-of-outer one.

    Args:
      outer_treedef: structure of the outer level.
      inner_treedef: structure of each inner subtree; if None, that of the first one.
      pytree: a tree with structure `outer_treedef.compose(inner_treedef)`.

    Example: `tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])`
    gives `([1, 3], [2, 4])`.
    """
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
