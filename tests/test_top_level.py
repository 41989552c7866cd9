"""Top-level names beyond the transformations, and JAX semantics programs rely on: abstract
`Array`, typed tracer errors, ShapeDtypeStruct's API, lists refused like JAX, refs, scopes."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import errors

# --- stablax.Array is abstract, as jax.Array -----------------------------------------------------


def test_array_is_abstract_and_covers_tracers_and_keys():
    x = jnp.ones(3)
    assert isinstance(x, stablax.Array) and type(x) is not stablax.Array
    assert issubclass(type(x), stablax.Array)
    assert isinstance(stablax.random.key(0), stablax.Array)
    assert not isinstance(np.ones(2), stablax.Array) and not isinstance(1.0, stablax.Array)
    seen = []

    def record(x):
        seen.append(isinstance(x, stablax.Array))
        return x

    stablax.jit(record)(x)
    stablax.grad(lambda x: record(x).sum())(x)
    stablax.vmap(record)(jnp.ones((2, 3)))
    assert seen == [True, True, True]
    with pytest.raises(TypeError, match="abstract"):
        stablax.Array()


# --- typed tracer errors -------------------------------------------------------------------------

ERROR_CASES = [
    ("bool", lambda x: bool(x > 0), errors.TracerBoolConversionError),
    ("if", lambda x: 1 if x > 0 else 2, errors.TracerBoolConversionError),
    ("index", lambda x: [1, 2][x], errors.TracerIntegerConversionError),
    ("int", lambda x: int(x), errors.ConcretizationTypeError),
    ("numpy", lambda x: np.asarray(x), errors.TracerArrayConversionError),
    ("mask", lambda x: jnp.arange(3)[jnp.arange(3) > x], errors.NonConcreteBooleanIndexError),
]


@pytest.mark.parametrize("what, fun, error", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_tracer_errors_have_jax_classes(what, fun, error):
    with pytest.raises(error):
        stablax.jit(fun)(1)
    assert issubclass(errors.TracerBoolConversionError, errors.ConcretizationTypeError)


def test_bool_of_a_batched_value_under_vmap():
    with pytest.raises(errors.TracerBoolConversionError):
        stablax.vmap(lambda x: 1.0 if x > 0 else 2.0)(jnp.ones(3))


# --- ShapeDtypeStruct ----------------------------------------------------------------------------


def test_shape_dtype_struct_api():
    s = stablax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert repr(s) == str(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
    assert (s.size, s.ndim, len(s), s.sharding, s.weak_type) == (6, 2, 2, None, False)
    assert s == stablax.ShapeDtypeStruct([2, 3], "float32")
    assert hash(s) == hash(stablax.ShapeDtypeStruct((2, 3), np.float32))
    assert s != s.update(weak_type=True)
    assert repr(s.update(shape=(4,), weak_type=True)) == (
        "ShapeDtypeStruct(shape=(4,), dtype=float32, weak_type=True)"
    )
    with pytest.raises(RuntimeError, match="immutable"):
        s.shape = (1,)
    with pytest.raises(ValueError, match="dtype must be specified"):
        stablax.ShapeDtypeStruct((2,), None)
    with pytest.raises(TypeError, match="unsized"):
        len(stablax.ShapeDtypeStruct((), np.float32))
    assert pickle.loads(pickle.dumps(s)) == s
    assert stablax.ShapeDtypeStruct.like(jnp.ones(2)) == stablax.ShapeDtypeStruct((2,), "float32")
    assert stablax.ShapeDtypeStruct.like(1.0).weak_type
    key_struct = stablax.ShapeDtypeStruct.like(stablax.random.key(0))
    assert repr(key_struct) == "ShapeDtypeStruct(shape=(), dtype=key<fry>)"
    sharding = jnp.ones(2).sharding
    with_sharding = stablax.ShapeDtypeStruct((2,), np.float32, sharding=sharding)
    assert with_sharding.sharding is sharding and with_sharding != s.update(shape=(2,))
    out = stablax.eval_shape(lambda a: a.sum(0), s)
    assert out == stablax.ShapeDtypeStruct((3,), np.float32)


# --- lists are refused where JAX refuses them ----------------------------------------------------

LIST_CASES = [
    ("sum", lambda: jnp.sum([1, 2, 3])),
    ("abs", lambda: jnp.abs([1, 2])),
    ("add", lambda: jnp.add([1.0], 2.0)),
    ("mean", lambda: jnp.mean([1.0, 2.0])),
    ("concatenate", lambda: jnp.concatenate([[1.0], [2.0]])),
    ("where", lambda: jnp.where(jnp.ones(2) > 0, [1, 2], 0)),
    ("percentile", lambda: jnp.percentile(jnp.ones(3), [50.0])),
    ("full_like", lambda: jnp.full_like(jnp.ones(2), [1, 2])),
    ("sort", lambda: jnp.sort((3, 1, 2))),
]


@pytest.mark.parametrize("name, call", LIST_CASES, ids=[c[0] for c in LIST_CASES])
def test_lists_raise_type_error_as_in_jax(name, call):
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments|list"):
        call()


def test_lists_stay_accepted_where_jax_accepts_them():
    assert jnp.asarray([1, 2]).shape == (2,) and jnp.array([[1.0], [2.0]]).shape == (2, 1)
    assert jnp.concatenate([jnp.ones(1), jnp.ones(2)]).shape == (3,)
    assert jnp.sum(jnp.ones((2, 2)), axis=[0]).shape == (2,)
    assert jnp.transpose(jnp.ones((2, 3)), [1, 0]).shape == (3, 2)
    assert jnp.pad(jnp.ones(2), [(1, 1)], constant_values=[0, 0]).shape == (4,)
    assert jnp.histogram2d(jnp.ones(3), jnp.ones(3), bins=[2, 3])[0].shape == (2, 3)
    with pytest.raises(TypeError, match="requires ndarray"):
        jnp.histogram(jnp.arange(4.0), bins=[0.0, 2.0, 4.0])  # JAX refuses bins lists here


# --- top-level helpers ---------------------------------------------------------------------------


def test_typeof_and_float0():
    assert repr(stablax.typeof(1.0)) == "ShapedArray(float32[], weak_type=True)"
    assert stablax.typeof(jnp.ones((2, 3), jnp.int8)).shape == (2, 3)
    assert repr(stablax.typeof(stablax.new_ref(jnp.zeros(3)))) == "Ref{float32[3]}"
    assert stablax.float0 is stablax.dtypes.float0


def test_named_scope_and_named_call_name_the_ops():
    def f(x):
        with stablax.named_scope("outer"), stablax.named_scope("inner"):
            y = jnp.sin(x)
        return stablax.named_call(jnp.cos, name="cosine")(y)

    text = stablax.make_jaxpr(f)(1.0).text(debug_info=True)
    assert '"outer/inner"' in text and '"cosine"' in text
    with pytest.raises(TypeError):
        stablax.named_scope(3).__enter__()


def test_ensure_compile_time_eval():
    kinds = []

    @stablax.jit
    def f(x):
        with stablax.ensure_compile_time_eval():
            table = jnp.arange(4.0) ** 2
            kinds.append(isinstance(table, stablax._src.core.Tracer))
            doubled = x * 2  # traced values are still traced
        return doubled + table[3]

    assert float(f(1.0)) == 11.0 and kinds == [False]


def test_ds_dynamic_slices():
    x = jnp.arange(10)
    np.testing.assert_array_equal(np.asarray(x[stablax.ds(4, 2)]), [4, 5])
    f = stablax.jit(lambda x, i: x[stablax.ds(i, 3, 2)])
    np.testing.assert_array_equal(np.asarray(f(x, 1)), [1, 3, 5])
    np.testing.assert_array_equal(np.asarray(x.reshape(2, 5)[1, stablax.ds(1, 2)]), [6, 7])
    assert stablax.ds(None) == slice(None) and stablax.ds(3).size == 3


def test_host_queries_live_arrays_and_async_copies():
    assert stablax.host_count() == stablax.process_count() == 1
    assert stablax.host_id() == stablax.process_index() == 0
    assert stablax.host_ids() == stablax.process_indices() == [0]
    x = jnp.arange(5.0) + 1
    assert any(a is x for a in stablax.live_arrays())
    tree = {"a": x}
    assert stablax.copy_to_host_async(tree) is tree
    assert isinstance(stablax.devices()[0], stablax.Device)
    text = stablax.print_environment_info(return_string=True)
    assert "stablax" in text and "jaxlib" in text


# --- mutable refs --------------------------------------------------------------------------------


def test_refs_eagerly():
    r = stablax.new_ref(jnp.arange(4.0))
    assert isinstance(r, stablax.Ref) and r.shape == (4,) and r.dtype == np.float32
    r[1] = 10.0
    r[...] += 1
    r.addupdate(1.0, 0)
    np.testing.assert_array_equal(np.asarray(r[...]), [2.0, 11.0, 3.0, 4.0])
    assert repr(r).startswith("Ref([")
    np.testing.assert_array_equal(np.asarray(stablax.freeze(r)), [2.0, 11.0, 3.0, 4.0])
    empty = stablax.empty_ref(stablax.ShapeDtypeStruct((2,), np.int32))
    assert empty[...].dtype == np.int32 and empty[...].shape == (2,)
    stablax.free_ref(r)
    with pytest.raises(RuntimeError, match="freed"):
        r[...]


def test_refs_inside_transformations():
    def f(x):
        r = stablax.new_ref(x)
        r[0] = 5.0
        r.addupdate(1.0)
        return r[...]

    np.testing.assert_array_equal(np.asarray(stablax.jit(f)(jnp.ones(3))), [6.0, 2.0, 2.0])
    np.testing.assert_array_equal(
        np.asarray(stablax.grad(lambda x: f(x).sum())(jnp.ones(3))), [0.0, 1.0, 1.0]
    )
    np.testing.assert_array_equal(np.asarray(stablax.vmap(f)(jnp.ones((2, 3)))[1]), [6.0, 2.0, 2.0])
    outer = stablax.new_ref(0.0)
    with pytest.raises(NotImplementedError, match="created outside"):
        stablax.jit(lambda x: outer[...] + x)(1.0)
    assert stablax.memory.Space.Device.name == "Device"
    with pytest.raises(NotImplementedError):
        stablax.new_ref(1.0, memory_space=stablax.memory.Space.Host)
