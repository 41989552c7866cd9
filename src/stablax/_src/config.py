"""Global flags with JAX's names (`jax_enable_x64`, ...), each readable from the environment, and
the context managers that set one for a block (`stablax.enable_x64(True)`, ...).

Every flag JAX 0.10.2 has is accepted; `config_flags.MEANING` says which ones stablax honours
and why the others have no effect here. Unlike JAX's, a context manager changes the flag for
all threads while its block runs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from stablax._src.config_flags import FLAGS, MEANING, UNSUPPORTED_VALUES, env_names


def _parse_bool(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


def _parse_env(name: str, text: str) -> Any:
    kind = FLAGS[name][1]
    if kind is bool:
        return _parse_bool(text)
    if kind in (int, float):
        return kind(text)
    return text


def _validate(name: str, value: Any) -> Any:
    default, kind = FLAGS[name]
    if kind is bool:
        if not isinstance(value, (bool, int)) or value not in (0, 1):
            raise ValueError(f"config.update: {name} must be a bool, got {value!r}")
        value = bool(value)
    elif kind is int or kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"config.update: {name} must be a number, got {value!r}")
        value = kind(value)
    elif kind is str:
        if not isinstance(value, str):
            raise ValueError(f"config.update: {name} must be a string, got {value!r}")
    elif isinstance(kind, tuple):
        if isinstance(value, str) and value not in kind and value.lower() in kind:
            value = value.lower()
        if value not in kind:
            raise ValueError(
                f"config.update: {name} must be one of {[v for v in kind]}, got {value!r}"
            )
    unsupported = UNSUPPORTED_VALUES.get(name)
    if unsupported is not None:
        allowed, why = unsupported
        refused = value == allowed if isinstance(allowed, bool) else value != allowed
        if refused and value != default:
            raise NotImplementedError(f"config.update: {name}={value!r}: {why}")
    return value


# Flags that never change what a function traces to: setting one keeps jit's traced programs
# (so that, e.g., `no_tracing` can be set without forcing every function to trace again).
_TRACE_INDEPENDENT = frozenset(
    {
        "jax_no_tracing",
        "jax_no_execution",
        "jax_explain_cache_misses",
        "jax_log_compiles",
        "jax_logging_level",
        "jax_dump_ir_to",
        "jax_transfer_guard",
        "jax_transfer_guard_host_to_device",
        "jax_transfer_guard_device_to_host",
        "jax_transfer_guard_device_to_device",
        "jax_check_tracer_leaks",
    }
)


class Config:
    """`stablax.config`: `config.update(name, value)` and `config.<name>` as in JAX.

    `epoch` changes whenever a flag that can change traced programs changes, so
    compiled-function caches can include it in their keys for the price of one integer.
    """

    def __init__(self) -> None:
        # Flags are plain instance attributes too, so reading one on a hot path is one lookup.
        self._values: dict[str, Any] = {}
        self.epoch = 0
        self._on_change: list[Callable[[], None]] = []
        for name, (default, _) in FLAGS.items():
            value = default
            for env in env_names(name):
                if env in os.environ:
                    value = _validate(name, _parse_env(name, os.environ[env]))
                    break
            self._values[name] = value
            self.__dict__[name] = value

    def update(self, name: str, value: Any) -> None:
        """Sets flag `name` (any of JAX's flag names) to `value`.

        Raises:
          AttributeError: for a name JAX does not have.
          ValueError: for a value the flag does not take.
        """
        if name not in FLAGS:
            raise AttributeError(f"Unrecognized config option: {name}")
        value = _validate(name, value)
        self._values[name] = value
        self.__dict__[name] = value
        if name not in _TRACE_INDEPENDENT:
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

    @property
    def values(self) -> dict[str, Any]:
        """Every flag and its current value (JAX's `config.values`)."""
        return dict(self._values)

    def flags(self) -> dict[str, Any]:
        return dict(self._values)

    @staticmethod
    def meaning(name: str) -> str | None:
        """None if stablax honours flag `name`, else the reason it has no effect here."""
        return MEANING[name]


config = Config()

# --- context managers --------------------------------------------------------------------------

_NO_VALUE = object()


class State:
    """A flag as a context manager, as JAX's `jax.enable_x64` and friends: `with state(value):`
    sets the flag for the block (bool flags: `with state():` sets True); `.value` reads it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__doc__ = f"Context manager setting the flag `{name}` for a block."

    @property
    def value(self) -> Any:
        return config.read(self.name)

    def __call__(self, new_val: Any = _NO_VALUE) -> contextlib.AbstractContextManager:
        if new_val is _NO_VALUE:
            if FLAGS[self.name][1] is not bool:
                raise TypeError(f"{self.name} context manager requires a value")
            new_val = True
        return _setting({self.name: new_val})

    def __bool__(self) -> bool:
        raise TypeError(
            f"bool() not supported for instances of type 'State' (did you mean to use "
            f"'{self.name.removeprefix('jax_')}.value' instead?)"
        )

    def __repr__(self) -> str:
        return f"State({self.name}={self.value!r})"


@contextlib.contextmanager
def _setting(values: dict[str, Any]) -> Iterator[None]:
    saved = {name: config.read(name) for name in values}
    for name, value in values.items():
        config.update(name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            config.update(name, value)


def transfer_guard(new_val: str) -> contextlib.AbstractContextManager:
    """Sets the guard level of all transfers (host to device, device to host, between devices)
    for a block: "allow", "log", "disallow", "log_explicit" or "disallow_explicit"."""
    names = ("host_to_device", "device_to_device", "device_to_host")
    return _setting({f"jax_transfer_guard_{n}": new_val for n in names})


class UserContext:
    """A value that, like a flag, is part of every `jit` cache key (`make_user_context`)."""

    def __init__(self, default_value: Any = None) -> None:
        self._value = default_value

    @property
    def value(self) -> Any:
        return self._value

    @contextlib.contextmanager
    def __call__(self, new_val: Any) -> Iterator[None]:
        saved, self._value = self._value, new_val
        config.epoch += 1
        for callback in config._on_change:
            callback()
        try:
            yield
        finally:
            self._value = saved
            config.epoch += 1
            for callback in config._on_change:
                callback()


def make_user_context(default_value: Any = None) -> UserContext:
    """A context whose value changes invalidate `jit`'s caches: functions traced under one value
    are traced again under another.

    Example:
      ctx = stablax.make_user_context(None)
      with ctx(1): f(x)   # traced
      with ctx(2): f(x)   # traced again
    """
    return UserContext(default_value)
