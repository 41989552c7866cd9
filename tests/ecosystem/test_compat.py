"""The compatibility package behind `stablax.install_as_jax()`, and the alias itself.

The compat modules are ordinary stablax modules, so they are tested in this process; the alias
(process-wide) is tested in subprocesses.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax._compat import core as compat_core
from stablax._compat import pmap as compat_pmap
from stablax._compat import primitives as prims
from stablax._compat import sharding
from stablax._compat.experimental import checkify
from stablax._compat.interpreters import mlir

SRC = pathlib.Path(__file__).resolve().parents[2] / "src"


def _run(code: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, *args] if args else [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --- the alias -----------------------------------------------------------------------------------


def test_alias_maps_jax_modules_onto_stablax():
    proc = _run(
        """
        import stablax
        stablax.install_as_jax()
        import jax, jax.numpy as jnp, jax.lax, jax.random, jax.tree_util, jax.numpy.linalg
        import jax.experimental.ode, jax.sharding, jax.extend.core, jax._src.tree_util
        from jax.experimental import checkify
        assert jax.numpy.sum is stablax.numpy.sum and jax.random.split is stablax.random.split
        assert jax.numpy.linalg is stablax.numpy.linalg and jax.tree_util is stablax.tree_util
        # JAX's out_sharding= keyword, where stablax's functions lack it (one device: a no-op)
        s = jax.typeof(jnp.ones(3)).sharding
        assert jax.random.normal(jax.random.key(0), (3,), out_sharding=s).shape == (3,)
        assert jnp.zeros(2, out_sharding=jax.P()).shape == (2,)
        try:
            jnp.ones(2, out_sharding="x")
        except TypeError as err:
            assert "out_sharding" in str(err)
        else:
            raise AssertionError("a non-sharding out_sharding must raise")
        assert jax.experimental.ode is stablax.experimental.ode
        assert jax.lax.add is stablax.lax.add and jax.lax.linalg is stablax.lax.linalg
        assert stablax.numpy.__spec__.name == "stablax.numpy"  # stablax's own spec is kept
        assert jax.__version_info__ == (0, 10, 2) and jax.__version__ == "0.10.2"
        assert jax.jit is stablax.jit and jax.Array is stablax.Array
        assert "_registry" in dir(jax._src.tree_util)
        try:
            import jax._src.not_a_module
        except ImportError:
            pass
        else:
            raise AssertionError("jax._src.* outside the compat package must not exist")
        seen = []
        jax.jit(lambda x: seen.append(isinstance(x, jax.Array)) or x)(jnp.ones(2))
        jax.grad(lambda x: seen.append(isinstance(x, jax.Array)) or x)(1.0)
        jax.vmap(lambda x: seen.append(isinstance(x, jax.core.Tracer)) or x)(jnp.ones(2))
        assert seen == [True, True, True], seen
        assert isinstance(jax.random.key(0), jax.Array)
        assert jax.typeof(jnp.ones(3)).sharding.mesh.are_all_axes_explicit is False
        assert str(jax.typeof(jax.random.key(0))) == "key<fry>[]"
        print("ok")
        """
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


def test_alias_refuses_when_real_jax_is_imported():
    proc = _run(
        """
        import sys, types
        sys.modules["jax"] = types.ModuleType("jax")  # stands for the real jax, imported first
        import stablax
        try:
            stablax.install_as_jax()
        except ImportError as err:
            assert "already imported" in str(err), err
            print("refused")
        """
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "refused"


def test_as_jax_runs_a_script_with_its_arguments(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import sys, jax, jax.numpy as jnp\n"
        "print(__name__, sys.argv[1:], float(jax.grad(lambda x: x ** 3)(jnp.float32(2.0))))\n"
    )
    proc = _run("", "-m", "stablax.as_jax", str(script), "a", "--b")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "__main__ ['a', '--b'] 12.0"


# --- jax.sharding for one device -----------------------------------------------------------------


def test_mesh_and_named_sharding_on_one_device():
    mesh = sharding.Mesh(np.array(stablax.devices()).reshape(1, 1), ("data", "model"))
    assert mesh.shape == {"data": 1, "model": 1} and mesh.size == 1
    spec = sharding.PartitionSpec("data", None)
    s = sharding.NamedSharding(mesh, spec)
    assert s.shard_shape((4, 6)) == (4, 6) and s.device_set == set(stablax.devices())
    assert s == sharding.NamedSharding(mesh, sharding.PartitionSpec("data"))  # trailing None
    assert repr(spec) == "P('data', None)"
    with pytest.raises(ValueError, match="axis 'x'"):
        sharding.NamedSharding(mesh, sharding.PartitionSpec("x"))
    x = jnp.arange(4.0)
    assert isinstance(x.sharding, sharding.Sharding)
    assert isinstance(x.sharding, sharding.SingleDeviceSharding)
    assert sharding.reshard(x, s) is x
    assert sharding.get_abstract_mesh().empty
    with sharding.set_mesh(mesh):
        assert sharding.get_abstract_mesh().shape == mesh.shape
        assert sharding.get_mesh() is mesh
    assert sharding.get_abstract_mesh().empty


def test_mesh_over_several_devices_says_so():
    devices = [stablax.devices()[0]] * 2
    with pytest.raises(NotImplementedError, match="parallelism"):
        sharding.Mesh(np.array(devices, dtype=object), ("i",))


# --- pmap, checkify, io_callback -----------------------------------------------------------------


def test_pmap_over_one_device_is_vmap():
    x = jnp.arange(6.0).reshape(1, 6)
    out = compat_pmap.pmap(lambda v: stablax.lax.psum(v, "i") * 2, axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(x) * 2)
    with pytest.raises(ValueError, match="requires 2 logical devices"):
        compat_pmap.pmap(lambda v: v)(jnp.ones((2, 3)))


def test_checkify_under_the_alias_is_stablax_s():
    import stablax.experimental.checkify as ours

    assert checkify.checkify is ours.checkify and checkify.JaxRuntimeError is ours.JaxRuntimeError
    checkify.check(jnp.array(True), "fine")
    with pytest.raises(checkify.JaxRuntimeError, match="bad value 3"):
        checkify.check(jnp.array(False), "bad value {}", jnp.array(3))
    err, _ = checkify.checkify(jnp.sin, errors=checkify.float_checks)(jnp.float32(np.inf))
    assert str(err) == "Error(nan generated by primitive: sin.)"  # flax's nnx.checkify example
    assert checkify.user_checks == frozenset({checkify.FailedCheckError})
    assert issubclass(checkify.FailedCheckError, checkify.JaxException)


# --- user primitives (equinox) -------------------------------------------------------------------


def test_primitive_batching_rule_applies_under_vmap():
    p = prims.Primitive("test_unvmap_any")
    p.def_impl(jnp.any)
    mlir.register_lowering(p, mlir.lower_fun(jnp.any, multiple_results=False))
    prims.primitive_batchers[p] = lambda args, dims: (jnp.any(args[0]), prims.not_mapped)
    x = jnp.array([[False, False], [False, True]])
    assert not bool(p.bind(x[0]))
    # The rule reduces over the batch too (unbatched output, broadcast), unlike the impl.
    np.testing.assert_array_equal(np.asarray(stablax.vmap(p.bind)(x)), [True, True])


def test_primitive_jvp_rule_is_used_by_grad_and_jvp():
    p = prims.Primitive("test_square")
    p.def_impl(lambda v: v * v)
    # Deliberately not the true derivative: the rule, not the impl, must decide.
    prims.primitive_jvps[p] = lambda primals, tangents: (primals[0] ** 2, 3.0 * tangents[0])
    assert float(stablax.grad(p.bind)(2.0)) == 3.0
    out, tangent = stablax.jvp(p.bind, (2.0,), (1.0,))
    assert (float(out), float(tangent)) == (4.0, 3.0)


def test_primitive_with_only_a_hand_written_lowering_raises():
    p = prims.Primitive("test_mlir_only")
    mlir.register_lowering(p, lambda ctx, x: [x])
    with pytest.raises(NotImplementedError, match="test_mlir_only"):
        p.bind(jnp.ones(2))


# --- core: trace state and avals -----------------------------------------------------------------


def test_opaque_trace_state_changes_inside_transformations():
    outer = compat_core.get_opaque_trace_state(convention="nnx")
    assert outer == compat_core.get_opaque_trace_state(convention="nnx")
    inner = []
    stablax.jit(lambda x: inner.append(compat_core.get_opaque_trace_state()) or x)(1.0)
    stablax.grad(lambda x: inner.append(compat_core.get_opaque_trace_state()) or x)(1.0)
    assert all(s != outer for s in inner) and inner[0] != inner[1]


def test_avals_and_typeof():
    x = jnp.ones((2, 3))
    aval = compat_core.get_aval(x)
    assert isinstance(aval, compat_core.ShapedArray) and aval.shape == (2, 3)
    assert compat_core.mapped_aval(2, 0, aval).shape == (3,)
    assert compat_core.unmapped_aval(4, 1, aval).shape == (2, 4, 3)
    key_aval = stablax.typeof(stablax.random.key(0))
    assert key_aval.shape == () and str(key_aval.dtype) == "key<fry>"
    assert isinstance(key_aval, compat_core.ShapedArray)
    assert stablax.typeof(x).shape == (2, 3)
