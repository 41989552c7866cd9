"""Top-level helpers users call directly: devices, device_put/get, make_jaxpr, eval_shape, ..."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from stablax._src import caches, core, dtypes, runtime, transfer_guard, tree_util
from stablax._src.array import Array, from_host
from stablax._src.config import config
from stablax._src.jit import as_jitted, jit
from stablax._src.traced import StableHLOFunction


def clear_caches() -> None:
    """Empties every cache of compiled and traced programs (JAX's name): each jitted function's
    signatures, eager one-op executables and compiled programs by fingerprint."""
    caches.clear_all()


def devices(backend: str | None = None) -> list[Any]:
    """The devices of `backend` (the default backend when None)."""
    return runtime.devices(backend)


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Any]:
    return runtime.local_devices(backend)


def device_count(backend: str | None = None) -> int:
    return len(runtime.devices(backend))


def local_device_count(backend: str | None = None) -> int:
    return len(runtime.local_devices(backend))


def default_backend() -> str:
    """'cpu', 'cuda', 'rocm' or 'tpu': the platform used when none is named."""
    return runtime.default_backend()


def process_index() -> int:
    return runtime.process_index()


def process_count() -> int:
    return 1


def device_put(x: Any, device: Any = None) -> Any:
    """Copies a pytree of host values or arrays to `device` (the default device when None)."""
    target = runtime.default_device() if device is None else runtime.as_device(device)

    def put(leaf: Any) -> Any:
        if isinstance(leaf, Array):
            if leaf.device == target:
                return leaf
            if transfer_guard.active["device_to_device"]:
                transfer_guard.check("device_to_device", f"aval={leaf.aval}", explicit=True)
            return Array(runtime.copy_to_device(leaf._buf, leaf.aval, target), leaf.aval)
        if isinstance(leaf, core.Tracer):
            return leaf

        if isinstance(leaf, (bool, int, float, complex)):
            weak = not isinstance(leaf, bool)
            dtype = dtypes.python_scalar_dtype(leaf)
            return from_host(leaf, dtype, weak_type=weak, device=target, explicit=True)
        return from_host(leaf, device=target, explicit=True)

    return tree_util.tree_map(put, x)


def device_get(x: Any) -> Any:
    """Copies a pytree of arrays to the host as NumPy arrays (starting all copies first)."""
    leaves = tree_util.tree_leaves(x)
    for leaf in leaves:
        if isinstance(leaf, Array):
            if transfer_guard.active["device_to_host"] and leaf.device.platform != "cpu":
                transfer_guard.check("device_to_host", f"aval={leaf.aval}", explicit=True)
            leaf.copy_to_host_async()
    with _explicit_host_copies():
        return tree_util.tree_map(lambda v: np.asarray(v) if isinstance(v, Array) else v, x)


@contextlib.contextmanager
def _explicit_host_copies() -> Iterator[None]:
    # device_get has already applied the guard: the conversions it makes are not implicit.
    saved = transfer_guard.active["device_to_host"]
    transfer_guard.active["device_to_host"] = False
    try:
        yield
    finally:
        transfer_guard.active["device_to_host"] = saved


def block_until_ready(x: Any) -> Any:
    """Waits for every array in the pytree `x` to be computed; returns `x`."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x


def make_jaxpr(fun: Callable, static_argnums: Any = (), **unused: Any) -> Callable:
    """Returns a function that traces `fun` and gives its StableHLO (our IR is StableHLO)."""
    jitted = as_jitted(fun, static_argnums=static_argnums)

    def make(*args: Any, **kwargs: Any) -> StableHLOFunction:
        return StableHLOFunction(jitted.lower(*args, **kwargs))

    return make


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """The output shapes and dtypes of `fun(*args)` as ShapeDtypeStructs, without running it."""
    jitted = as_jitted(fun)
    return jitted.eval_shape(*args, **kwargs)


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Runs jitted functions op by op (useful for debugging with print)."""
    previous = config.jax_disable_jit
    config.update("jax_disable_jit", disable)
    try:
        yield
    finally:
        config.update("jax_disable_jit", previous)


__all__ = ["jit"]
