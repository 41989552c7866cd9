"""Tests for stablax.tree_util; expected strings were recorded from jax 0.10.2's jax.tree_util."""

from __future__ import annotations

import collections
import dataclasses
import functools
import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablax.tree_util import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    Partial,
    PyTreeDef,
    SequenceKey,
    all_leaves,
    flatten_one_level,
    flatten_one_level_with_keys,
    is_tree_node,
    keystr,
    register_dataclass,
    register_pytree_node,
    register_pytree_node_class,
    register_pytree_with_keys,
    register_pytree_with_keys_class,
    register_static,
    tree_all,
    tree_broadcast,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_leaves_with_path,
    tree_map,
    tree_map_with_path,
    tree_reduce,
    tree_reduce_associative,
    tree_structure,
    tree_transpose,
    tree_unflatten,
    treedef_children,
    treedef_is_leaf,
    treedef_tuple,
)

P = collections.namedtuple("P", ["x", "y"])
Q = collections.namedtuple("Q", ["x", "y"])


class Box:
    """A custom node: children `a`, aux data `meta`."""

    def __init__(self, *a, meta="m"):
        self.a, self.meta = a, meta

    def __repr__(self):
        return f"Box{self.a}"


register_pytree_node(Box, lambda b: (b.a, b.meta), lambda meta, a: Box(*a, meta=meta))


class KeyedBox:
    def __init__(self, a, b):
        self.a, self.b = a, b


register_pytree_with_keys(
    KeyedBox,
    lambda k: (((GetAttrKey("a"), k.a), (GetAttrKey("b"), k.b)), None),
    lambda _, children: KeyedBox(*children),
)


@register_pytree_node_class
class MethodNode:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def tree_flatten(self):
        return (self.x,), self.y

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux)


@register_pytree_with_keys_class
class KeyedMethodNode:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def tree_flatten_with_keys(self):
        return ((GetAttrKey("x"), self.x),), self.y

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux)


@register_dataclass
@dataclasses.dataclass
class Params:
    w: object
    b: object
    name: str = dataclasses.field(default="p", metadata={"static": True})


@dataclasses.dataclass
class Explicit:
    x: object
    y: object
    s: str = "a"


register_dataclass(Explicit, data_fields=["x", "y"], meta_fields=["s"])


@register_static
class Static:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Static) and other.v == self.v

    def __hash__(self):
        return hash(self.v)

    def __repr__(self):
        return f"Static({self.v})"


# --- flatten / unflatten against JAX -------------------------------------------------------------

# (tree, leaves, str(treedef), num_nodes, keystr of each leaf path), recorded from jax 0.10.2.
JAX_CASES = [
    (1, [1], "PyTreeDef(*)", 1, [""]),
    (None, [], "PyTreeDef(None)", 1, []),
    ((), [], "PyTreeDef(())", 1, []),
    ([], [], "PyTreeDef([])", 1, []),
    ({}, [], "PyTreeDef({})", 1, []),
    ((1,), [1], "PyTreeDef((*,))", 2, ["[0]"]),
    ([1, 2], [1, 2], "PyTreeDef([*, *])", 3, ["[0]", "[1]"]),
    (
        {"b": 1, "a": (2, None)},
        [2, 1],
        "PyTreeDef({'a': (*, None), 'b': *})",
        5,
        ["['a'][0]", "['b']"],
    ),
    (
        ((1, 2), {"a": 3}),
        [1, 2, 3],
        "PyTreeDef(((*, *), {'a': *}))",
        6,
        ["[0][0]", "[0][1]", "[1]['a']"],
    ),
    (
        P(1, (2, 3)),
        [1, 2, 3],
        "PyTreeDef(CustomNode(namedtuple[P], [*, (*, *)]))",
        5,
        [".x", ".y[0]", ".y[1]"],
    ),
    (
        collections.OrderedDict([("b", 1), ("a", 2)]),
        [1, 2],
        "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))",
        3,
        ["['b']", "['a']"],
    ),
    (
        collections.defaultdict(list, {"b": 1, "a": 2}),
        [2, 1],
        "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))",
        3,
        ["['a']", "['b']"],
    ),
    ({(1, 2): 3, (0,): 4}, [4, 3], "PyTreeDef({(0,): *, (1, 2): *})", 3, ["[(0,)]", "[(1, 2)]"]),
    (
        {2: 1, 1: 2, 1.5: 3},
        [2, 3, 1],
        "PyTreeDef({1: *, 1.5: *, 2: *})",
        4,
        ["[1]", "[1.5]", "[2]"],
    ),
    ({None: 1}, [1], "PyTreeDef({None: *})", 2, ["[None]"]),
    ([None, [None]], [], "PyTreeDef([None, [None]])", 4, []),
    (
        {"a": [1, (2,)], "b": None, "c": P(1, 2)},
        [1, 2, 1, 2],
        "PyTreeDef({'a': [*, (*,)], 'b': None, 'c': CustomNode(namedtuple[P], [*, *])})",
        9,
        ["['a'][0]", "['a'][1][0]", "['c'].x", "['c'].y"],
    ),
    ({"it's": 1}, [1], 'PyTreeDef({"it\'s": *})', 2, ['["it\'s"]']),
    (
        Partial(operator.add, 1, b=2),
        [1, 2],
        "PyTreeDef(CustomNode(Partial[<built-in function add>], [(*,), {'b': *}]))",
        5,
        ["[<flat index 0>][0]", "[<flat index 1>]['b']"],
    ),
    (Box(1, (2, 3)), [1, 2, 3], "PyTreeDef(CustomNode(Box[m], [*, (*, *)]))", 5, None),
    ([Static(1), 2], [2], "PyTreeDef([CustomNode(Static[Static(1)], []), *])", 3, ["[1]"]),
    (Explicit(1, 2), [1, 2], "PyTreeDef(CustomNode(Explicit[('a',)], [*, *]))", 3, [".x", ".y"]),
    (Params(1, 2), [1, 2], "PyTreeDef(CustomNode(Params[('p',)], [*, *]))", 3, [".w", ".b"]),
]


