"""The small public modules: tree, typing, flatten_util, dlpack, stages, errors, dtypes.extended."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import dlpack, errors, flatten_util, stages, tree, tree_util
from stablax import typing as stypes

# --- stablax.tree ------------------------------------------------------------------------------

TREE = {"a": (1.0, 2.0), "b": [3.0, {"c": 4.0}]}

# (tree.<name>, tree_util.<name>, arguments): the short names call the same functions.
TREE_ALIASES = [
    ("map", "tree_map", (lambda x: x * 2, TREE)),
    ("leaves", "tree_leaves", (TREE,)),
    ("structure", "tree_structure", (TREE,)),
    ("flatten", "tree_flatten", (TREE,)),
    ("flatten_with_path", "tree_flatten_with_path", (TREE,)),
    ("leaves_with_path", "tree_leaves_with_path", (TREE,)),
    ("map_with_path", "tree_map_with_path", (lambda p, x: len(p) + x, TREE)),
    ("reduce", "tree_reduce", (lambda a, b: a + b, TREE)),
    ("reduce_associative", "tree_reduce_associative", (lambda a, b: a + b, TREE)),
    ("all", "tree_all", (TREE,)),
    ("broadcast", "tree_broadcast", ({"a": 0.0, "b": 1.0}, TREE)),
]


@pytest.mark.parametrize("short, long, args", TREE_ALIASES, ids=[a[0] for a in TREE_ALIASES])
def test_tree_short_names(short, long, args):
    assert getattr(tree, short)(*args) == getattr(tree_util, long)(*args)


def test_tree_unflatten_transpose_and_static():
    leaves, treedef = tree.flatten(TREE)
    assert tree.unflatten(treedef, leaves) == TREE
    outer, inner = tree.structure([0, 0]), tree.structure((0, 0))
    assert tree.transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])

    @tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: float
        kind: str = tree.static(default="add")

    assert tree.leaves(Op(1.0)) == [1.0]
    assert tree.map(lambda v: v + 1, Op(1.0, "mul")) == Op(2.0, "mul")


def test_default_registry():
    reg = tree_util.default_registry
    assert reg.flatten({"a": 1, "b": (2, 3)}) == tree_util.tree_flatten({"a": 1, "b": (2, 3)})
    assert reg.flatten_one_level({"a": 1, "b": 2}) == ((1, 2), ("a", "b"))
    assert reg.flatten_one_level(3) is None
    assert reg.is_node(dict) and not reg.is_node(int)
    pairs, _ = reg.flatten_with_path({"a": 1})
    assert pairs == [((tree_util.DictKey("a"),), 1)]

    class Box:
        def __init__(self, v):
            self.v = v

    reg.register_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(*c))
    assert tree.leaves([Box(5)]) == [5]


# --- typing, flatten_util ----------------------------------------------------------------------


def test_typing_names_accept_arrays_and_dtypes():
    import typing

    assert stablax.Array in typing.get_args(stypes.ArrayLike)
    assert np.dtype in typing.get_args(stypes.DTypeLike)

    def f(x: stypes.ArrayLike, dtype: stypes.DTypeLike = None) -> stablax.Array:
        return jnp.asarray(x, dtype)

    assert f(1, np.float32).dtype == np.float32


@pytest.mark.parametrize(
    "tree_in, flat_dtype",
    [
        ({"a": np.ones(2, np.int32), "b": np.zeros((), np.float16), "c": 1.0}, np.float32),
        ([np.ones((2, 2), np.float32), np.arange(3, dtype=np.float32)], np.float32),
        ((np.ones(2, np.int8), np.ones(1, np.int16)), np.int16),
        ([], np.float32),
    ],
)
def test_ravel_pytree_round_trip(tree_in, flat_dtype):
    flat, unravel = flatten_util.ravel_pytree(tree_in)
    leaves = tree.leaves(tree_in)
    assert flat.dtype == flat_dtype
    want = np.concatenate([np.ravel(x) for x in leaves]) if leaves else np.zeros(0)
    np.testing.assert_array_equal(np.asarray(flat), want.astype(flat_dtype))
    back = unravel(flat)
    assert tree.structure(back) == tree.structure(tree_in)
    for got, orig in zip(tree.leaves(back), leaves, strict=True):
        assert got.shape == np.shape(orig)
        assert got.dtype == stablax.dtypes.canonicalize_dtype(np.result_type(orig))
    assert hash(unravel) == hash(flatten_util.ravel_pytree(tree_in)[1])


def test_ravel_pytree_dtype_checks_and_transforms():
    _, unravel = flatten_util.ravel_pytree([jnp.ones(2, jnp.bfloat16), jnp.ones(1, jnp.int8)])
    with pytest.raises(TypeError, match="expected dtype bfloat16"):
        unravel(jnp.ones(3))
    params = {"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}
    grads = stablax.grad(lambda p: (flatten_util.ravel_pytree(p)[0] ** 2).sum())(params)
    np.testing.assert_array_equal(np.asarray(grads["w"]), 2 * np.ones((2, 3)))
    flat = stablax.jit(lambda p: flatten_util.ravel_pytree(p)[0])(params)
    assert flat.shape == (9,)


# --- dlpack, stages ----------------------------------------------------------------------------


def test_dlpack_from_numpy_canonicalizes_and_handles_strides():
    x = dlpack.from_dlpack(np.arange(6.0).reshape(2, 3).T)
    assert x.dtype == np.float32  # float64 becomes float32 without x64, as in JAX
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0).reshape(2, 3).T)
    assert dlpack.from_dlpack(np.ones(3, np.int64)).dtype == np.int32
    with pytest.raises(TypeError, match="__dlpack__"):
        dlpack.from_dlpack(np.ones(3).__dlpack__())
    assert dlpack.is_supported_dtype(jnp.bfloat16) and dlpack.is_supported_dtype(np.bool_)
    assert not dlpack.is_supported_dtype(jnp.int4)
    with pytest.raises(TypeError):
        dlpack.is_supported_dtype(None)


def test_stages_types():
    f = stablax.jit(lambda x: x + 1)
    assert isinstance(f, stages.Wrapped)
    lowered = f.lower(jnp.ones(2))
    assert isinstance(lowered, stages.Lowered)
    assert isinstance(lowered.compile(), stages.Compiled)
    info = stages.ArgInfo(stablax._src.core.ShapedArray((2,), np.float32), False)
    assert info.shape == (2,) and info.dtype == np.float32 and not info.donated


# --- errors, dtypes ----------------------------------------------------------------------------

ERROR_BASES = [  # (class, JAX's base classes)
    ("ConcretizationTypeError", ("JAXTypeError", TypeError)),
    ("TracerBoolConversionError", ("ConcretizationTypeError",)),
    ("TracerIntegerConversionError", ("JAXTypeError",)),
    ("TracerArrayConversionError", ("JAXTypeError",)),
    ("UnexpectedTracerError", ("JAXTypeError",)),
    ("KeyReuseError", ("JAXTypeError",)),
    ("NonConcreteBooleanIndexError", ("JAXIndexError", IndexError)),
    ("JaxprTypeError", (TypeError,)),
    ("InconclusiveDimensionOperation", (Exception,)),
    ("JaxRuntimeError", (RuntimeError,)),
]


@pytest.mark.parametrize("name, bases", ERROR_BASES, ids=[e[0] for e in ERROR_BASES])
def test_error_hierarchy(name, bases):
    cls = getattr(errors, name)
    for base in bases:
        assert issubclass(cls, getattr(errors, base) if isinstance(base, str) else base)


def test_runtime_errors_are_jax_runtime_errors():
    x = jnp.ones(2)
    buf = x._buf
    x.delete()
    with pytest.raises(errors.JaxRuntimeError):  # what PJRT raises, e.g. on a deleted buffer
        stablax._src.runtime.to_host(buf)


def test_extended_dtypes():
    key = stablax.random.key(0)
    d = stablax.dtypes
    assert d.issubdtype(key.dtype, d.extended) and d.issubdtype(key.dtype, d.prng_key)
    assert not d.issubdtype(key.dtype, np.floating)
    assert not d.issubdtype(np.float32, d.extended)
    assert isinstance(key, stablax.Array)
