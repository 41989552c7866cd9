"""stablax.core: JAX's `jax.core` names are stablax's real classes and working functions."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import core
from tests.helpers import close


def _record(where):
    def f(x):
        where.append(x)
        return x * 2

    return f


@pytest.mark.parametrize(
    "transform",
    [stablax.jit, stablax.grad, stablax.vmap, lambda f: stablax.jit(stablax.vmap(f))],
    ids=["jit", "grad", "vmap", "jit_vmap"],
)
def test_tracers_and_avals_are_the_core_classes(transform):
    seen = []
    fun = _record(seen)
    transform(lambda x: jnp.sum(fun(x)))(jnp.ones(3) if transform is not stablax.grad else 1.0)
    (x,) = seen
    assert isinstance(x, core.Tracer) and isinstance(x, stablax.Array)
    assert isinstance(x.aval, core.ShapedArray) and isinstance(x.aval, core.AbstractValue)
    assert isinstance(x._trace, core.Trace)
    assert not isinstance(jnp.ones(2), core.Tracer)
    assert not isinstance(np.ones(2), core.AbstractValue)


def test_abstract_values():
    aval = stablax.typeof(jnp.ones((2, 3), jnp.int32))
    assert isinstance(aval, core.ShapedArray) and isinstance(aval, core.AbstractValue)
    assert aval.shape == (2, 3) and aval.dtype == np.int32
    assert isinstance(stablax.typeof(stablax.new_ref(jnp.zeros(2))), core.AbstractValue)


# (str, repr, str_short(short_dtypes=True)) of typeof(value), as JAX 0.10.2 prints them.
TYPEOF_TEXT = {
    "f32_3x4": ("float32[3,4]", "ShapedArray(float32[3,4])", "f32[3,4]"),
    "py_float": ("~float32[]", "ShapedArray(float32[], weak_type=True)", "f32[]"),
    "py_int": ("~int32[]", "ShapedArray(int32[], weak_type=True)", "i32[]"),
    "py_bool": ("bool[]", "ShapedArray(bool[])", "bool[]"),
    "py_complex": ("~complex64[]", "ShapedArray(complex64[], weak_type=True)", "c64[]"),
    "bf16": ("bfloat16[2]", "ShapedArray(bfloat16[2])", "bf16[2]"),
    "np_u8": ("uint8[2]", "ShapedArray(uint8[2])", "u8[2]"),
    "key": ("key<fry>[]", "ShapedArray(key<fry>[])", "key<fry>[]"),
    "keys": ("key<fry>[3]", "ShapedArray(key<fry>[3])", "key<fry>[3]"),
}


def test_typeof_prints_as_jax():
    values = {
        "f32_3x4": jnp.ones((3, 4)),
        "py_float": 1.0,
        "py_int": 3,
        "py_bool": True,
        "py_complex": 1j,
        "bf16": jnp.ones(2, jnp.bfloat16),
        "np_u8": np.zeros((2,), np.uint8),
        "key": stablax.random.key(0),
        "keys": stablax.random.split(stablax.random.key(0), 3),
    }
    for name, value in values.items():
        aval = stablax.typeof(value)
        assert (str(aval), repr(aval), aval.str_short(short_dtypes=True)) == TYPEOF_TEXT[name]
    key_aval = stablax.typeof(values["key"])
    assert isinstance(key_aval, core.ShapedArray) and key_aval == stablax.typeof(values["key"])
    seen = []
    stablax.jit(
        lambda x, k: (
            seen.append((str(stablax.typeof(x)), str(stablax.typeof(k)), repr(stablax.typeof(k))))
            or x
        )
    )(2.0, stablax.random.key(1))
    stablax.vmap(lambda x: seen.append(str(stablax.typeof(x))) or x)(jnp.ones((4, 2), jnp.int32))
    stablax.grad(lambda x: seen.append(str(stablax.typeof(x))) or x)(2.0)
    assert seen == [
        ("~float32[]", "key<fry>[]", "ShapedArray(key<fry>[])"),
        "int32[2]",
        "~float32[]",
    ]


def test_eval_context_runs_ops_while_tracing():
    kinds = []

    @stablax.jit
    def f(x):
        with core.eval_context():
            table = jnp.arange(3.0) ** 2
        kinds.append(isinstance(table, core.Tracer))
        return x * table

    close(f(jnp.ones(3)), np.arange(3.0) ** 2)
    assert kinds == [False]


EVAL_CASES = [
    ("one output", lambda a, b: a * b, (2.0, np.ones(2, np.float32))),
    (
        "pytree out",
        lambda a, b: {"s": a + b, "p": (a * b, b)},
        (2.0, np.arange(2.0, dtype=np.float32)),
    ),
    ("matrix", lambda m: jnp.tanh(m @ m.T), (np.eye(3, dtype=np.float32) * 0.5,)),
]


@pytest.mark.parametrize("name,fun,args", EVAL_CASES, ids=[c[0] for c in EVAL_CASES])
def test_eval_jaxpr_matches_the_function(name, fun, args):
    closed = stablax.make_jaxpr(fun)(*args)
    assert closed.consts == [] and closed.jaxpr.constvars == []
    got = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
    want = stablax.tree.leaves(fun(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        close(g, w)
    # Inlined under transforms: jit, and grad through the first output.
    jitted = stablax.jit(lambda *xs: core.eval_jaxpr(closed.jaxpr, [], *xs))(*args)
    for g, w in zip(jitted, want, strict=True):
        close(g, w)
    grad = stablax.grad(lambda x0: jnp.sum(core.eval_jaxpr(closed, [], x0, *args[1:])[0]))
    want_grad = stablax.grad(lambda x0: jnp.sum(stablax.tree.leaves(fun(x0, *args[1:]))[0]))
    close(grad(args[0]), want_grad(args[0]))


def test_eval_jaxpr_errors():
    closed = stablax.make_jaxpr(lambda a: a + 1)(1.0)
    # JAX raises ValueError for counts that do not match the jaxpr.
    with pytest.raises(ValueError, match="eval_jaxpr: the jaxpr takes 0 consts and 1 arg"):
        core.eval_jaxpr(closed.jaxpr, [], 1.0, 2.0)
    with pytest.raises(TypeError, match="eval_jaxpr: expected"):
        core.eval_jaxpr(lambda a: a, [], 1.0)
    with pytest.raises(ValueError, match="consts"):
        core.eval_jaxpr(closed.jaxpr, [np.ones(2)], 1.0)


def test_dims_and_aliases():
    assert core.max_dim(3, 4) == 4 and core.min_dim(3, 4) == 3
    assert core.max_dim(np.int64(5), 2) == 5
    with pytest.raises(TypeError):
        core.max_dim(2.5, 1)
    assert core.ParamDict == dict[str, object] or core.ParamDict.__origin__ is dict
    assert core.ensure_compile_time_eval is stablax.ensure_compile_time_eval
