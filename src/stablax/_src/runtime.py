"""PJRT clients, devices, transfers, compilation and execution: all of jaxlib's private API.

Everything else in stablax talks to XLA through the functions here (the profiler's bindings
through runtime_profiler.py), so a jaxlib release that moves a private name is fixed in these.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from jaxlib import _jax
from jaxlib import version as jaxlib_version
from jaxlib import xla_client as xc
from jaxlib.cpu import _lapack

from stablax._src import caches, compilation_store, runtime_effects, runtime_plugins
from stablax._src.config import config

# jaxlib records a Python traceback for every execute by default and keeps part of each (about
# 80 bytes a call, growing without bound); stablax's errors name the user's line themselves.
_jax.set_tracebacks_enabled(False)

logger = logging.getLogger("stablax")

Device = xc.Device
Buffer = xc.ArrayImpl  # one device-resident array as jaxlib hands it to us
XlaRuntimeError = xc.XlaRuntimeError

# Preference order when the user names no platform: the best accelerator present wins.
_PLATFORM_PREFERENCE = ("tpu", "cuda", "rocm", "cpu")
_PLATFORM_ALIASES = {"gpu": ("cuda", "rocm")}


# --- backends and devices ----------------------------------------------------------------------


class _Backends:
    """Lazily created PJRT clients, one per platform."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clients: dict[str, Any] | None = None
        self.errors: dict[str, str] = {}

    def get(self) -> dict[str, Any]:
        if self.clients is None:
            with self.lock:
                if self.clients is None:
                    self.clients = self._create()
        return self.clients

    def _create(self) -> dict[str, Any]:
        requested = config.jax_platforms or config.jax_platform_name or None
        wanted = _expand_platforms(requested) if requested else None
        clients: dict[str, Any] = {}
        for platform in _PLATFORM_PREFERENCE:
            if wanted is not None and platform not in wanted:
                continue
            try:
                client = _make_client(platform)
            except Exception as err:  # a plugin that fails to load must not break CPU use
                self.errors[platform] = f"{type(err).__name__}: {err}"
                client = None
            if client is not None:
                clients[platform] = client
        if wanted is not None:
            missing = [p for p in wanted if p not in clients]
            if missing:
                details = "; ".join(f"{p}: {self.errors.get(p, 'not installed')}" for p in missing)
                raise RuntimeError(
                    f"stablax: requested platforms {requested!r} but could not initialise "
                    f"{missing} ({details})"
                )
        if not clients:
            raise RuntimeError(f"stablax: no backend could be initialised: {self.errors}")
        return clients


_backends = _Backends()


def _expand_platforms(text: str) -> list[str]:
    names: list[str] = []
    for name in text.split(","):
        name = name.strip().lower()
        if name:
            names.extend(_PLATFORM_ALIASES.get(name, (name,)))
    return names


def _make_client(platform: str) -> Any | None:
    if platform == "cpu":
        return xc.make_cpu_client(
            asynchronous=config.jax_cpu_enable_async_dispatch,
            num_devices=max(config.jax_num_cpu_devices, 1),
        )
    if platform in ("cuda", "rocm"):
        return runtime_plugins.make_gpu_plugin_client(platform)
    if platform == "tpu":
        return runtime_plugins.make_tpu_client()
    return None


_cpu_lapack_registered = False


def ensure_cpu_lapack_targets() -> None:
    """Registers jaxlib's CPU LAPACK FFI kernels (`lapack_spotrf_ffi`, ...) once, on first use.

    The kernels find their LAPACK routines through SciPy, loaded by `initialize()`.
    """
    global _cpu_lapack_registered
    if _cpu_lapack_registered:
        return
    _lapack.initialize()
    for name, handler in _lapack.registrations().items():
        # api_version=1 selects XLA's typed FFI in this registration call.
        xc.register_custom_call_target(
            name, handler, platform="cpu", api_version=int(name.endswith("_ffi"))
        )
    _cpu_lapack_registered = True


def backends() -> dict[str, Any]:
    """Platform name -> PJRT client, for every backend that initialised."""
    return _backends.get()


def default_backend() -> str:
    """The platform used when none is named: the best one present ('tpu' > 'cuda' > ... > 'cpu')."""
    clients = backends()
    for platform in _PLATFORM_PREFERENCE:
        if platform in clients:
            return platform
    return next(iter(clients))


def client(platform: str | None = None) -> Any:
    clients = backends()
    platform = default_backend() if platform is None else platform.lower()
    for name in _PLATFORM_ALIASES.get(platform, (platform,)):
        if name in clients:
            return clients[name]
    raise RuntimeError(
        f"stablax: unknown or unavailable backend {platform!r}; have {list(clients)}"
    )