@pytest.mark.parametrize(("tree", "leaves", "treedef_str", "num_nodes", "paths"), JAX_CASES)
def test_flatten_matches_jax(tree, leaves, treedef_str, num_nodes, paths):
    flat, treedef = tree_flatten(tree)
    assert flat == leaves
    assert repr(treedef) == str(treedef) == treedef_str
    assert treedef.num_leaves == len(leaves)
    assert treedef.num_nodes == num_nodes
    if paths is not None:
        path_leaves, path_treedef = tree_flatten_with_path(tree)
        assert [keystr(p) for p, _ in path_leaves] == paths
        assert [leaf for _, leaf in path_leaves] == leaves
        assert path_treedef == treedef
    rebuilt = tree_unflatten(treedef, flat)
    assert type(rebuilt) is type(tree)
    assert tree_structure(rebuilt) == treedef


def test_unflatten_rebuilds_containers():
    assert tree_unflatten(tree_structure({"b": 1, "a": 2}), [10, 20]) == {"a": 10, "b": 20}
    ordered = tree_unflatten(tree_structure(collections.OrderedDict(b=1, a=2)), [10, 20])
    assert type(ordered) is collections.OrderedDict
    assert list(ordered.items()) == [("b", 10), ("a", 20)]
    default = tree_unflatten(tree_structure(collections.defaultdict(list, b=1, a=2)), [10, 20])
    assert default.default_factory is list and dict(default) == {"a": 10, "b": 20}
    assert tree_unflatten(tree_structure(P(1, 2)), iter([3, 4])) == P(3, 4)
    assert tree_unflatten(tree_structure([1, (2,)]), (5, 6)) == [5, (6,)]
    assert tree_unflatten(tree_structure(7), [8]) == 8
    assert tree_unflatten(tree_structure(Explicit(1, 2, "q")), [5, 6]) == Explicit(5, 6, "q")


def test_subclasses_of_containers_are_leaves():
    my_dict = type("MyDict", (dict,), {})(a=1)
    my_tuple = type("MyTuple", (tuple,), {})((1, 2))
    assert tree_leaves([my_dict, my_tuple]) == [my_dict, my_tuple]


def test_functools_partial_is_a_leaf_but_partial_is_a_node():
    plain = functools.partial(operator.add, 1)
    assert tree_leaves(plain) == [plain]
    assert tree_leaves(Partial(operator.add, 1)) == [1]


def test_unsortable_dict_keys_raise_like_jax():
    with pytest.raises(ValueError, match="Comparator raised exception while sorting") as info:
        tree_flatten({1: "a", "x": 2})
    assert isinstance(info.value.__cause__, TypeError)


