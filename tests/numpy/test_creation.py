"""Creation, conversion and scalar types against NumPy and JAX's recorded dtype rules."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp


def check(got, expected, dtype=None, exact=False):
    got = np.asarray(got)
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), (got.dtype, dtype)


# -- Scalar types (JAX: jnp.float32(...) is an Array; jnp.float32 is still a dtype) ---------------


@pytest.mark.parametrize(
    "name", ["bool_", "int8", "uint16", "int32", "float16", "float32", "complex64", "bfloat16"]
)
def test_scalar_type_constructs_arrays(name):
    t = getattr(jnp, name)
    x = t(1)
    assert isinstance(x, stablax.Array) and x.dtype == np.dtype(t.dtype) and not x.weak_type
    y = t([0, 1, 1])
    check(y, np.array([0, 1, 1], dtype=t.dtype), t.dtype, exact=True)
    assert stablax.jit(lambda v: t(v))(3).dtype == t.dtype


def test_scalar_types_work_as_dtypes():
    assert np.dtype(jnp.float32) == np.float32 and jnp.dtype(jnp.int8) == np.int8
    assert jnp.zeros(3, jnp.float32).dtype == jnp.float32
    assert jnp.ones(2).astype(jnp.int16).dtype == np.int16
    assert jnp.issubdtype(jnp.float32, jnp.floating) and jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert jnp.issubdtype(jnp.zeros(2, jnp.uint8).dtype, jnp.unsignedinteger)
    assert jnp.float32 == np.float32 and jnp.float32 == np.dtype("float32")
    assert jnp.float32 != jnp.float16 and hash(jnp.float32) == hash(np.float32)
    assert isinstance(np.float32(1), jnp.float32) and not isinstance(jnp.float32(1), jnp.float32)
    assert np.zeros(2, dtype=jnp.complex64).dtype == np.complex64
    assert jnp.result_type(jnp.int8, jnp.float16) == np.float16
    assert jnp.bool is jnp.bool_ and jnp.bool_(3).item() is True
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    with pytest.raises(OverflowError):
        jnp.int8(300)


# -- Constructors ----------------------------------------------------------------------------------


def test_array_and_asarray():
    check(jnp.array([1, 2], ndmin=3), np.array([1, 2], ndmin=3), np.int32)
    x = jnp.arange(3)
    assert jnp.asarray(x) is x and jnp.array(x) is not x
    check(jnp.asarray(np.arange(3.0), dtype=jnp.float16), np.arange(3.0), np.float16)
    check(jnp.empty_like(np.ones((2, 3), np.int8)), np.zeros((2, 3)), np.int8)
    check(jnp.empty_like(x, shape=(4,), dtype=float), np.zeros(4), np.float32)


def test_logspace_geomspace():
    check(jnp.logspace(0, 2, 5), np.logspace(0, 2, 5), np.float32)
    check(jnp.logspace(0, 3, 4, base=2.0, endpoint=False), np.logspace(0, 3, 4, False, 2.0))
    check(jnp.logspace([0, 1], [2, 3], 3, axis=1), np.logspace([0, 1], [2, 3], 3, axis=1))
    check(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4), np.float32)
    check(jnp.geomspace(-2, -32, 5), np.geomspace(-2, -32, 5))
    check(jnp.geomspace(2, 3, 5, endpoint=False), np.geomspace(2, 3, 5, endpoint=False))
    with pytest.raises(ValueError, match="zero"):
        jnp.geomspace(0, 1, 3)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_meshgrid(indexing, sparse, n):
    args = [np.arange(k + 2, dtype=np.float32) for k in range(n)]
    got = jnp.meshgrid(*args, sparse=sparse, indexing=indexing)
    expected = np.meshgrid(*args, sparse=sparse, indexing=indexing)
    for g, e in zip(got, expected, strict=True):
        check(g, e, np.float32, exact=True)


def test_indices_tri_fromfunction():
    check(jnp.indices((2, 3)), np.indices((2, 3)), np.int32, exact=True)
    for g, e in zip(
        jnp.indices((2, 3, 4), sparse=True), np.indices((2, 3, 4), sparse=True), strict=True
    ):
        check(g, e, np.int32, exact=True)
    check(jnp.indices((2,), dtype=jnp.int8), np.indices((2,)), np.int8, exact=True)
    for k in (-1, 0, 2):
        check(jnp.tri(3, 4, k), np.tri(3, 4, k), np.float32, exact=True)
    check(jnp.tri(3, dtype=int), np.tri(3), np.int32, exact=True)
    check(
        jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
        np.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
    )
    # Vectorised with vmap as in JAX: the function sees scalars.
    check(jnp.fromfunction(lambda i: jnp.sum(jnp.arange(3) * i), (4,), dtype=int), [0, 3, 6, 9])


def test_host_constructors():
    raw = np.arange(4, dtype=np.int32).tobytes()
    check(jnp.frombuffer(raw, dtype=jnp.int32), np.arange(4), np.int32, exact=True)
    check(
        jnp.frombuffer(raw, dtype=np.int16, count=3, offset=2), np.frombuffer(raw, np.int16, 3, 2)
    )
    check(jnp.fromstring("1 2 3.5", sep=" "), [1, 2, 3.5], np.float32)
    for fn in (jnp.fromiter, jnp.fromfile):
        with pytest.raises(NotImplementedError, match="non-pure"):
            fn(iter([1, 2]))


def test_introspection():
    assert jnp.ndim([[1, 2]]) == 2 and jnp.shape(3) == () and jnp.size(np.ones((2, 5)), 1) == 5
    assert jnp.size(jnp.ones((2, 3))) == 6 and jnp.shape(jnp.ones((2, 3))) == (2, 3)
    assert jnp.isscalar(1.0) and jnp.isscalar(jnp.asarray(1)) and not jnp.isscalar(jnp.ones(2))
    assert jnp.iscomplexobj(1j) and not jnp.iscomplexobj(jnp.ones(2)) and jnp.isrealobj([1])
    assert jnp.iterable([1]) and not jnp.iterable(3)
    assert jnp.can_cast(jnp.int8, jnp.float32) and not jnp.can_cast(jnp.float32, jnp.int32)
    assert not jnp.can_cast(jnp.ones(2), jnp.float16)
    with pytest.raises(TypeError, match="Python ints"):
        jnp.can_cast(1.0, jnp.int32)
    assert jnp.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    with pytest.raises(ValueError):
        jnp.broadcast_shapes((2,), (3,))


@pytest.mark.parametrize("fn, value", [("zeros_like", 0), ("ones_like", 1), ("empty_like", 0)])
def test_like_functions_take_a_shape_dtype_struct(fn, value):
    # As in JAX: optax passes jax.eval_shape results to zeros_like.
    spec = stablax.ShapeDtypeStruct((2, 3), np.int16)
    out = getattr(jnp, fn)(spec)
    assert out.shape == (2, 3) and out.dtype == np.int16
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), value, np.int16))
    full = jnp.full_like(spec, 7, dtype=np.float32)
    assert full.dtype == np.float32 and float(full[0, 0]) == 7.0


def test_geomspace_through_a_traced_zero_is_nan():
    # JAX 0.10.2: [nan nan nan] (a traced endpoint cannot raise NumPy's ValueError)
    out = stablax.jit(lambda a: jnp.geomspace(a, 5.0, 3))(0.0)
    check(out, [np.nan] * 3, np.float32)
    out = stablax.vmap(lambda a: jnp.geomspace(a, 5.0, 3))(jnp.array([0.0, 1.0]))
    check(out, [[np.nan] * 3, np.geomspace(1.0, 5.0, 3)], np.float32)
    # One endpoint an array, the other a scalar: the exact endpoints broadcast (JAX's values).
    check(jnp.geomspace(jnp.array([0.5, 1.0]), 5.0, 3), [[0.5, 1.0], [1.5811388, 2.236068], [5, 5]])


@pytest.mark.parametrize(
    "make",
    [
        lambda d: jnp.empty((2,), d),
        lambda d: stablax.jit(lambda d: jnp.empty((2,), d))(d),
        lambda d: jnp.zeros_like(jnp.ones(2), dtype=d),
        lambda d: stablax.lax.full((2,), 1, d),
        lambda d: jnp.ones(2).astype(d),
    ],
)
def test_an_array_is_no_dtype(make):
    # JAX 0.10.2: "ValueError: Passing an array as a dtype argument is no longer supported"
    with pytest.raises(ValueError, match="passing an array as a dtype argument"):
        make(jnp.array(-6))
