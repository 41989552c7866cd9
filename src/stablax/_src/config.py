"""Global flags with JAX's names (`jax_enable_x64`, ...), each readable from the environment."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any


def _parse_bool(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


# name -> (default, parser of the environment string, environment variables checked in order)
_FLAGS: dict[str, tuple[Any, Callable[[str], Any], tuple[str, ...]]] = {
    "jax_enable_x64": (False, _parse_bool, ("STABLAX_ENABLE_X64", "JAX_ENABLE_X64")),
    "jax_platforms": (None, str, ("STABLAX_PLATFORMS", "JAX_PLATFORMS")),
    "jax_num_cpu_devices": (1, int, ("STABLAX_NUM_CPU_DEVICES", "JAX_NUM_CPU_DEVICES")),
    "jax_default_matmul_precision": (
        None,
        str,
        ("STABLAX_DEFAULT_MATMUL_PRECISION", "JAX_DEFAULT_MATMUL_PRECISION"),
    ),
    "jax_disable_jit": (False, _parse_bool, ("STABLAX_DISABLE_JIT", "JAX_DISABLE_JIT")),
    "jax_debug_nans": (False, _parse_bool, ("STABLAX_DEBUG_NANS", "JAX_DEBUG_NANS")),
    "jax_threefry_partitionable": (
        True,
        _parse_bool,
        ("STABLAX_THREEFRY_PARTITIONABLE", "JAX_THREEFRY_PARTITIONABLE"),
    ),
    "jax_log_compiles": (False, _parse_bool, ("STABLAX_LOG_COMPILES", "JAX_LOG_COMPILES")),
    # "auto", "off", "tracebackhide", "remove_frames" or "quiet_remove_frames" (traceback_util)
    "jax_traceback_filtering": (
        "auto",
        str,
        ("STABLAX_TRACEBACK_FILTERING", "JAX_TRACEBACK_FILTERING"),
    ),
}


class Config:
    """`stablax.config`: `config.update(name, value)` and `config.<name>` as in JAX.

    `epoch` changes whenever a flag that affects tracing changes, so compiled-function
    caches can include it in their keys for the price of one integer.
    """

    def __init__(self) -> None:
        # Flags are plain instance attributes too, so reading one on a hot path is one lookup.
        self._values: dict[str, Any] = {}
        self.epoch = 0
        self._on_change: list[Callable[[], None]] = []
        for name, (default, parse, env_names) in _FLAGS.items():
            value = default
            for env in env_names:
                if env in os.environ:
                    value = parse(os.environ[env])
                    break
            self._values[name] = value
            self.__dict__[name] = value

    def update(self, name: str, value: Any) -> None:
        if name not in _FLAGS:
            raise AttributeError(f"config.update: unknown flag {name!r}; known: {sorted(_FLAGS)}")
        self._values[name] = value
        self.__dict__[name] = value
        self.epoch += 1
        for callback in self._on_change:
            callback()

    def on_change(self, callback: Callable[[], None]) -> None:
        """Calls `callback()` after every `update`: for caches that key on flags implicitly."""
        self._on_change.append(callback)

    def read(self, name: str) -> Any:
        return self._values[name]

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values", {})
        if name in values:
            return values[name]
        raise AttributeError(f"stablax.config has no flag {name!r}")

    @property
    def x64_enabled(self) -> bool:
        return self._values["jax_enable_x64"]

    def flags(self) -> dict[str, Any]:
        return dict(self._values)


config = Config()