def test_is_leaf():
    is_pair = lambda x: isinstance(x, tuple) and len(x) == 2  # noqa: E731
    leaves, treedef = tree_flatten([1, (2, 3), (4,)], is_leaf=is_pair)
    assert leaves == [1, (2, 3), 4]
    assert str(treedef) == "PyTreeDef([*, *, (*,)])"
    leaves, treedef = tree_flatten([1, None], is_leaf=lambda x: x is None)
    assert leaves == [1, None] and str(treedef) == "PyTreeDef([*, *])"
    assert tree_flatten((1, 2), is_leaf=lambda x: isinstance(x, tuple))[0] == [(1, 2)]
    # is_leaf sees every subtree, leaves included, in flatten order (recorded from JAX).
    seen = []
    tree_flatten([1, (2,), None], is_leaf=lambda x: seen.append(x) or False)
    assert seen == [[1, (2,), None], 1, (2,), 2, None]
    # A treedef built with is_leaf equals the one from the equivalent plain flatten.
    assert tree_structure([1, (2,)], is_leaf=lambda x: False) == tree_structure([1, (2,)])


# --- key paths ------------------------------------------------------------------------------------


def test_keystr_formats():
    path = (SequenceKey(0), DictKey("a"), GetAttrKey("x"), FlattenedIndexKey(3))
    assert keystr(path) == "[0]['a'].x[<flat index 3>]"
    assert keystr(path, simple=True, separator="/") == "0/a/x/3"
    assert keystr(path[:3], separator="/") == "[0]/['a']/.x"
    assert keystr(()) == ""
    assert keystr(("foo", 3)) == "foo3"
    assert keystr((DictKey(1.5), SequenceKey(2))) == "[1.5][2]"


def test_key_entries():
    assert repr(SequenceKey(0)) == "SequenceKey(idx=0)"
    assert repr(DictKey("a")) == "DictKey(key='a')"
    assert repr(GetAttrKey("x")) == "GetAttrKey(name='x')"
    assert repr(FlattenedIndexKey(1)) == "FlattenedIndexKey(key=1)"
    assert SequenceKey(0) == SequenceKey(0) and hash(SequenceKey(0)) == hash(SequenceKey(0))
    assert SequenceKey(0) != DictKey(0)
    assert (SequenceKey(2).idx, DictKey("k").key, GetAttrKey("n").name) == (2, "k", "n")
    match DictKey("k"):
        case DictKey(key):
            assert key == "k"


def test_key_paths_equal_jaxs():
    # The entries are jaxlib's classes, as in JAX: a path from stablax equals one from JAX.
    jax_tree_util = pytest.importorskip("jax.tree_util")
    tree = {"a": [1, (2,)], "b": collections.namedtuple("P", "x")(3)}
    ours = [path for path, _ in tree_leaves_with_path(tree)]
    theirs = [path for path, _ in jax_tree_util.tree_leaves_with_path(tree)]
    assert ours == theirs and [hash(p) for p in ours] == [hash(p) for p in theirs]
    assert SequenceKey is jax_tree_util.SequenceKey and DictKey is jax_tree_util.DictKey


def test_paths_of_custom_nodes():
    assert [keystr(p) for p, _ in tree_leaves_with_path(Box(1, (2, 3)))] == [
        "[<flat index 0>]",
        "[<flat index 1>][0]",
        "[<flat index 1>][1]",
    ]
    pairs, treedef = tree_flatten_with_path(KeyedBox(1, [2]))
    assert [(keystr(p), leaf) for p, leaf in pairs] == [(".a", 1), (".b[0]", 2)]
    assert str(treedef) == "PyTreeDef(CustomNode(KeyedBox[None], [*, [*]]))"
    assert tree_leaves(KeyedBox(1, [2])) == [1, 2]
    assert tree_map(lambda x: x + 1, KeyedBox(1, [2])).b == [3]
    assert [keystr(p) for p, _ in tree_leaves_with_path(KeyedMethodNode(1, 2))] == [".x"]


def test_path_is_leaf():
    pairs, treedef = tree_flatten_with_path(
        [1, (2, 3)], is_leaf=lambda path, x: len(path) == 1, is_leaf_takes_path=True
    )
    assert [(keystr(p), leaf) for p, leaf in pairs] == [("[0]", 1), ("[1]", (2, 3))]
    assert treedef == tree_structure([0, 0])
    assert tree_leaves_with_path({"a": None, "b": [1]}) == [((DictKey("b"), SequenceKey(0)), 1)]


# --- tree_map and structure errors ---------------------------------------------------------------


