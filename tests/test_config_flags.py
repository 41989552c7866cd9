"""Every JAX 0.10.2 configuration flag is accepted, and the ones stablax honours take effect."""

from __future__ import annotations

import json
import logging
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax._src import config_flags
from stablax._src.config import config

JAX_FLAGS = json.loads((pathlib.Path(__file__).parent / "data" / "jax_flags.json").read_text())


@pytest.fixture
def restore_flags():
    saved = config.values
    yield
    for name, value in saved.items():
        if config.read(name) != value:
            config.update(name, value)


def test_every_jax_flag_is_known_with_a_meaning_or_a_reason():
    assert set(JAX_FLAGS) <= set(config.values)
    assert all(n.startswith("stablax_") for n in set(config.values) - set(JAX_FLAGS))
    for name in JAX_FLAGS:
        reason = config.meaning(name)
        assert reason is None or len(reason) > 15, name
        assert getattr(stablax.config, name) == config.read(name)


def _other_value(name):
    default, kind = config_flags.FLAGS[name]
    if kind is bool:
        return not default
    if kind in (int, float):
        return kind(default) + 1
    if isinstance(kind, tuple):
        return next(v for v in kind if v != default and v is not None)
    return "x" if default in (None, "") else default


@pytest.mark.parametrize("name", sorted(n for n in JAX_FLAGS if config.meaning(n) is not None))
def test_documented_no_op_flags_accept_a_new_value(name, restore_flags):
    if name in config_flags.UNSUPPORTED_VALUES:
        with pytest.raises(NotImplementedError):
            config.update(name, _other_value(name))
        return
    value = _other_value(name)
    config.update(name, value)
    assert getattr(stablax.config, name) == value


def test_bad_names_and_values_raise(restore_flags):
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        config.update("jax_no_such_flag", True)
    with pytest.raises(ValueError, match="must be one of"):
        config.update("jax_numpy_rank_promotion", "sometimes")
    with pytest.raises(ValueError, match="bool"):
        config.update("jax_enable_x64", "yes")
    with pytest.raises(NotImplementedError, match="threefry2x32"):
        config.update("jax_default_prng_impl", "rbg")


# --- the context managers ------------------------------------------------------------------------

STATES = [n for n in dir(stablax) if isinstance(getattr(stablax, n), stablax._src.config.State)]


def test_every_state_context_manager_restores_its_flag():
    assert len(STATES) >= 25
    for name in STATES:
        state = getattr(stablax, name)
        before = state.value
        value = _other_value(state.name)
        if state.name in config_flags.UNSUPPORTED_VALUES:
            continue
        with state(value):
            assert state.value == value and config.read(state.name) == value
        assert state.value == before
    with pytest.raises(TypeError, match="value"):
        bool(stablax.enable_x64)


def test_debug_nans_context_checks_the_block_only():
    f = stablax.jit(lambda x: jnp.log(x))
    with stablax.debug_nans(True), pytest.raises(FloatingPointError, match="nan"):
        f(jnp.array(-1.0))
    assert np.isnan(f(jnp.array(-1.0)))


def test_enable_x64_and_checking_leaks():
    with stablax.enable_x64():
        assert jnp.ones(2).dtype == np.float64
    assert jnp.ones(2).dtype == np.float32
    with stablax.checking_leaks():
        assert config.jax_check_tracer_leaks
    assert not config.jax_check_tracer_leaks


def test_make_user_context_retraces():
    ctx = stablax.make_user_context(None)
    traces = []

    @stablax.jit
    def f(x):
        traces.append(ctx.value)
        return x * 2

    with ctx(1):
        f(1.0)
        f(1.0)
    with ctx(2):
        f(1.0)
    assert traces == [1, 2]


# --- flags with effects --------------------------------------------------------------------------


def test_strict_dtype_promotion():
    x = jnp.ones(3, jnp.float32)
    with stablax.numpy_dtype_promotion("strict"):
        assert (x + 1).dtype == np.float32 and (x * 2.0).dtype == np.float32
        for a, b in [(np.int32, np.float32), (np.float16, np.float32), (np.int8, np.int32)]:
            with pytest.raises(stablax.dtypes.TypePromotionError, match="strict"):
                jnp.result_type(a, b)
        with pytest.raises(stablax.dtypes.TypePromotionError):
            x + jnp.ones(3, jnp.int32)
        with pytest.raises(stablax.dtypes.TypePromotionError):
            jnp.result_type(np.int32, 1.0)
        assert jnp.result_type(1, 1.0) == np.float32
    assert (x + jnp.ones(3, jnp.int32)).dtype == np.float32