def devices(backend: str | None = None) -> list[Device]:
    """All devices of a backend (the default backend when None)."""
    return list(client(backend).devices())


def local_devices(backend: str | None = None) -> list[Device]:
    return list(client(backend).local_devices())


def default_device() -> Device:
    """Where new arrays and programs go: `jax_default_device` (a Device or a platform name) if
    set, else the first local device of the default backend."""
    chosen = config.jax_default_device
    if chosen is None:
        return local_devices()[0]
    if isinstance(chosen, str):
        return local_devices(chosen)[0]
    return chosen


def process_index(backend: str | None = None) -> int:
    return client(backend).process_index()


# --- shardings ---------------------------------------------------------------------------------


class SingleDeviceSharding(xc.SingleDeviceSharding):
    """The placement of an array on one device, in the form jaxlib's C++ expects.

    Importing `jax` installs read-only properties on the jaxlib base class (`device_set`,
    `_device_assignment`, ...), so everything here is a class-level attribute of this subclass,
    backed by one instance attribute whose name jax does not use.
    """

    is_fully_replicated = True
    is_fully_addressable = True

    def __init__(self, device: Device, *, memory_kind: str | None = None) -> None:
        default = device.default_memory().kind  # 'device' on CPU and GPU
        if memory_kind not in (None, default):
            raise NotImplementedError(
                f"SingleDeviceSharding: stablax places arrays in {device}'s default memory "
                f"({default!r}), not in {memory_kind!r}"
            )
        super().__init__(device)
        self._stablax_device = device
        self._stablax_memory_kind = default

    device = property(lambda self: self._stablax_device)
    memory_kind = property(lambda self: self._stablax_memory_kind)
    device_set = property(lambda self: {self._stablax_device})
    _device_assignment = property(lambda self: (self._stablax_device,))

    def _to_xla_hlo_sharding(self, num_dimensions: int) -> Any:
        return xc.HloSharding.replicate()

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self.device!r}, memory_kind={self.memory_kind})"

    # By value, as JAX's (jaxlib's own class compares by identity until `jax` patches it).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SingleDeviceSharding):
            return NotImplemented
        return self.device == other.device and self.memory_kind == other.memory_kind

    def __hash__(self) -> int:
        return hash((self._stablax_device, self._stablax_memory_kind))


_shardings: dict[Device, SingleDeviceSharding] = {}


def as_device(value: Any) -> Device:
    """The Device that `value` (a Device or a single-device sharding) places arrays on."""
    device = getattr(value, "device", value) if not isinstance(value, Device) else value
    if not isinstance(device, Device):
        raise ValueError(
            "device_put only accepts None, a Device or a single-device Sharding (or a pytree of "
            f"these values); received invalid value: {value!r}"
        )
    return device


def sharding_for(device: Device) -> SingleDeviceSharding:
    sharding = _shardings.get(device)
    if sharding is None:
        sharding = _shardings[device] = SingleDeviceSharding(device)
    return sharding


# Placement types that always mean the one device: the alias's PartitionSpec registers itself
# (it is resolved against the mesh in force, and every stablax mesh has one device).
one_device_specs: list[type] = []


def check_sharding(value: Any, where: str, arg: str = "out_sharding") -> None:
    """Raises unless `value` (an `out_sharding=` / `sharding=` argument) is None or a sharding
    that places the whole result on the default device, where stablax puts every result anyway.

    What is no sharding at all (a device, a string, a number) is JAX's TypeError; a sharding
    over other or several devices asks for a placement stablax does not do: NotImplementedError.
    Both name `where` and `arg`.
    """
    if value is None or isinstance(value, tuple(one_device_specs)):
        return
    devices = getattr(value, "device_set", None)
    if not isinstance(devices, (set, frozenset)):
        raise TypeError(
            f"{where}: `{arg}` must be None, a NamedSharding or a PartitionSpec, got {value!r} "
            f"of type {type(value).__name__}"
        )
    if devices == {default_device()}:
        return
    raise NotImplementedError(
        f"{where}: {arg}={value!r} is not supported by stablax, which places every result on its "
        f"one device ({default_device()}); pass None or a sharding on that device"
    )


# --- transfers ---------------------------------------------------------------------------------


def device_put(value: np.ndarray, aval: Any, device: Device) -> Buffer:
    """Copies a host array (already of the aval's dtype and shape) to `device`."""
    return xc.batched_device_put(
        aval, sharding_for(device), [value], [device], committed=True, enable_x64=True
    )