def test_tree_map():
    assert tree_map(lambda x: x * 2, {"a": [1, (2,)], "b": None}) == {"a": [2, (4,)], "b": None}
    assert tree_map(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
    # Leaves of the first tree may face whole subtrees of the others.
    assert tree_map(lambda x, y: (x, y), [1, 2], [(3, 4), {"a": 5}]) == [(1, (3, 4)), (2, {"a": 5})]
    assert tree_map(lambda x, y: (x, y), [1, 5], [1, None]) == [(1, 1), (5, None)]
    assert tree_map(lambda x: x, [1, None], is_leaf=lambda x: x is None) == [1, None]
    assert tree_map(lambda x, y: x, Box(1, 2), Box(1, (2, 3))).a == (1, 2)


def test_tree_map_with_path():
    out = tree_map_with_path(lambda p, x, y: (keystr(p), x, y), {"a": [1]}, {"a": [2]})
    assert out == {"a": [("['a'][0]", 1, 2)]}


STRUCTURE_ERRORS = [
    (
        (1, 2),
        (1, 2, 3),
        "pytree structure error: different lengths of tuple at key path\n    tree_map tree\nAt "
        "that key path, the prefix pytree tree_map tree has a subtree of type tuple of length 2, "
        "but the full pytree has a subtree of the same type but of length 3.",
    ),
    (
        (1, 2),
        [1, 2],
        "pytree structure error: different types at key path\n    tree_map tree\nAt that key "
        "path, the prefix pytree tree_map tree has a subtree of type\n    <class 'tuple'>\nbut at "
        "the same key path the full pytree has a subtree of different type\n    <class 'list'>.",
    ),
    (
        {"a": 1},
        {"b": 1},
        "pytree structure error: different pytree metadata at key path\n    tree_map tree\nAt "
        "that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>"
        "\nwith metadata\n    ('a',)\nbut at the same key path the full pytree has a subtree of "
        "the same type but with metadata\n    ('b',)\nso the diff in the metadata at these pytree "
        "nodes is\n    - ('a',)\n    ?   ^\n\n    + ('b',)\n    ?   ^\n",
    ),
    (
        {"a": 1, "b": 2},
        {"a": 1},
        "pytree structure error: different numbers of pytree children at key path\n    tree_map "
        "tree\nAt that key path, the prefix pytree tree_map tree has a subtree of type\n    "
        "<class 'dict'>\nwith 2 child keys\n    a b\nbut at the same key path the full pytree "
        "has a subtree of the same type but with 1 child keys\n    a\nso the symmetric "
        "difference on key sets is\n    b",
    ),
    (
        [1, None],
        [1, 5],
        "pytree structure error: different types at key path\n    tree_map tree[1]\nAt that key "
        "path, the prefix pytree tree_map tree has a subtree of type\n    <class 'NoneType'>\n"
        "but at the same key path the full pytree has a subtree of different type\n    "
        "<class 'int'>.",
    ),
    (
        Box(1, 2),
        Box(1, 2, meta="z"),
        "pytree structure error: different pytree metadata at key path\n    tree_map tree\nAt "
        "that key path, the prefix pytree tree_map tree has a subtree of type\n    "
        f"{Box}\nwith metadata\n    m\nbut at the same key path the full pytree has a subtree of "
        "the same type but with metadata\n    z\nso the diff in the metadata at these pytree "
        "nodes is\n    - m\n    + z",
    ),
    (
        Box(1, (2,)),
        Box(1, (2, 3)),
        "pytree structure error: different lengths of tuple at key path\n    tree_map "
        "tree[<flat index 1>]\nAt that key path, the prefix pytree tree_map tree has a subtree of "
        "type tuple of length 1, but the full pytree has a subtree of the same type but of "
        "length 2.",
    ),
    (
        collections.OrderedDict(a=1),
        collections.OrderedDict(a=1, b=2),
        "pytree structure error: different numbers of pytree children at key path\n    tree_map "
        "tree\nAt that key path, the prefix pytree tree_map tree has a subtree of type\n    "
        "<class 'collections.OrderedDict'>\nwith 1 child keys\n    a\nbut at the same key path "
        "the full pytree has a subtree of the same type but with 2 child keys\n    a b\nso the "
        "symmetric difference on key sets is\n    b",
    ),
]


@pytest.mark.parametrize(("tree", "other", "message"), STRUCTURE_ERRORS)
def test_tree_map_structure_errors_match_jax(tree, other, message):
    with pytest.raises(ValueError) as info:
        tree_map(lambda x, y: x, tree, other)
    assert str(info.value) == message


def test_structure_error_key_path_and_names():
    # JAX 0.10.2 prints `.x` here (it keys every namedtuple field by the first name); `.y` is right.
    with pytest.raises(ValueError, match=r"tree_map tree\['a'\]\[0\]\.y\n"):
        tree_map(lambda x, y: x, {"a": [P(1, (2,))]}, {"a": [P(1, (2, 3))]})
    with pytest.raises(ValueError, match=r"different lengths of list at key path\n    "):
        tree_map_with_path(lambda p, x, y: x, {"a": [1]}, {"a": [2, 3]})
    with pytest.raises(ValueError, match=r"tree_map_with_path tree\['a'\]\n"):
        tree_map_with_path(lambda p, x, y: x, {"a": [1]}, {"a": [2, 3]})
    with pytest.raises(ValueError, match=r"tree_map tree\[1\]\n"):
        tree_map(lambda x, y, z: x, [1, (2,)], [1, (2,)], [1, (2, 3)])


FLATTEN_UP_TO_ERRORS = [
    ((1, 2), (1, 2, 3), "Tuple arity mismatch: 3 != 2; tuple: (1, 2, 3)."),
    ((1, 2), [1, 2], "Expected tuple, got [1, 2]."),
    ([1, 2], [1], "List arity mismatch: 1 != 2; list: [1]."),
    (
        {"a": 1},
        {"a": 2, "b": 3},
        "Dict key mismatch; expected keys: ['a']; present keys: ['a', 'b'].",
    ),
    (
        {"a": 1},
        collections.defaultdict(list, a=1),
        "Expected dict, got defaultdict(<class 'list'>, ",
    ),
    (P(1, 2), Q(1, 2), f"Named tuple type mismatch: expected type: {P}, tuple: Q(x=1, y=2)."),
    (P(1, 2), (1, 2), "Expected named tuple, got (1, 2)."),
    ((None, 1), (2, 1), "Expected None, got 2."),
    (Box(1, 2), 3, f"Custom node type mismatch: expected type: {Box}, value: 3."),
    (Box(1, 2), Box(1), "Custom type arity mismatch: 1 != 2; value: Box(1,)."),
    (Box(1, meta="m"), Box(1, meta="n"), "Mismatch custom node data: 'm' != 'n'; value: Box(1,)."),
    (
        collections.OrderedDict(a=1),
        collections.OrderedDict(b=1),
        "Mismatch custom node data: ('a',) != ('b',); value: OrderedDict([('b', 1)]).",
    ),
]


@pytest.mark.parametrize(("prefix", "tree", "message"), FLATTEN_UP_TO_ERRORS)
def test_flatten_up_to_errors_match_jax(prefix, tree, message):
    with pytest.raises(ValueError) as info:
        tree_structure(prefix).flatten_up_to(tree)
    assert str(info.value).startswith(message)


def test_flatten_up_to():
    treedef = tree_structure((1, {"a": 2}))
    assert treedef.flatten_up_to(((1, 2), {"a": [3]})) == [(1, 2), [3]]
    assert tree_structure(1).flatten_up_to((1, 2)) == [(1, 2)]
    assert tree_structure(None).flatten_up_to(None) == []


def test_unflatten_leaf_count_errors():
    treedef = tree_structure((1, 2))
    with pytest.raises(ValueError, match=r"^Too few leaves for PyTreeDef; expected 2, got 1$"):
        tree_unflatten(treedef, [1])
    with pytest.raises(ValueError, match=r"^Too many leaves for PyTreeDef; expected 2\.$"):
        tree_unflatten(treedef, iter([1, 2, 3]))


# --- treedefs -------------------------------------------------------------------------------------


def test_treedef_equality():
    assert tree_structure((1, 2)) == tree_structure(("a", "b"))
    assert tree_structure((1, 2)) != tree_structure([1, 2])
    assert tree_structure({"a": 1}) != tree_structure({"b": 1})
    assert tree_structure({"b": 1, "a": 2}) == tree_structure({"a": 1, "b": 2})
    od_ab, od_ba = collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2)
    assert tree_structure(od_ab) != tree_structure(od_ba)
    dd_list = collections.defaultdict(list, a=1)
    assert tree_structure(dd_list) != tree_structure(collections.defaultdict(dict, a=1))
    assert tree_structure(P(1, 2)) != tree_structure(Q(1, 2))
    assert tree_structure(Box(1, meta="x")) != tree_structure(Box(1))
    assert tree_structure([Static(1)]) == tree_structure([Static(1)])
    assert tree_structure([Static(1)]) != tree_structure([Static(2)])
    assert tree_structure(1) == tree_structure("a")
    assert tree_structure(None) != tree_structure(())
    assert (tree_structure((1, 2)) == 5) is False


