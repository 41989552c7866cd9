"""Top-level helpers: devices and backends, device_put/get, make_jaxpr, eval_shape, disable_jit."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax

PUBLIC = [
    "Array",
    "ShapeDtypeStruct",
    "block_until_ready",
    "config",
    "default_backend",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "disable_jit",
    "eval_shape",
    "jit",
    "local_device_count",
    "local_devices",
    "make_jaxpr",
    "process_count",
    "process_index",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
    "numpy",
    "lax",
    "tree_util",
    "dtypes",
]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_names(name):
    assert hasattr(stablax, name)


def test_devices_and_backend():
    devices = stablax.devices()
    assert devices and len(devices) == stablax.device_count()
    assert stablax.local_devices() == devices[: len(stablax.local_devices())]
    assert stablax.local_device_count() == len(stablax.local_devices())
    backend = stablax.default_backend()
    assert backend in ("cpu", "cuda", "rocm", "tpu")
    assert all(d.platform == backend for d in devices)
    assert stablax.devices("cpu")[0].platform == "cpu"
    assert stablax.process_index() == 0 and stablax.process_count() == 1
    assert jnp.ones(2).device == devices[0]
    with pytest.raises(RuntimeError):
        stablax.devices("no-such-platform")


def test_device_put_values_and_dtypes():
    x = stablax.device_put(np.arange(4, dtype=np.int64))
    assert isinstance(x, stablax.Array)
    assert x.dtype == np.int32  # canonicalized with x64 off
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3])
    scalar = stablax.device_put(2.5)
    assert isinstance(scalar, stablax.Array) and float(scalar) == 2.5
    same = jnp.arange(3.0)
    assert stablax.device_put(same) is same
    assert stablax.device_put(same, stablax.devices()[0]) is same
    assert stablax.device_put(None) is None
    tree = stablax.device_put((np.zeros(2), [np.ones(1)]))
    assert isinstance(tree, tuple) and isinstance(tree[1], list)
    assert all(isinstance(leaf, stablax.Array) for leaf in stablax.tree_leaves(tree))


def test_device_get_returns_numpy_leaves():
    host = stablax.device_get([jnp.arange(3), {"k": jnp.ones(2) * 2}, "text", 5])
    assert isinstance(host[0], np.ndarray) and host[0].dtype == np.int32
    np.testing.assert_array_equal(host[1]["k"], [2.0, 2.0])
    assert host[2] == "text" and host[3] == 5
    single = stablax.device_get(jnp.asarray(1.5))
    assert isinstance(single, np.ndarray | np.generic) and float(single) == 1.5


def test_block_until_ready_accepts_any_pytree():
    x = jnp.ones(3) * 2
    assert stablax.block_until_ready(x) is x
    tree = [x, (x + 1, None), {"s": "not an array"}]
    assert stablax.block_until_ready(tree) is tree


def test_make_jaxpr_module_and_avals():
    def f(x, y):
        return jnp.tanh(x @ y).sum(axis=0), x.T

    hlo = stablax.make_jaxpr(f)(jnp.ones((4, 3)), jnp.ones((3, 5)))
    text = str(hlo)
    assert text == hlo.text() == repr(hlo)
    assert text.lstrip().startswith("module")
    assert "stablehlo.dot_general" in text and "stablehlo.tanh" in text
    assert "stablehlo.reduce" in text and "stablehlo.transpose" in text
    assert [a.shape for a in hlo.in_avals] == [(4, 3), (3, 5)]
    assert [a.shape for a in hlo.out_avals] == [(5,), (3, 4)]
    assert "loc(" in hlo.text(debug_info=True)


def test_make_jaxpr_with_static_argnums_and_does_not_run():
    calls = []

    def f(x, n):
        calls.append(n)
        return x * n

    text = str(stablax.make_jaxpr(f, static_argnums=1)(jnp.ones(2), 3))
    assert calls == [3]
    assert "stablehlo.multiply" in text
    assert "tensor<2xf32>" in text


def test_make_jaxpr_of_jitted_function():
    f = stablax.jit(lambda x: jnp.sin(x) + 1)
    text = str(stablax.make_jaxpr(f)(jnp.ones(3)))
    assert "stablehlo.sine" in text


def test_eval_shape_pytrees_and_weak_types():
    out = stablax.eval_shape(
        lambda t: {"y": t[0] * t[1], "z": [t[0].sum()]}, (jnp.ones((2, 3), jnp.int32), 2.0)
    )
    assert out["y"].shape == (2, 3) and out["y"].dtype == np.float32
    assert out["z"][0].shape == () and out["z"][0].dtype == np.int32
    weak = stablax.eval_shape(lambda s: s * 2, 1.0)
    assert weak.dtype == np.float32 and weak.weak_type is True
    assert weak == stablax.ShapeDtypeStruct((), np.float32, weak_type=True)


def test_eval_shape_of_traced_values():
    # Tracers of any enclosing transformation stand for their avals; the reprs are JAX 0.10.2's.
    seen = []

    def record(fun, *args, **kwargs):
        seen.append(repr(stablax.eval_shape(fun, *args, **kwargs)))

    stablax.jit(lambda x: record(lambda a: a * 2, x) or x)(1.0)
    stablax.vmap(lambda x: record(lambda a: jnp.outer(a, a), x) or x)(jnp.ones((5, 3)))
    stablax.grad(lambda x: record(lambda a, *, b: (a + b, a.sum()), x, b=2.0) or x.sum())(
        jnp.ones(2)
    )
    lax.scan(
        lambda c, x: record(lambda a, b: a * b, c, x) or (c, None),
        jnp.zeros(2, jnp.int32),
        jnp.ones((3, 2)),
    )
    lax.cond(True, lambda x: record(jnp.sin, x) or x, lambda x: x, jnp.ones(2, jnp.float16))
    assert seen == [
        "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)",
        "ShapeDtypeStruct(shape=(3, 3), dtype=float32)",
        "(ShapeDtypeStruct(shape=(2,), dtype=float32), ShapeDtypeStruct(shape=(), dtype=float32))",
        "ShapeDtypeStruct(shape=(2,), dtype=float32)",
        "ShapeDtypeStruct(shape=(2,), dtype=float16)",
    ]
    # The reproducer, and a function closing over another traced value.
    out = stablax.jit(lambda x: jnp.zeros(stablax.eval_shape(lambda a: a * 2, x).shape) + x)(
        jnp.ones(3)
    )
    np.testing.assert_array_equal(np.asarray(out), [1.0, 1.0, 1.0])
    closed = stablax.jit(lambda x, y: jnp.ones(stablax.eval_shape(lambda a: a * y, x).shape))
    assert closed(jnp.ones(4), 2.0).shape == (4,)


def test_shape_dtype_struct():
    s = stablax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert s.shape == (2, 3) and s.dtype == np.float32 and s.ndim == 2 and s.size == 6
    assert s == stablax.ShapeDtypeStruct([2, 3], np.dtype("float32"))
    assert s != stablax.ShapeDtypeStruct((2, 3), jnp.int32)
    assert hash(s) == hash(stablax.ShapeDtypeStruct((2, 3), np.float32))
    assert repr(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
    out = stablax.jit(lambda x: x + 1).eval_shape(s)
    assert out == s


def test_disable_jit_restores_flag_even_on_error():
    assert not stablax.config.jax_disable_jit
    with pytest.raises(ZeroDivisionError):
        with stablax.disable_jit():
            assert stablax.config.jax_disable_jit
            1 / 0  # noqa: B018
    assert not stablax.config.jax_disable_jit
    with stablax.disable_jit(False):
        assert not stablax.config.jax_disable_jit


def test_disable_jit_nested_jit_sees_concrete_values():
    seen = []

    @stablax.jit
    def inner(x):
        seen.append(float(x.sum()))  # only possible with concrete values
        return x * 2

    @stablax.jit
    def outer(x):
        return inner(x) + 1

    with stablax.disable_jit():
        out = outer(jnp.arange(3.0))
    assert seen == [3.0]
    np.testing.assert_array_equal(np.asarray(out), [1.0, 3.0, 5.0])


def test_tree_util_reexports_work_on_array_pytrees():
    tree = {"a": jnp.ones(2), "b": (jnp.zeros(1), 3)}
    leaves, treedef = stablax.tree_flatten(tree)
    assert len(leaves) == 3
    doubled = stablax.tree_map(lambda v: v * 2, tree)
    np.testing.assert_array_equal(np.asarray(doubled["a"]), [2.0, 2.0])
    assert doubled["b"][1] == 6
    assert stablax.tree_unflatten(treedef, leaves)["b"][1] == 3
    assert stablax.tree_structure(tree) == treedef


def test_stablax_works_in_a_process_that_imported_jax_first():
    # Importing jax patches jaxlib's C++ classes (shardings, arrays) that stablax also uses.
    pytest.importorskip("jax")
    code = (
        "import jax, jax.numpy\n"
        "import stablax, stablax.numpy as jnp\n"
        "x = jnp.arange(4.0)\n"
        "print(float(stablax.jit(lambda a: (a * a).sum())(x)), float(jax.numpy.ones(2).sum()))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["14.0", "2.0"]