def to_host(buffer: Buffer) -> np.ndarray:
    """Blocks until `buffer` is ready and returns a read-only NumPy view of its host copy."""
    value, _ = buffer._single_device_array_to_np_array_did_copy()
    return value


def copy_to_host_async(buffer: Buffer) -> None:
    buffer._copy_single_device_array_to_host_async()


def block_until_ready(buffers: Sequence[Buffer]) -> None:
    for buffer in buffers:
        buffer.block_until_ready()


def buffer_device(buffer: Buffer) -> Device:
    return buffer._sharding._device


def is_deleted(buffer: Buffer) -> bool:
    return buffer.is_deleted()


def delete(buffer: Buffer) -> None:
    buffer.delete()


def copy_to_device(buffer: Buffer, aval: Any, device: Device) -> Buffer:
    if buffer_device(buffer) == device:
        return buffer
    return device_put(np.asarray(to_host(buffer)), aval, device)


def to_dlpack(buffer: Buffer, stream: int | None = None) -> Any:
    return _jax.buffer_to_dlpack_managed_tensor(buffer, stream=stream)


def from_dlpack(capsule: Any, device: Device, copy: bool | None = None) -> Buffer:
    return _jax.dlpack_managed_tensor_to_buffer(capsule, device, None, copy)


# --- compilation -------------------------------------------------------------------------------


class Executable:
    """A loaded XLA executable plus the result handlers that wrap its outputs without copies.

    A program that calls back into Python (`effects` "unordered" or "ordered") keeps its
    callables alive and leaves each execution's completion token with runtime_effects'
    `pending_effects`, so `effects_barrier` can wait for it; an ordered one starts after the
    previous ordered one ends.
    """

    __slots__ = ("loaded", "handlers", "out_avals", "device", "fingerprint", "callbacks", "effects")

    def __init__(
        self,
        loaded: Any,
        out_avals: Sequence[Any],
        device: Device,
        fingerprint: str,
        callbacks: Sequence[Any] = (),
        effects: str = "",
    ):
        self.loaded = loaded
        self.out_avals = tuple(out_avals)
        self.device = device
        self.fingerprint = fingerprint
        self.callbacks = tuple(callbacks)
        self.effects = effects
        sharding = sharding_for(device)
        # _skip_checks: the outputs are laid out exactly as the program says; jaxlib would
        # otherwise call back into Python for every output of every call.
        self.handlers = [
            xc.array_result_handler(aval, sharding, True, _skip_checks=True) for aval in out_avals
        ]

    def execute(self, buffers: list[Buffer]) -> list[Buffer]:
        """Dispatches the program asynchronously; the outputs are futures on the device."""
        if config.jax_no_execution:
            raise RuntimeError(
                f"stablax tried to execute a program on {self.device}, but the no_execution "
                "config option is set"
            )
        if not self.effects:
            return self.loaded.execute_sharded(buffers).consume_with_handlers(self.handlers)
        return runtime_effects.pending_effects.run(self, buffers)

    def hlo_text(self) -> str:
        return "\n".join(m.to_string() for m in self.loaded.hlo_modules())

    def cost_analysis(self) -> Any:
        return self.loaded.cost_analysis()


def hlo_computation(module_text: str) -> Any:
    """XLA's HLO for a StableHLO module (what `jit(f).lower(x).compiler_ir('hlo')` returns in
    JAX: an `XlaComputation`, with `as_hlo_text()`)."""
    return _jax.mlir.mlir_module_to_xla_computation(module_text, use_tuple_args=False)


_compile_cache = caches.LRUCache("stablax_compile_cache_size")
_JAXLIB_VERSION = jaxlib_version.__version__
_compile_lock = threading.Lock()
compile_count = 0  # how many times XLA actually compiled; tests read it to check caching


def fingerprint(module_key: bytes) -> str:
    return hashlib.blake2b(module_key, digest_size=20).hexdigest()