def test_treedef_hash_is_stable_and_usable_as_cache_key():
    tree = ((1, 2), {"a": 3}, P(4, None), Box(5))
    first, second = tree_structure(tree), tree_structure(tree_map(str, tree))
    assert first == second and hash(first) == hash(second) == hash(first)
    cache = {first: "hit"}
    assert cache[second] == "hit"
    assert tree_structure([1, 2]) not in cache
    # Unhashable aux data still gives a hash; equal treedefs still hash alike.
    assert hash(tree_structure(Box(1, meta=[1]))) == hash(tree_structure(Box(2, meta=[1])))
    assert tree_structure(Box(1, meta=[1])) == tree_structure(Box(2, meta=[1]))


def test_treedef_equality_with_bad_metadata_raises():
    class NoEq:
        def __eq__(self, other):
            raise RuntimeError("boom")

        __hash__ = object.__hash__

    with pytest.raises(ValueError, match="equality of pytree metadata"):
        _ = tree_structure(Box(1, meta=NoEq())) == tree_structure(Box(1, meta=NoEq()))


def test_treedef_methods():
    treedef = tree_structure((1, [2, 3]))
    assert treedef_children(treedef) == [tree_structure(0), tree_structure([0, 0])]
    assert treedef.children() == treedef_children(treedef)
    assert tree_structure(1).children() == []
    assert treedef.node_data() == (tuple, None)
    assert tree_structure({"b": 1, "a": 2}).node_data() == (dict, ["a", "b"])
    assert tree_structure(1).node_data() is None
    assert tree_structure(P(1, 2)).node_data() == (P, None)
    assert tree_structure(Box(1)).node_data() == (Box, "m")
    assert tree_structure(collections.OrderedDict(b=1, a=2)).node_data() == (
        collections.OrderedDict,
        ("b", "a"),
    )
    composed = tree_structure((1, (2, 3))).compose(tree_structure([1, 2]))
    assert str(composed) == "PyTreeDef(([*, *], ([*, *], [*, *])))"
    assert composed.num_leaves == 6
    assert str(tree_structure((1, 2)).compose(tree_structure(None))) == "PyTreeDef((None, None))"
    assert treedef.unflatten([7, 8, 9]) == (7, [8, 9])
    assert isinstance(treedef, PyTreeDef)


