"""`stablax.jit` as a JAX user drives it: pytrees, static and donated arguments, cache, staging."""

from __future__ import annotations

import collections
import functools
import re

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import jit
from stablax._src import core, runtime, tree_util
from stablax._src import ir as mlir
from stablax._src import jit as jit_module

Point = collections.namedtuple("Point", ["x", "y"])


def _np(x):
    return np.asarray(x)


# --- forms -------------------------------------------------------------------------------------


def test_decorator_and_higher_order_forms():
    @jit
    def double(x):
        return x * 2

    def triple(x):
        return x * 3

    triple_jit = jit(triple)
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(_np(double(x)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(_np(triple_jit(x)), [0.0, 3.0, 6.0])
    assert double.__name__ == "double" and triple_jit.__name__ == "triple"

    @functools.partial(jit, static_argnums=1)
    def scale(x, k):
        return x * k

    np.testing.assert_array_equal(_np(scale(x, 4)), [0.0, 4.0, 8.0])

    @jit(static_argnames="k")  # keyword-only decorator form
    def shift(x, k=1):
        return x + k

    np.testing.assert_array_equal(_np(shift(x, k=2)), [2.0, 3.0, 4.0])


def test_accepts_numpy_and_python_scalars():
    f = jit(lambda a, b: a + b)
    out = f(np.arange(3, dtype=np.float32), 1)
    assert isinstance(out, stablax.Array) and out.dtype == np.float32
    np.testing.assert_array_equal(_np(out), [1.0, 2.0, 3.0])
    scalar = f(1, 2)
    assert scalar.dtype == np.int32 and int(scalar) == 3


# --- pytrees -----------------------------------------------------------------------------------


def test_pytrees_in_and_out():
    @jit
    def f(tree):
        a, (b, c) = tree["pair"], tree["rest"]
        return {"sum": a + b, "items": [a * c, None], "point": Point(a, c)}

    x = jnp.arange(3.0)
    out = f({"pair": x, "rest": (jnp.ones(3), 2.0)})
    assert set(out) == {"sum", "items", "point"}
    np.testing.assert_array_equal(_np(out["sum"]), [1.0, 2.0, 3.0])
    assert isinstance(out["items"], list) and out["items"][1] is None
    np.testing.assert_array_equal(_np(out["items"][0]), [0.0, 2.0, 4.0])
    assert type(out["point"]) is Point
    np.testing.assert_array_equal(_np(out["point"].x), _np(x))
    assert float(out["point"].y) == 2.0


def test_namedtuple_tuple_and_none_arguments():
    swap = jit(lambda p: Point(p.y, p.x))
    out = swap(Point(jnp.zeros(2), jnp.ones(2)))
    assert type(out) is Point
    np.testing.assert_array_equal(_np(out.x), [1.0, 1.0])
    f = jit(lambda t, nothing: (t[0] - t[1], nothing))
    diff, nothing = f((jnp.asarray(5), jnp.asarray(3)), None)
    assert int(diff) == 2 and nothing is None
    assert jit(lambda: None)() is None
    assert jit(lambda x: ())(jnp.ones(1)) == ()


def test_keyword_arguments():
    f = jit(lambda x, y=2.0: x * y)
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(_np(f(x, y=3.0)), [0.0, 3.0, 6.0])
    np.testing.assert_array_equal(_np(f(x)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(_np(f(y=1.0, x=x)), [0.0, 1.0, 2.0])


# --- static and donated arguments --------------------------------------------------------------


def test_static_argnums_retraces_on_new_value():
    traces = []

    def f(x, n):
        traces.append(n)
        return x * n

    g = jit(f, static_argnums=1)
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(_np(g(x, 2)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(_np(g(x, 2)), [0.0, 2.0, 4.0])
    assert traces == [2]
    np.testing.assert_array_equal(_np(g(x, 3)), [0.0, 3.0, 6.0])
    assert traces == [2, 3]


def test_static_argnames_retraces_on_new_value():
    traces = []

    def f(x, mode="add"):
        traces.append(mode)
        return x + 1 if mode == "add" else x - 1

    g = jit(f, static_argnames="mode")
    x = jnp.zeros(2)
    np.testing.assert_array_equal(_np(g(x, mode="add")), [1.0, 1.0])
    np.testing.assert_array_equal(_np(g(x, mode="add")), [1.0, 1.0])
    np.testing.assert_array_equal(_np(g(x, mode="sub")), [-1.0, -1.0])
    assert traces == ["add", "sub"]
    np.testing.assert_array_equal(_np(g(x, "sub")), [-1.0, -1.0])  # positional works too


def test_static_argument_can_drive_python_control_flow():
    @functools.partial(jit, static_argnums=1)
    def f(x, flag):
        if flag:
            return x + 1
        return x - 1

    assert float(f(jnp.asarray(0.0), True)) == 1.0
    assert float(f(jnp.asarray(0.0), False)) == -1.0


@pytest.mark.parametrize("bad", [[1, 2], {"a": 1}, np.arange(3)], ids=["list", "dict", "ndarray"])
def test_unhashable_static_argument_raises(bad):
    f = jit(lambda x, s: x, static_argnums=1)
    with pytest.raises((ValueError, TypeError), match="hashable"):
        f(jnp.ones(1), bad)
    g = jit(lambda x, s=None: x, static_argnames="s")
    with pytest.raises((ValueError, TypeError), match="hashable"):
        g(jnp.ones(1), s=bad)


def test_donate_argnums():
    f = jit(lambda a, b: a + b, donate_argnums=0)
    a = jnp.ones(4) * 3
    b = jnp.ones(4)
    out = f(a, b)
    np.testing.assert_array_equal(_np(out), [4.0] * 4)
    assert not b.is_deleted()
    # The donated input is consumed (or, on backends without donation, at least still valid).
    if a.is_deleted():
        with pytest.raises(RuntimeError):
            np.asarray(a)
    else:
        np.testing.assert_array_equal(_np(a), [3.0] * 4)
    text = f.lower(jnp.ones(4), jnp.ones(4)).as_text()
    assert "jax.buffer_donor" in text


# --- the cache ---------------------------------------------------------------------------------


def test_cache_keyed_by_shape_dtype_and_weak_type():
    traces = []

    @jit
    def f(x):
        traces.append(x.aval if hasattr(x, "aval") else x)
        return x + 1

    f(jnp.ones(3))
    f(jnp.ones(3))
    f(jnp.zeros(3))
    assert len(traces) == 1, "same shape and dtype must hit the cache"
    f(jnp.ones(4))
    assert len(traces) == 2, "a new shape retraces"
    f(jnp.ones(4, jnp.int32))
    assert len(traces) == 3, "a new dtype retraces"
    f(jnp.ones((), jnp.float32))
    f(1.0)
    assert len(traces) == 5, "a weakly typed scalar is a different signature from float32[]"
    f(2.0)
    assert len(traces) == 5, "Python scalars of the same type share one trace"
    assert traces[-1].weak_type is True
    assert traces[-1].dtype == np.float32 and traces[-1].shape == ()


def test_python_scalar_arguments_are_weakly_typed():
    ident = jit(lambda x: x)
    assert ident(1.0).weak_type is True and ident(1.0).dtype == np.float32
    assert ident(3).weak_type is True and ident(3).dtype == np.int32
    assert ident(True).weak_type is False and ident(True).dtype == np.bool_
    assert ident(np.float32(1.0)).weak_type is False
    # A weak scalar does not widen a float16 array.
    assert jit(lambda a, s: a * s)(jnp.ones(2, jnp.float16), 2.0).dtype == np.float16


def test_cache_hit_does_no_tracing_and_no_mlir_work(monkeypatch):
    @jit
    def f(x, y):
        return jnp.tanh(x @ y).sum(axis=0) + 1.0

    @jit
    def g(tree, scale):
        return {"out": tree["a"] * scale + tree["b"]}

    x = jnp.ones((4, 4))
    tree = {"a": jnp.ones(3), "b": jnp.zeros(3)}
    f(x, x)
    g(tree, 2.0)
    compiles = runtime.compile_count

    def forbidden(*args, **kwargs):
        raise AssertionError("the hot path must not trace, emit MLIR or compile")

    monkeypatch.setattr(core, "trace_to_func", forbidden)
    monkeypatch.setattr(mlir, "emit", forbidden)
    monkeypatch.setattr(mlir, "context", forbidden)
    monkeypatch.setattr(jit_module, "compile_traced", forbidden)
    monkeypatch.setattr(runtime, "compile_module", forbidden)
    for _ in range(3):
        out = f(x, x)
        g(tree, 3.0)
    np.testing.assert_allclose(_np(out), np.tanh(np.full((4, 4), 4.0)).sum(0) + 1.0, rtol=1e-6)
    np.testing.assert_array_equal(_np(g(tree, 3.0)["out"]), [3.0, 3.0, 3.0])
    assert runtime.compile_count == compiles


@pytest.mark.parametrize("explained", [False, True], ids=["plain", "explain_cache_misses"])
def test_a_miss_flattens_and_traces_once(monkeypatch, explained):
    """A miss flattens the call, computes its avals and donated leaves and traces it once."""
    x, counts = jnp.ones(3), collections.Counter()  # jnp.ones is jitted: made before counting

    def counting(name, fun):
        def counted(*args, **kwargs):
            counts[name] += 1
            return fun(*args, **kwargs)

        return counted

    real_flatten = tree_util.tree_flatten

    def flatten(tree, *args, **kwargs):
        if type(tree) is tuple and len(tree) == 2 and type(tree[1]) is dict:  # (args, kwargs)
            counts["flatten"] += 1
        return real_flatten(tree, *args, **kwargs)

    monkeypatch.setattr(tree_util, "tree_flatten", flatten)
    monkeypatch.setattr(jit_module, "leaf_aval", counting("aval", jit_module.leaf_aval))
    donated = counting("donated", jit_module.donated_leaf_indices)
    monkeypatch.setattr(jit_module, "donated_leaf_indices", donated)
    monkeypatch.setattr(core, "trace_to_func", counting("trace", core.trace_to_func))
    f = jit(lambda x, y: stablax.lax.mul(x, y), donate_argnums=0)  # no jitted calls inside
    with stablax.explain_cache_misses(explained):
        out = f(x, 2.0)  # the Array's aval is its own; the float's is computed
    np.testing.assert_array_equal(_np(out), [2.0, 2.0, 2.0])
    assert counts == {"flatten": 1, "aval": 1, "donated": 1, "trace": 1}


def test_flag_changes_invalidate_the_array_hit_table():
    calls = []

    @jit
    def f(x, y):
        calls.append(type(x))
        return x * y

    x = jnp.ones(3)
    for _ in range(2):
        f(x, x)
    assert len(calls) == 1
    with stablax.disable_jit():  # a warm hit must not bypass disable_jit
        f(x, x)
    assert calls[-1] is type(x)  # the concrete array type: not traced
    f(x, x)
    assert len(calls) == 3, "the flag change retraces once"
    f(x, x)
    assert len(calls) == 3
    f.clear_cache()
    f(x, x)
    assert len(calls) == 4


@pytest.mark.parametrize("arity", [0, 1, 2, 3, 5])
def test_hit_path_for_every_arity_matches_numpy(arity):
    f = jit(lambda *xs: sum(xs, jnp.float32(0.5)))
    xs = [jnp.arange(4.0) * (i + 1) for i in range(arity)]
    for _ in range(3):
        out = f(*xs)
    np.testing.assert_allclose(
        _np(out), 0.5 + sum((np.arange(4.0) * (i + 1) for i in range(arity)), 0.0)
    )
    assert f._cache_size() == 1


def test_hit_path_keys_python_scalars_by_type_not_value():
    traces = []

    @jit
    def f(x, s):
        traces.append(s.aval)
        return x * s

    x = jnp.arange(3.0)
    for scale in (2.0, 3.0, -1.5):
        np.testing.assert_array_equal(_np(f(x, scale)), np.arange(3.0) * scale)
    assert len(traces) == 1
    assert f(x, 2).dtype == np.float32 and len(traces) == 2  # int: a new weak int32 trace
    np.testing.assert_array_equal(_np(f(x, True)), np.arange(3.0))
    assert len(traces) == 3
    np.testing.assert_array_equal(_np(f(x, 7)), np.arange(3.0) * 7)
    assert len(traces) == 3
    with pytest.raises(OverflowError):
        f(x, 2**70)


def test_hit_path_keys_static_arguments_by_value_and_skips_none():
    traces = []

    def f(x, axis, scale, keepdims=False):
        traces.append(axis)
        out = x.sum(axis=axis, keepdims=keepdims)
        return out if scale is None else out * scale

    g = jit(f, static_argnums=(1, 3))
    x = jnp.arange(6.0).reshape(2, 3)
    expected = {0: [3.0, 5.0, 7.0], 1: [3.0, 12.0]}
    for _ in range(2):
        for axis in (0, 1):
            np.testing.assert_array_equal(_np(g(x, axis, None)), expected[axis])
            np.testing.assert_array_equal(_np(g(x, axis, 2.0)), np.multiply(expected[axis], 2))
    assert sorted(traces) == [0, 0, 1, 1]  # per axis: scale None, scale a float
    assert g(x, 1, None, True).shape == (2, 1)
    with pytest.raises(ValueError, match="hashable"):
        g(x, [0], None)
    # jnp reductions pass their static arguments positionally: they hit too.
    np.testing.assert_array_equal(_np(jnp.sum(x, 0)), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(_np(jnp.sum(x, 1)), [3.0, 12.0])


def test_hit_path_takes_keywords_that_follow_the_positional_arguments():
    traces = []

    def f(x, train, scale=2.0, offset=1):
        traces.append((train, type(offset) is int))
        return x * scale + offset if train else x

    g = jit(f, static_argnames="train")
    x = jnp.arange(3.0)
    for _ in range(2):
        np.testing.assert_array_equal(_np(g(x, train=True, scale=3.0)), np.arange(3.0) * 3 + 1)
        np.testing.assert_array_equal(_np(g(x, train=False)), np.arange(3.0))
    # Filed in the hit tables; the skipped `offset` stays a Python int in the trace.
    assert g._jitted._mixed_hits and traces == [(True, True), (False, True)]
    # A gap (`scale` skipped) or a name out of order keeps the general path, and Python's binding.
    np.testing.assert_array_equal(_np(g(x, offset=5, train=True)), np.arange(3.0) * 2 + 5)
    assert traces[-1] == (True, False)  # offset given: traced
    with pytest.raises(TypeError, match="multiple values"):
        g(x, True, train=True)


def test_keywords_keep_the_general_path_for_wrappers_and_donations():
    def inner(x, n):
        return x * n

    @functools.wraps(inner)
    def wrapper(*args, **kwargs):
        return inner(*args, **kwargs)

    x = jnp.arange(3.0)
    for fun, options in ((wrapper, {}), (inner, {"donate_argnums": 1})):
        g = jit(fun, static_argnames="n", **options)
        for _ in range(2):
            np.testing.assert_array_equal(_np(g(x, n=2)), np.arange(3.0) * 2)
        assert not g._jitted._mixed_hits


def test_cached_scalars_keep_signed_zeros_apart():
    x = jnp.ones(2)
    for _ in range(2):
        np.testing.assert_array_equal(_np(1.0 / (x * 0.0)), [np.inf, np.inf])
        np.testing.assert_array_equal(_np(1.0 / (x * -0.0)), [-np.inf, -np.inf])
        np.testing.assert_array_equal(_np(jnp.copysign(x, -0.0)), [-1.0, -1.0])
        np.testing.assert_array_equal(_np(jnp.copysign(x, 0.0)), [1.0, 1.0])
    for _ in range(2):
        for z in (0j, complex(0.0, -0.0), complex(-0.0, 0.0)):
            out = _np(jnp.asarray(z))
            assert (np.signbit(out.real), np.signbit(out.imag)) == (
                np.signbit(z.real),
                np.signbit(z.imag),
            )


def test_hit_path_rejects_leaked_tracers_and_deleted_arrays():
    f = jit(lambda a, b: a + b)
    x = jnp.ones(2)
    f(x, x)
    leaked = []
    jit(lambda a: leaked.append(a) or a)(x)
    with pytest.raises(stablax.errors.UnexpectedTracerError):
        f(leaked[0], x)
    y = jnp.ones(2)
    y.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(x, y)


def test_same_program_traced_twice_compiles_once():
    x = jnp.arange(5.0)
    jit(lambda a: a * 7.0 - 1.0)(x)
    before = runtime.compile_count
    jit(lambda a: a * 7.0 - 1.0)(x)  # a new function object, the same module
    assert runtime.compile_count == before


# --- staging: lower, compile, make_jaxpr -------------------------------------------------------


def test_lower_as_text_is_stablehlo():
    lowered = jit(lambda a, b: jnp.sin(a) * b).lower(jnp.ones((2, 3)), 2.0)
    text = lowered.as_text()
    assert "stablehlo" in text
    assert "func.func public @main" in text or "func.func @main" in text
    assert "stablehlo.sine" in text
    assert "tensor<2x3xf32>" in text


def test_lower_compile_and_cost_analysis():
    f = jit(lambda a, b: a @ b)
    a = jnp.ones((8, 16))
    b = jnp.ones((16, 4))
    compiled = f.lower(a, b).compile()
    np.testing.assert_array_equal(_np(compiled(a, b)), np.full((8, 4), 16.0))
    cost = compiled.cost_analysis()
    if isinstance(cost, list):
        cost = cost[0]
    assert cost["flops"] >= 8 * 16 * 4
    with pytest.raises(TypeError):
        compiled(jnp.ones((2, 2)), b)


def test_make_jaxpr_prints_stablehlo_module():
    printed = str(stablax.make_jaxpr(lambda x: jnp.tanh(x) + 1)(jnp.ones(3)))
    assert printed.lstrip().startswith("module")
    assert "stablehlo.tanh" in printed
    assert "func.func" in printed


def test_closed_over_array_becomes_argument_not_constant():
    big = jnp.arange(1000.0)
    f = jit(lambda x: x + big)
    text = f.lower(jnp.ones(1000)).as_text()
    header = re.search(r"func\.func\s+(public\s+)?@main\((.*?)\)\s*->", text)
    assert header is not None
    assert header.group(2).count("tensor<1000xf32>") == 2, header.group(2)
    assert "999" not in text and not re.search(r"dense<\[", text)
    np.testing.assert_array_equal(_np(f(jnp.ones(1000))), np.arange(1000.0) + 1)


def test_closed_over_array_sees_its_value():
    offset = jnp.asarray([10.0, 20.0])
    f = jit(lambda x: x + offset)
    np.testing.assert_array_equal(_np(f(jnp.ones(2))), [11.0, 21.0])


def _op_locations(text):
    """(op name, file, line) for every StableHLO op in a module printed with debug info."""
    found = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    if inner.operation.name.startswith("stablehlo."):
                        source = mlir.source_of(inner.location)
                        found.append((inner.operation.name, *(source[:2] if source else (None, 0))))
                    walk(inner)

    with mlir.context():
        walk(mlir.ir.Module.parse(text).operation)
    return found


def test_ops_carry_the_users_source_line():
    def user_function(x):
        y = jnp.sin(x)  # the line every op of this statement must name
        return y * 2.0

    first = user_function.__code__.co_firstlineno
    text = jit(user_function).lower(jnp.ones(3)).as_text(debug_info=True)
    located = _op_locations(text)
    assert {op for op, _, _ in located} >= {"stablehlo.sine", "stablehlo.multiply"}
    for op, path, line in located:
        assert path is not None and path.endswith("test_jit.py"), (op, path, text)
        assert line in (first + 1, first + 2), (op, line)
    assert ("stablehlo.sine", __file__, first + 1) in [(o, p, ln) for o, p, ln in located]
    assert "loc(" not in jit(user_function).lower(jnp.ones(3)).as_text()
    # As JAX's source info: the call's column and the function's qualified name.
    module = jit(user_function).lower(jnp.ones(3)).compiler_ir()
    sine = next(op for op in module.body.operations[0].regions[0].blocks[0].operations)
    assert mlir.source_of(sine.location) == (
        __file__,
        first + 1,
        12,
        "test_ops_carry_the_users_source_line.<locals>.user_function",
    )


def test_derivative_ops_carry_the_line_of_the_op_they_differentiate():
    def user_function(x):
        y = jnp.sin(x)  # its cosine, in the derivative, names this line
        return jnp.sum(y * 3.0)  # the broadcast cotangent of the sum names this one

    first = user_function.__code__.co_firstlineno
    text = jit(stablax.grad(user_function)).lower(jnp.ones(3)).as_text(debug_info=True)
    located = _op_locations(text)
    assert ("stablehlo.cosine", __file__, first + 1) in located, located
    # Every op but the seed cotangent (a constant at the `grad` call) names a line of the function.
    lines = {line for op, path, line in located if op != "stablehlo.constant"}
    assert lines <= {first + 1, first + 2}, located
    # Ops of batched programs name the user's lines too.
    batched = jit(stablax.vmap(user_function)).lower(jnp.ones((2, 3))).as_text(debug_info=True)
    assert ("stablehlo.sine", __file__, first + 1) in _op_locations(batched)


# --- eval_shape, block_until_ready, device_put/get ---------------------------------------------


def test_eval_shape_with_arrays_and_structs():
    def f(a, b):
        return {"prod": a @ b, "total": a.sum(), "flag": a > 0}

    out = stablax.eval_shape(f, stablax.ShapeDtypeStruct((2, 3), jnp.float32), jnp.ones((3, 5)))
    assert out["prod"].shape == (2, 5) and out["prod"].dtype == np.float32
    assert out["total"].shape == () and out["total"].dtype == np.float32
    assert out["flag"].shape == (2, 3) and out["flag"].dtype == np.bool_
    assert isinstance(out["prod"], stablax.ShapeDtypeStruct)
    ints = stablax.eval_shape(lambda a: a + 1, stablax.ShapeDtypeStruct((4,), np.int32))
    assert ints.shape == (4,) and ints.dtype == np.int32
    assert stablax.eval_shape(jnp.sin, np.ones(3, np.float32)).shape == (3,)


def test_eval_shape_runs_nothing():
    calls = []

    def f(x):
        calls.append(1)
        return x * 2

    before = runtime.compile_count
    stablax.eval_shape(f, stablax.ShapeDtypeStruct((100, 100), jnp.float32))
    assert runtime.compile_count == before
    assert calls == [1]


def test_block_until_ready_over_pytrees():
    tree = {"a": jnp.ones(3) * 2, "b": [jnp.arange(2), 5, None], "c": (jnp.zeros(1),)}
    out = stablax.block_until_ready(tree)
    assert out is tree
    np.testing.assert_array_equal(_np(out["a"]), [2.0, 2.0, 2.0])


def test_device_put_and_device_get():
    device = stablax.devices()[0]
    x = stablax.device_put(np.arange(3, dtype=np.float32))
    assert isinstance(x, stablax.Array) and x.device == device
    y = stablax.device_put({"a": np.ones(2), "b": [1.0, x]}, device)
    assert isinstance(y["a"], stablax.Array) and y["a"].dtype == np.float32
    assert isinstance(y["b"][0], stablax.Array)
    assert y["b"][1] is x
    host = stablax.device_get({"a": x, "b": (y["a"], 3)})
    assert isinstance(host["a"], np.ndarray)
    np.testing.assert_array_equal(host["a"], [0.0, 1.0, 2.0])
    assert isinstance(host["b"][0], np.ndarray) and host["b"][1] == 3


# --- disable_jit, methods, nesting -------------------------------------------------------------


def test_disable_jit_runs_op_by_op(capsys):
    seen = []

    @jit
    def f(x):
        seen.append(type(x))
        print("value:", x)
        return x + 1

    with stablax.disable_jit():
        out = f(jnp.asarray([1.0, 2.0]))
    assert seen == [type(jnp.ones(1))]  # not traced
    assert "value: [1. 2.]" in capsys.readouterr().out
    np.testing.assert_array_equal(_np(out), [2.0, 3.0])
    f(jnp.asarray([1.0, 2.0]))
    assert seen[-1] is not type(jnp.ones(1))  # traced again once jit is back on
    assert not stablax.config.jax_disable_jit


def test_disable_jit_allows_python_control_flow_on_values():
    @jit
    def f(x):
        return x if x > 0 else -x

    with stablax.disable_jit():
        assert float(f(jnp.asarray(-3.0))) == 3.0


class _Scaler:
    def __init__(self, factor):
        self.factor = factor

    def __hash__(self):
        return hash(self.factor)

    def __eq__(self, other):
        return isinstance(other, _Scaler) and other.factor == self.factor

    @functools.partial(jit, static_argnums=0)
    def apply(self, x):
        return x * self.factor


def test_jitted_functions_as_methods():
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(_np(_Scaler(2.0).apply(x)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(_np(_Scaler(5.0).apply(x)), [0.0, 5.0, 10.0])
    np.testing.assert_array_equal(_np(_Scaler.apply(_Scaler(3.0), x)), [0.0, 3.0, 6.0])


def test_jit_inside_jit():
    traces = []

    @jit
    def inner(x):
        traces.append("inner")
        return jnp.sin(x) * 2

    @jit
    def outer(x):
        traces.append("outer")
        return inner(x) + inner(x + 1)

    x = jnp.arange(3.0)
    want = np.sin(np.arange(3.0)) * 2 + np.sin(np.arange(3.0) + 1) * 2
    np.testing.assert_allclose(_np(outer(x)), want, rtol=1e-6)
    np.testing.assert_allclose(_np(outer(x)), want, rtol=1e-6)
    assert traces.count("outer") == 1
    np.testing.assert_allclose(_np(inner(x)), np.sin(np.arange(3.0)) * 2, rtol=1e-6)


# --- errors ------------------------------------------------------------------------------------


def test_concretization_error_under_jit():
    @jit
    def f(x):
        if x > 0:  # the offending line
            return x
        return -x

    line = f.__wrapped__.__code__.co_firstlineno + 2
    with pytest.raises(TypeError) as info:
        f(1.0)
    err = info.value
    assert isinstance(err, core.ConcretizationTypeError)
    message = str(err)
    for hint in ("lax.cond", "jnp.where", "static_argnums"):
        assert hint in message
    assert f"test_jit.py:{line}" in message


@pytest.mark.parametrize(
    "body, error",
    [
        (lambda x: int(x), stablax.errors.ConcretizationTypeError),
        (lambda x: float(x), stablax.errors.ConcretizationTypeError),
        (lambda x: x.item(), stablax.errors.ConcretizationTypeError),
        (lambda x: bool(x), stablax.errors.TracerBoolConversionError),
        (lambda x: [0, 1][x], stablax.errors.TracerIntegerConversionError),  # __index__, as JAX
    ],
    ids=["int", "float", "item", "bool", "index"],
)
def test_concretization_error_for_host_conversions(body, error):
    with pytest.raises(error):
        jit(body)(jnp.asarray(1))


def test_invalid_argument_type():
    with pytest.raises(TypeError, match="not a valid"):
        jit(lambda x: x)("a string")
