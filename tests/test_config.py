"""`stablax.config`: the flags JAX users set, from code and from the environment."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp

FLAGS = {
    "jax_enable_x64": False,
    "jax_platforms": None,
    "jax_default_matmul_precision": None,
    "jax_disable_jit": False,
    "jax_debug_nans": False,
    "jax_threefry_partitionable": True,
    "jax_log_compiles": False,
    "jax_num_cpu_devices": 1,
}

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _run_python(code: str, **env: str) -> str:
    """Runs `code` in a fresh interpreter with only the given stablax/JAX variables set."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("STABLAX_", "JAX_"))}
    clean.update(env)
    clean["PYTHONPATH"] = _SRC + os.pathsep + clean.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_every_flag_exists(name):
    assert hasattr(stablax.config, name)
    assert name in stablax.config.flags()


def test_flag_defaults_match_jax():
    # The test session may have been started with variables set; compare only untouched flags.
    for name, default in FLAGS.items():
        env_set = any(k in os.environ for k in (name.upper(), "STABLAX_" + name[4:].upper()))
        if not env_set and name != "jax_enable_x64":
            assert getattr(stablax.config, name) == default, name


def test_unknown_flag_raises():
    with pytest.raises(AttributeError, match="jax_no_such_flag"):
        stablax.config.update("jax_no_such_flag", True)
    with pytest.raises(AttributeError):
        stablax.config.jax_no_such_flag  # noqa: B018


def test_enable_x64_switches_default_dtypes():
    previous = stablax.config.jax_enable_x64
    try:
        stablax.config.update("jax_enable_x64", True)
        assert stablax.config.jax_enable_x64 is True
        assert jnp.arange(3.0).dtype == np.float64
        assert jnp.array(1).dtype == np.int64
        assert jnp.zeros(2).dtype == np.float64
        assert jnp.asarray(np.arange(3)).dtype == np.int64
        assert (jnp.ones(2, jnp.float32) * 2.0).dtype == np.float32
        out = stablax.jit(lambda x: x + 1)(np.arange(3.0))
        assert out.dtype == np.float64
        np.testing.assert_array_equal(np.asarray(jnp.arange(3.0) / 3), np.arange(3.0) / 3)
        stablax.config.update("jax_enable_x64", False)
        assert jnp.arange(3.0).dtype == np.float32
        assert jnp.array(1).dtype == np.int32
        # A jitted function traced under x64 is retraced when the flag flips back.
        assert stablax.jit(lambda x: x + 1)(np.arange(3.0)).dtype == np.float32
    finally:
        stablax.config.update("jax_enable_x64", previous)


def test_jit_cache_respects_x64_flip():
    f = stablax.jit(lambda x: x * 2)
    previous = stablax.config.jax_enable_x64
    try:
        stablax.config.update("jax_enable_x64", False)
        assert f(1.0).dtype == np.float32
        stablax.config.update("jax_enable_x64", True)
        assert f(1.0).dtype == np.float64
    finally:
        stablax.config.update("jax_enable_x64", previous)


def test_disable_jit_flag():
    seen = []

    @stablax.jit
    def f(x):
        seen.append(type(x))
        return x

    previous = stablax.config.jax_disable_jit
    try:
        stablax.config.update("jax_disable_jit", True)
        f(jnp.ones(1))
        assert seen == [type(jnp.ones(1))]  # not traced
    finally:
        stablax.config.update("jax_disable_jit", previous)


def test_log_compiles(caplog):
    previous = stablax.config.jax_log_compiles
    try:
        stablax.config.update("jax_log_compiles", True)
        with caplog.at_level("WARNING", logger="stablax"):
            stablax.jit(lambda x: x * 3.25 - 17.5)(jnp.ones(7))
        assert any("compil" in r.getMessage() for r in caplog.records)
    finally:
        stablax.config.update("jax_log_compiles", previous)


@pytest.mark.parametrize("variable", ["STABLAX_ENABLE_X64", "JAX_ENABLE_X64"])
def test_x64_from_environment(variable):
    code = (
        "import stablax, stablax.numpy as jnp;"
        "print(stablax.config.jax_enable_x64, jnp.arange(3.0).dtype, jnp.array(1).dtype)"
    )
    assert _run_python(code, **{variable: "1"}) == "True float64 int64"
    assert _run_python(code, **{variable: "false"}) == "False float32 int32"


def test_num_cpu_devices_from_environment():
    code = (
        "import stablax;"
        "print(stablax.device_count(), len(stablax.devices()), stablax.default_backend(),"
        " stablax.config.jax_num_cpu_devices)"
    )
    out = _run_python(code, STABLAX_NUM_CPU_DEVICES="4", STABLAX_PLATFORMS="cpu")
    assert out == "4 4 cpu 4"


def test_platforms_from_environment():
    code = "import stablax; print(stablax.default_backend(), stablax.config.jax_platforms)"
    assert _run_python(code, JAX_PLATFORMS="cpu") == "cpu cpu"


def test_creation_functions_place_results_on_the_requested_device():
    code = (
        "import stablax, stablax.numpy as jnp\n"
        "d = stablax.devices()[1]\n"
        "xs = [jnp.zeros(2, device=d), jnp.ones(2, device=d), jnp.full(2, 3.0, device=d),\n"
        "      jnp.empty(2, device=d), jnp.arange(3, device=d), jnp.linspace(0, 1, 3, device=d),\n"
        "      jnp.eye(2, device=d), jnp.zeros_like(jnp.ones(2), device=d),\n"
        "      jnp.ones_like(jnp.ones(2), device=d), jnp.full_like(jnp.ones(2), 2, device=d),\n"
        "      jnp.empty_like(jnp.ones(2), device=d)]\n"
        "print(all(x.devices() == {d} for x in xs), jnp.zeros(2).devices() != {d})"
    )
    assert _run_python(code, STABLAX_NUM_CPU_DEVICES="2", STABLAX_PLATFORMS="cpu") == "True True"