def test_treedef_tuple_and_is_leaf():
    pair = treedef_tuple([tree_structure((1, [2, 3])), tree_structure(None)])
    assert str(pair) == "PyTreeDef(((*, [*, *]), None))"
    assert pair.num_leaves == 3
    assert pair == tree_structure(((1, [2, 3]), None))
    assert str(treedef_tuple([])) == "PyTreeDef(())"
    assert treedef_tuple((tree_structure(1), tree_structure(2))) == tree_structure((1, 2))
    assert [treedef_is_leaf(tree_structure(x)) for x in (1, None, (), (1,))] == [
        True,
        True,
        True,
        False,
    ]


# --- other operations -----------------------------------------------------------------------------


def test_reductions():
    assert tree_reduce(operator.add, [1, (2, 3)]) == 6
    assert tree_reduce(operator.add, [], 10) == 10
    with pytest.raises(TypeError, match="empty iterable with no initial value"):
        tree_reduce(operator.add, [])
    pairs = tree_reduce(lambda acc, x: [*acc, x], [(1, 2), 3], [], is_leaf=lambda x: x == (1, 2))
    assert pairs == [(1, 2), 3]
    assert tree_reduce_associative(operator.add, [1, (2, 3), 4]) == 10
    assert tree_reduce_associative(operator.add, list("abcde")) == "abcde"
    assert tree_reduce_associative(operator.add, [], identity=0) == 0
    with pytest.raises(TypeError, match="Must specify identity"):
        tree_reduce_associative(operator.add, [])


def test_predicates():
    assert tree_all([1, (True, 2)]) and not tree_all([1, (0, 2)])
    assert tree_all([]) and tree_all(None)
    assert tree_all([(1, 0)], is_leaf=lambda x: isinstance(x, tuple))
    assert all_leaves([1, 2]) and not all_leaves([1, (2,)]) and not all_leaves([1, None])
    assert all_leaves([(1,)], is_leaf=lambda x: isinstance(x, tuple))
    assert all(is_tree_node(t) for t in (tuple, dict, type(None), P, Partial, Box, Params))
    assert not is_tree_node(int) and not is_tree_node(functools.partial)


