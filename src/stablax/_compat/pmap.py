"""`jax.pmap` under the alias, for the one device stablax runs on.

`pmap(f)` maps `f` over a leading axis whose size must not exceed the number of devices; with
one device that axis has size 1, and mapping over it on that device is `jit(vmap(f))` (with the
same `axis_name`, so collectives see the axis). Larger axes raise JAX's ValueError. chex's
pmap variants and equinox's filter_pmap use it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import stablax
from stablax._src import tree_util


class _Pmapped:
    """The callable `pmap(f)` returns."""

    def __init__(
        self,
        fun: Callable,
        axis_name: Any,
        in_axes: Any,
        out_axes: Any,
        static_broadcasted_argnums: Any,
        devices: Any,
    ) -> None:
        self.fun = fun
        self.devices = list(devices) if devices is not None else stablax.local_devices()
        self.static = (
            (static_broadcasted_argnums,)
            if isinstance(static_broadcasted_argnums, int)
            else tuple(static_broadcasted_argnums)
        )
        self.in_axes = in_axes
        self.vmapped = stablax.vmap(fun, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
        self.jitted = stablax.jit(self._call_vmapped, static_argnums=0)
        functools.update_wrapper(self, fun, updated=())

    def _call_vmapped(self, static: tuple, *dynamic: Any) -> Any:
        args = list(dynamic)
        for i, value in static:
            args.insert(i, value)
        return self.vmapped(*args)

    def __call__(self, *args: Any) -> Any:
        static = tuple((i, args[i]) for i in sorted(self.static) if i < len(args))
        dynamic = [a for i, a in enumerate(args) if i not in self.static]
        in_axes = (
            self.in_axes
            if isinstance(self.in_axes, (list, tuple))
            else [self.in_axes] * len(dynamic)
        )
        for arg, axis in zip(dynamic, in_axes):
            if axis is None:
                continue
            for leaf in tree_util.tree_leaves(arg):
                size = np.shape(leaf)[axis]
                if size > len(self.devices):
                    raise ValueError(
                        f"compiling computation that requires {size} logical devices, but only "
                        f"{len(self.devices)} XLA devices are available (stablax runs on one)"
                    )
        return self.jitted(static, *dynamic)


def pmap(
    fun: Callable | None = None,
    axis_name: Any = None,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
    static_broadcasted_argnums: Any = (),
    devices: Any = None,
    backend: Any = None,
    axis_size: Any = None,
    donate_argnums: Any = (),
) -> Any:
    """Maps `fun` over a leading axis, one slice per device (here: a size-1 axis, one device)."""
    if fun is None:
        return functools.partial(
            pmap,
            axis_name=axis_name,
            in_axes=in_axes,
            out_axes=out_axes,
            static_broadcasted_argnums=static_broadcasted_argnums,
            devices=devices,
        )
    return _Pmapped(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices)
