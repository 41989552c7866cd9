"""Top-level helpers users call directly: devices, device_put/get, make_jaxpr, eval_shape, ..."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from stablax._src import caches, core, dtypes, runtime, transfer_guard, tree_util
from stablax._src.array import Array, from_host
from stablax._src.config import config
from stablax._src.jit import as_jitted, jit
from stablax._src.shape_dtype_struct import ShapeDtypeStruct


def clear_caches() -> None:
    """Empties every cache of compiled and traced programs (JAX's name): each jitted function's
    signatures, eager one-op executables and compiled programs by fingerprint."""
    caches.clear_all()


def devices(backend: str | None = None) -> list[Any]:
    """The devices of `backend` (the default backend when None)."""
    return runtime.devices(backend)


def local_devices(
    process_index: int | None = None, backend: str | None = None, host_id: int | None = None
) -> list[Any]:
    """The devices of this process (`process_index`, or JAX's deprecated `host_id`, must be 0:
    stablax runs as one process) on `backend`."""
    if host_id is not None:
        warnings.warn(
            "The argument to jax.local_devices has been renamed from `host_id` to "
            "`process_index`. This alias will eventually be removed; please update your code.",
            stacklevel=2,
        )
        process_index = host_id
    if process_index is not None and not 0 <= process_index < process_count(backend):
        raise ValueError(f"Unknown process_index {process_index}")
    return runtime.local_devices(backend)


def device_count(backend: str | None = None) -> int:
    return len(runtime.devices(backend))


def local_device_count(backend: str | None = None) -> int:
    return len(runtime.local_devices(backend))


def default_backend() -> str:
    """'cpu', 'cuda', 'rocm' or 'tpu': the platform used when none is named."""
    return runtime.default_backend()


def process_index(backend: str | None = None) -> int:
    """This process's index among the processes of `backend` (0: stablax runs as one)."""
    return runtime.process_index(backend)


def process_count(backend: str | None = None) -> int:
    """The number of processes of `backend` (1: stablax runs as one)."""
    runtime.client(backend)  # an unknown backend raises, as in JAX
    return 1


def _per_leaf(name: str, x: Any, spec: Any) -> list[Any]:
    """`spec` (a bool, None, or a pytree prefix of `x` of them) as one entry per leaf of `x`."""
    if spec is None or isinstance(spec, bool):
        return [spec] * len(tree_util.tree_leaves(x))
    spec_leaves, spec_def = tree_util.tree_flatten(spec, is_leaf=lambda v: v is None)
    try:
        subtrees = spec_def.flatten_up_to(x)
    except ValueError:
        raise ValueError(
            f"{name} specification must be a tree prefix of the corresponding value, got {spec!r}"
        ) from None
    out: list[Any] = []
    for value, subtree in zip(spec_leaves, subtrees, strict=True):
        out.extend([value] * len(tree_util.tree_leaves(subtree)))
    return out


_copy_on_device = jit(lambda v: v)  # XLA writes an identity program's output to a new buffer


def device_put(
    x: Any, device: Any = None, *, src: Any = None, donate: Any = False, may_alias: Any = None
) -> Any:
    """Copies a pytree of host values or arrays to `device` (the default device when None).

    Args:
      x: a pytree of arrays, NumPy arrays or Python scalars.
      device: a Device or single-device Sharding.
      src: where `x` is now (a Device, Sharding or pytree prefix of them): checked, else unused,
        since stablax has one device.
      donate: True (or a pytree prefix of bools) lets `x`'s buffers go, as in JAX this is best
        effort: stablax keeps them.
      may_alias: False forces a new buffer even for an array already on `device`; True or None
        (default) may return it as it is. Not True where `donate` is True.
    """
    target = runtime.default_device() if device is None else runtime.as_device(device)
    for where in tree_util.tree_leaves(src):
        runtime.as_device(where)
    donate_flat = _per_leaf("device_put donate", x, donate)
    alias_flat = _per_leaf("device_put may_alias", x, may_alias)
    if any(d and m for d, m in zip(donate_flat, alias_flat, strict=True)):
        raise ValueError("may_alias and donate cannot be True at the same time.")
    leaves, treedef = tree_util.tree_flatten(x)

    def put(leaf: Any, may_alias: bool | None) -> Any:
        if isinstance(leaf, Array):
            if leaf.device == target:
                return _copy_on_device(leaf) if may_alias is False else leaf
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

    return treedef.unflatten([put(v, m) for v, m in zip(leaves, alias_flat, strict=True)])


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


def make_jaxpr(
    fun: Callable,
    static_argnums: Any = (),
    axis_env: Any = None,
    return_shape: bool = False,
) -> Callable:
    """Returns a function that traces `fun` and gives its jaxpr view (a `ClosedJaxpr` of
    equations over the StableHLO function stablax traces; it prints that function).

    Args:
      fun: the function to trace.
      static_argnums: the positions of arguments that are Python values, not traced.
      axis_env: JAX's (name, size) pairs for collectives over unbound axis names; stablax binds
        axis names only under `vmap`, so only an empty one is accepted.
      return_shape: also return the outputs' pytree of `ShapeDtypeStruct`s.

    Returns:
      A function of `fun`'s arguments (arrays, tracers or `ShapeDtypeStruct`s) returning the
      `ClosedJaxpr`, or `(ClosedJaxpr, shapes)` with `return_shape`.

    Example:
      >>> make_jaxpr(jnp.sin)(1.0).eqns[0].primitive.name
      'sin'
    """
    if axis_env:
        raise NotImplementedError(
            f"make_jaxpr: axis_env={axis_env!r} is not supported by stablax (axis names are bound "
            "by vmap only)"
        )
    jitted = as_jitted(fun, static_argnums=static_argnums)

    def make(*args: Any, **kwargs: Any) -> Any:
        # Only abstract values are needed: values of enclosing transformations become their
        # types (values closed over stay constants of the jaxpr, `consts`).
        args, kwargs = tree_util.tree_map(_abstract_tracer, (args, kwargs))
        traced = jitted.trace(*args, **kwargs)
        closed = traced.jaxpr
        return (closed, traced.out_info) if return_shape else closed

    return make


def _abstract_tracer(x: Any) -> Any:
    if isinstance(x, core.Tracer):
        return ShapeDtypeStruct(x.aval.shape, x.aval.dtype, weak_type=x.aval.weak_type)
    return x


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