def test_flatten_one_level():
    assert flatten_one_level((1, (2, 3))) == ((1, (2, 3)), None)
    children, keys = flatten_one_level({"b": 1, "a": 2})
    assert list(children) == [2, 1] and keys == ("a", "b")
    assert flatten_one_level(Box(1, 2)) == ((1, 2), "m")
    assert list(flatten_one_level(None)[0]) == []
    pairs, aux = flatten_one_level_with_keys(P(1, 2))
    assert list(pairs) == [(GetAttrKey("x"), 1), (GetAttrKey("y"), 2)] and aux is P
    assert list(flatten_one_level_with_keys(Box(1))[0]) == [(FlattenedIndexKey(0), 1)]
    with pytest.raises(ValueError, match="can't tree-flatten type: <class 'int'>"):
        flatten_one_level(1)


def test_tree_transpose():
    outer, inner = tree_structure([0, 0]), tree_structure((0, 0))
    assert tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tree_transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tree_transpose(tree_structure({"a": 0}), inner, {"a": (1, 2)}) == ({"a": 1}, {"a": 2})
    with pytest.raises(TypeError) as info:
        tree_transpose(outer, inner, [(1, 2), (3,)])
    assert (
        str(info.value) == "Mismatch\nPyTreeDef([(*, *), (*,)])\n != \nPyTreeDef([(*, *), (*, *)])"
    )


def test_tree_broadcast():
    full = ((1, 2), {"a": {"x": 3, "y": 4}})
    assert tree_broadcast((1, {"a": 2}), full) == ((1, 1), {"a": {"x": 2, "y": 2}})
    with pytest.raises(ValueError, match=r"different types at key path\n    broadcast_prefix"):
        tree_broadcast((1, 2), [1, 2])
    with pytest.raises(ValueError, match=r"broadcast_prefix prefix_tree\[1\]\n"):
        tree_broadcast((1, None), (2, 3))


# --- registration ---------------------------------------------------------------------------------


def test_register_pytree_node():
    leaves, treedef = tree_flatten(Box(1, (2, 3)))
    rebuilt = tree_unflatten(treedef, [4, 5, 6])
    assert type(rebuilt) is Box and rebuilt.a == (4, (5, 6)) and rebuilt.meta == "m"
    assert tree_leaves(MethodNode(1, 2)) == [1]
    assert str(tree_structure(MethodNode(1, 2))) == "PyTreeDef(CustomNode(MethodNode[2], [*]))"
    assert tree_map(lambda x: x + 1, MethodNode(1, 2)).x == 2
    assert tree_leaves(KeyedMethodNode(1, 2)) == [1]


def test_register_errors():
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration for"):
        register_pytree_node(Box, lambda b: (b.a, b.meta), lambda meta, a: Box(*a))
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration for"):
        register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
    with pytest.raises(TypeError, match="expected a type"):
        register_pytree_node(3, lambda x: ((), None), lambda a, c: None)

    class BadFlatten:
        pass

    register_pytree_node(BadFlatten, lambda x: 5, lambda aux, children: BadFlatten())
    with pytest.raises(ValueError, match=r"should return a \(children, aux_data\) tuple, got 5"):
        tree_flatten([BadFlatten()])


def test_register_dataclass():
    assert tree_flatten(Params(1, 2, "q"))[0] == [1, 2]
    assert tree_structure(Params(1, 2, "q")) != tree_structure(Params(1, 2))
    assert tree_map(lambda x: x * 10, Params(1, 2, "q")) == Params(10, 20, "q")

    @dataclasses.dataclass
    class TwoFields:
        x: int
        y: int

    with pytest.raises(ValueError, match=r"Missing fields: \{'y'\}\. Add them to drop_fields"):
        register_dataclass(TwoFields, data_fields=["x"], meta_fields=[])
    with pytest.raises(ValueError, match=r"Unexpected fields: \{'z'\}"):
        register_dataclass(TwoFields, data_fields=["x", "y", "z"], meta_fields=[])
    with pytest.raises(TypeError, match="must both be specified when either is specified"):
        register_dataclass(TwoFields, data_fields=["x", "y"])
    with pytest.raises(TypeError, match="required when nodetype is not a dataclass"):
        register_dataclass(Box)

    @dataclasses.dataclass
    class Derived:
        x: int
        y: int = dataclasses.field(init=False, default=0)

    register_dataclass(Derived, data_fields=["x"], meta_fields=[], drop_fields=["y"])
    assert tree_leaves(Derived(1)) == [1]
    assert tree_unflatten(tree_structure(Derived(1)), [5]) == Derived(5)