def compile_module(
    module_bytes: bytes,
    module_key: bytes,
    out_avals: Sequence[Any],
    device: Device,
    name: str = "main",
) -> Executable:
    """Compiles a StableHLO module for one device, reusing any earlier compile of the same module.

    `module_key` identifies the program (the module without debug locations): two traces that
    differ only in their source lines share one executable.
    """
    global compile_count
    key = (fingerprint(module_key), device)
    executable = _compile_cache.get(key)
    if executable is not None:
        return executable
    with _compile_lock:
        executable = _compile_cache.get(key)
        if executable is None:
            if config.jax_dump_ir_to:
                _dump_module(module_key, key[0], name)
            options = _compile_options(device)
            devices = xc.DeviceList((device,))
            stored = compilation_store.entry_key(
                key[0], device.platform, device.device_kind, _JAXLIB_VERSION, "replicas=1,parts=1"
            )
            start = time.perf_counter()
            loaded = _load_stored(stored, device, devices, options)
            if loaded is None:
                loaded = device.client.compile_and_load(module_bytes, devices, options)
                compile_count += 1
                seconds = time.perf_counter() - start
                _store(stored, device, loaded, seconds)
                if config.jax_log_compiles:
                    _log_compile("Finished XLA compilation of", name, device, seconds)
            elif config.jax_log_compiles:
                seconds = time.perf_counter() - start
                _log_compile("Loaded from the persistent compilation cache:", name, device, seconds)
            executable = Executable(loaded, out_avals, device, key[0])
            _compile_cache[key] = executable
    return executable


def _compile_options(device: Device) -> Any:
    options = xc.CompileOptions()
    build = options.executable_build_options
    build.num_replicas = 1
    build.num_partitions = 1
    build.device_assignment = xc.DeviceAssignment.create(np.array([[device.id]]))
    return options


def compile_with_callbacks(
    module: Any,
    module_key: bytes,
    out_avals: Sequence[Any],
    device: Device,
    callbacks: Sequence[Any],
    ordered: bool,
    name: str = "main",
) -> Executable:
    """Compiles a module that calls back into Python: its host-callback ops name `callbacks` by
    index. Never cached across programs (the callables belong to this one executable), and never
    stored on disk, as JAX does.

    `module` is an `ir.Module`: jaxlib's compile takes host callbacks only with one.
    """
    global compile_count
    if config.jax_dump_ir_to:
        _dump_module(module_key, fingerprint(module_key), name)
    start = time.perf_counter()
    loaded = device.client.compile_and_load(
        module, xc.DeviceList((device,)), _compile_options(device), host_callbacks=list(callbacks)
    )
    compile_count += 1
    if config.jax_log_compiles:
        _log_compile("Finished XLA compilation of", name, device, time.perf_counter() - start)
    effects = "ordered" if ordered else "unordered"
    return Executable(loaded, out_avals, device, fingerprint(module_key), callbacks, effects)


# What the compile about to happen is for: (program name, why it was traced), set by `jit`.
_compile_note: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "stablax_compile_note", default=None
)


@contextlib.contextmanager
def compile_note(name: str, reason: str):
    """Names the program and the reason for compiles inside the block (jax_log_compiles)."""
    token = _compile_note.set((name, reason))
    try:
        yield
    finally:
        _compile_note.reset(token)


def _log_compile(what: str, name: str, device: Device, seconds: float) -> None:
    # jax_log_compiles: every compile, after it, with its time and (from jit) its reason.
    note = _compile_note.get()
    if note is None:
        logger.warning("%s %s for %s in %.4f s", what, name, device, seconds)
    else:
        logger.warning("%s %s for %s in %.4f s because %s", what, note[0], device, seconds, note[1])


def _load_stored(stored: str, device: Device, devices: Any, options: Any) -> Any:
    """An executable from the persistent compilation cache, or None."""
    serialized = compilation_store.load(stored)
    if serialized is None:
        return None
    try:
        return device.client.deserialize_executable(serialized, devices, options)
    except Exception as err:  # an entry from an incompatible build: compile instead
        logger.warning("stablax: could not load a cached executable: %s", err)
        return None


def _store(stored: str, device: Device, loaded: Any, seconds: float) -> None:
    if not compilation_store.would_store(seconds):  # serializing alone costs ~5% of a compile
        return
    try:
        serialized = device.client.serialize_executable(loaded)
    except Exception:  # some executables (host callbacks) cannot be serialized
        return
    compilation_store.store(stored, serialized, seconds)


def _dump_module(text: bytes, fingerprint_: str, name: str) -> None:
    # jax_dump_ir_to: every compiled StableHLO module, as text, one file per program.
    directory = config.jax_dump_ir_to
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"{name}-{fingerprint_}.mlir"), "wb") as f:
        f.write(text)


def _apply_logging_level() -> None:
    level = config.jax_logging_level
    if level != "NOTSET":
        logger.setLevel(level)


config.on_change(_apply_logging_level)
_apply_logging_level()


# --- platform queries for the profiler ------------------------------------------------------------


def platform_version(platform: str) -> str:
    return client(platform).platform_version


def heap_profile(platform: str | None = None) -> bytes:
    """The live device buffers and executables of a backend, as a `pprof` protocol buffer."""
    return client(platform).heap_profile()