def test_rank_promotion():
    x, y = jnp.ones((2, 3)), jnp.ones(3)
    with stablax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
            x + y
        assert (x + 1.0).shape == (2, 3) and (x * x).shape == (2, 3)
    with stablax.numpy_rank_promotion("warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x * y
    assert any("rank promotion" in str(w.message) for w in caught)


_DEFAULT_DEVICE_PROGRAM = """
import stablax, stablax.numpy as jnp
first, second = stablax.devices()
with stablax.default_device(second):
    x = jnp.ones(2)
    y = x + 1
    z = stablax.jit(lambda a: a * 2)(x)
    print(x.device == second, y.device == second, z.device == second, float(z[0]))
with stablax.default_device("cpu"):
    print(jnp.zeros(1).device == first)
print((jnp.ones(2) + 1).device == first)
"""


def test_default_device_places_new_arrays_and_programs():
    out = _run_python(_DEFAULT_DEVICE_PROGRAM, STABLAX_NUM_CPU_DEVICES="2", JAX_PLATFORMS="cpu")
    assert out.split() == ["True", "True", "True", "2.0", "True", "True"]


def test_env_variables_set_flags():
    code = (
        "import stablax; print(stablax.config.jax_numpy_rank_promotion, stablax.config.jax_remat3)"
    )
    assert _run_python(code, JAX_NUMPY_RANK_PROMOTION="raise", STABLAX_REMAT3="1") == "raise True"


def _run_python(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("STABLAX_", "JAX_"))}
    clean.update(env)
    clean["PYTHONPATH"] = _SRC + os.pathsep + clean.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


_SRC = str(pathlib.Path(stablax.__file__).resolve().parent.parent)


def test_transfer_guards():
    x = jnp.ones(3)
    with stablax.transfer_guard("disallow"):
        with pytest.raises(stablax.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            jnp.asarray(np.ones(3))
        with pytest.raises(stablax.errors.JaxRuntimeError):
            x + 1.0
        with pytest.raises(stablax.errors.JaxRuntimeError):
            stablax.jit(lambda a: a)(np.ones(2))
        stablax.device_put(np.ones(3))  # explicit transfers stay allowed
        np.asarray(x)  # CPU arrays are host memory: not a transfer (as in JAX)
        x + x
    with stablax.transfer_guard_host_to_device("disallow_explicit"):
        with pytest.raises(stablax.errors.JaxRuntimeError):
            stablax.device_put(np.ones(3))
    jnp.asarray(np.ones(3))


def test_transfer_guard_log(caplog):
    with caplog.at_level(logging.WARNING, "stablax"), stablax.transfer_guard("log"):
        jnp.asarray(np.ones(2))
    assert "host-to-device transfer" in caplog.text


def test_no_tracing_and_no_execution():
    f = stablax.jit(lambda x: x + 1)
    x = jnp.ones(2)
    f(x)
    with stablax.no_tracing():
        f(x)  # cached: no trace needed
        with pytest.raises(RuntimeError, match="no_tracing"):
            f(jnp.ones(3))
    with stablax.no_execution():
        with pytest.raises(RuntimeError, match="no_execution"):
            f(x)
        with pytest.raises(RuntimeError, match="no_execution"):
            x * 3
    np.testing.assert_array_equal(np.asarray(f(x)), [2.0, 2.0])


def test_explain_cache_misses(caplog):
    f = stablax.jit(lambda x: x * 2)
    with caplog.at_level(logging.WARNING, "stablax"), stablax.explain_cache_misses():
        f(1.0)
        f(jnp.ones(3))
    assert "first trace" in caplog.text
    assert "at x, now float32[3]{weak_type=False} and before float32[]{weak_type=True}" in (
        caplog.text
    )


def test_allow_f16_reductions():
    with stablax.allow_f16_reductions(False):
        with pytest.raises(TypeError, match="jax_allow_f16_reductions"):
            stablax.lax.reduce_sum(jnp.ones(2, jnp.float16), (0,))
    assert float(stablax.lax.reduce_sum(jnp.ones(2, jnp.float16), (0,))) == 2.0


def test_random_flags(restore_flags):
    config.update("jax_random_seed_offset", 5)
    np.testing.assert_array_equal(
        np.asarray(stablax.random.key_data(stablax.random.key(0))), [0, 5]
    )
    config.update("jax_random_seed_offset", 0)
    raw = stablax.random.PRNGKey(0)
    with stablax.legacy_prng_key("error"), pytest.raises(ValueError, match="Legacy uint32 key"):
        stablax.random.normal(raw)
    with stablax.legacy_prng_key("warn"), pytest.warns(UserWarning, match="Legacy uint32 key"):
        stablax.random.normal(raw)
    config.update("jax_high_dynamic_range_gumbel", True)
    key = stablax.random.key(0)
    np.testing.assert_array_equal(
        np.asarray(stablax.random.gumbel(key, (3,))),
        np.asarray(stablax.random.gumbel(key, (3,), mode="high")),
    )


def test_dump_ir_to(tmp_path, restore_flags):
    config.update("jax_dump_ir_to", str(tmp_path))
    stablax.jit(lambda x: jnp.sin(x) * 3)(jnp.arange(7.0))
    dumped = [p.read_text() for p in tmp_path.glob("*.mlir")]
    assert any("stablehlo.sine" in text for text in dumped)


def test_logging_level(restore_flags):
    config.update("jax_logging_level", "DEBUG")
    assert logging.getLogger("stablax").level == logging.DEBUG
    config.update("jax_logging_level", "WARNING")
    assert logging.getLogger("stablax").level == logging.WARNING