# --- Partial --------------------------------------------------------------------------------------


def test_partial():
    add_one = Partial(operator.add, 1)
    assert isinstance(add_one, functools.partial)
    assert add_one(2) == 3
    assert tree_map(lambda x: x * 10, add_one)(2) == 12
    assert tree_structure(add_one) == tree_structure(Partial(operator.add, 2))
    assert tree_structure(add_one) != tree_structure(Partial(operator.sub, 2))
    assert repr(Partial(print, 1, sep="x")) == "Partial(<built-in function print>, 1, sep='x')"
    # The arguments of an inner partial are part of the static function, not leaves.
    nested = Partial(Partial(operator.add, 1), 2)
    assert tree_leaves(nested) == [2] and nested.args == (2,) and nested() == 3
    assert tree_leaves(Partial(functools.partial(operator.add, 1), 2)) == [2]
    assert tree_structure(nested) == tree_structure(tree_map(lambda x: x, nested))


# --- properties -----------------------------------------------------------------------------------

leaf_values = st.one_of(st.integers(-5, 5), st.text(max_size=2), st.booleans())
dict_keys = st.one_of(st.text(max_size=3), st.integers(0, 9).map(lambda i: f"k{i}"))


def containers(children):
    return st.one_of(
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=4),
        st.dictionaries(dict_keys, children, max_size=4),
        st.dictionaries(dict_keys, children, max_size=3).map(
            lambda d: collections.OrderedDict(reversed(list(d.items())))
        ),
        st.dictionaries(dict_keys, children, max_size=3).map(
            lambda d: collections.defaultdict(list, d)
        ),
        st.tuples(children, children).map(lambda xy: P(*xy)),
        st.lists(children, max_size=3).map(lambda xs: Box(*xs, meta=len(xs))),
        st.tuples(children, children).map(lambda xy: Params(*xy)),
        st.tuples(children, children).map(lambda xy: Partial(max, *xy)),
    )


pytrees = st.recursive(st.one_of(leaf_values, st.none()), containers, max_leaves=20)


def same_tree(a, b) -> bool:
    """Structural equality that also checks node types and insertion order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        if isinstance(a, collections.OrderedDict) and list(a) != list(b):
            return False
        if getattr(a, "default_factory", None) is not getattr(b, "default_factory", None):
            return False
        return a.keys() == b.keys() and all(same_tree(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Box):
        return a.meta == b.meta and same_tree(a.a, b.a)
    if isinstance(a, Params):
        return a.name == b.name and same_tree((a.w, a.b), (b.w, b.b))
    if isinstance(a, Partial):
        return a.func is b.func and same_tree((a.args, a.keywords), (b.args, b.keywords))
    return a == b


def follow(tree, path):
    """Indexes `tree` by a key path, the way keystr renders it."""
    for key in path:
        if isinstance(key, SequenceKey):
            tree = tree[key.idx]
        elif isinstance(key, DictKey):
            tree = tree[key.key]
        elif isinstance(key, GetAttrKey):
            tree = getattr(tree, key.name)
        else:
            tree = flatten_one_level(tree)[0][key.key]
    return tree


@settings(max_examples=150, deadline=None)
@given(pytrees)
def test_roundtrip_property(tree):
    leaves, treedef = tree_flatten(tree)
    assert same_tree(tree_unflatten(treedef, leaves), tree)
    assert treedef.num_leaves == len(leaves)
    assert same_tree(tree_map(lambda x: x, tree), tree)
    mapped = tree_map(lambda x: (x,), tree)
    assert tree_leaves(mapped) == leaves
    assert tree_structure(mapped) == treedef.compose(tree_structure((0,)))
    again = tree_structure(tree_unflatten(treedef, range(len(leaves))))
    assert again == treedef and hash(again) == hash(treedef)
    assert tree_structure(tree, is_leaf=lambda x: False) == treedef
    assert treedef.flatten_up_to(tree) == leaves
    if treedef.node_data() is not None:
        assert sum(child.num_leaves for child in treedef.children()) == treedef.num_leaves
    pairs, path_treedef = tree_flatten_with_path(tree)
    assert path_treedef == treedef
    assert [leaf for _, leaf in pairs] == leaves
    assert all(follow(tree, path) is leaf for path, leaf in pairs)
