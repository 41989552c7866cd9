"""Pytree node types: key-path entries, how each node kind flattens, the registry users extend."""

from __future__ import annotations

import collections
import dataclasses
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from jaxlib._jax import pytree as _pytree

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type)
KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]


# --- key path entries ---------------------------------------------------------------------------


# jaxlib's own classes, as JAX's `tree_util` uses: `SequenceKey(idx=0)` prints `[0]`, compares,
# hashes, pickles and matches (`case DictKey(key):`) the same, and a key path from stablax equals
# one from JAX.
SequenceKey = _pytree.SequenceKey  # a tuple or list element: `[idx]`
DictKey = _pytree.DictKey  # a dict entry: `['key']`
GetAttrKey = _pytree.GetAttrKey  # an attribute (namedtuple or dataclass field): `.name`
FlattenedIndexKey = _pytree.FlattenedIndexKey  # a child of a node registered without keys


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
