"""The host callbacks users call: pure_callback, io_callback, and `stablax.debug`'s callback,
print and breakpoint, each a `HostCallback` (lax/_host_callback.py) over a pytree interface."""

from __future__ import annotations

import copy
import logging
import string
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import core, runtime, runtime_effects, tree_util
from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.lax._host_callback import HostCallback, check_vmap_method, host_callback


def _is_array(x: Any) -> bool:
    return isinstance(x, (Array, core.Tracer, np.ndarray, np.generic)) or (
        isinstance(x, (bool, int, float, complex))
    )


class _Flat:
    """The user's callback on the flat list of array leaves of (args, kwargs): non-array leaves
    are static, kept here; array leaves arrive as Arrays. Returns the flat leaves of what the
    callback returns, checked against the declared structure."""

    def __init__(self, callback: Callable, tree: Any, static: dict[int, Any], out_tree: Any):
        self.callback = callback
        self.tree = tree
        self.static = static
        self.out_tree = out_tree

    def __call__(self, *dynamic: Any) -> Any:
        values = iter(dynamic)
        leaves = [
            self.static[i] if i in self.static else next(values)
            for i in range(self.tree.num_leaves)
        ]
        args, kwargs = tree_util.tree_unflatten(self.tree, leaves)
        out = self.callback(*args, **kwargs)
        if self.out_tree is None:
            return out
        out_leaves, tree = tree_util.tree_flatten(out)
        if tree != self.out_tree:
            raise TypeError(
                f"Callback output has structure {tree}, but result_shape_dtypes has {self.out_tree}"
            )
        return out_leaves


def _split(args: tuple, kwargs: dict) -> tuple[Any, list[Any], dict[int, Any]]:
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    dynamic = [x for x in leaves if _is_array(x)]
    static = {i: x for i, x in enumerate(leaves) if not _is_array(x)}
    return tree, dynamic, static


def _result_avals(result_shape_dtypes: Any, name: str) -> tuple[list[ShapedArray], Any]:
    leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise ValueError(
                f"{name}: result_shape_dtypes must be a pytree of objects with shape and dtype "
                f"(jax.ShapeDtypeStruct), got {leaf!r}"
            )
        avals.append(ShapedArray(tuple(leaf.shape), np.dtype(leaf.dtype)))
    return avals, tree


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """Calls a pure Python function on the host from a traced or eager computation.

    The callback receives Arrays on a CPU device and returns a pytree of arrays matching
    `result_shape_dtypes` (a pytree of `ShapeDtypeStruct`). Being pure, it may run any number of
    times, or not at all when nothing uses its results. Differentiable only through
    `custom_jvp`/`custom_vjp` (its own JVP is JAX's ValueError).

    Args:
      callback: the Python function.
      result_shape_dtypes: the shapes and dtypes it returns.
      *args: its arguments (pytrees of arrays; other leaves are passed as they are).
      sharding: None, or a sharding on stablax's one device.
      vmap_method: how vmap batches the call: "sequential" (a loop over the examples),
        "sequential_unrolled", "expand_dims" (one call, unbatched arguments with a leading axis
        of 1), "broadcast_all" (one call, every argument batched) or "legacy_vectorized".
        None refuses vmap, as JAX.
      **kwargs: keyword arguments of the callback.

    Returns:
      A pytree of Arrays like `result_shape_dtypes`.

    Example:
      >>> f = lambda x: pure_callback(np.sin, ShapeDtypeStruct(x.shape, x.dtype), x)
      >>> jit(f)(jnp.ones(3))
    """
    check_vmap_method(vmap_method)
    runtime.check_sharding(sharding, "pure_callback", "sharding")
    return _call("pure", callback, result_shape_dtypes, args, kwargs, vmap_method=vmap_method)


def io_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    ordered: bool = False,
    **kwargs: Any,
) -> Any:
    """Calls a Python function with side effects on the host (once per execution of the call).

    Like `pure_callback`, but never dropped or repeated; with `ordered=True` its calls keep
    program order, across calls of the function too (and vmap refuses it, as JAX). Not
    differentiable.
    """
    runtime.check_sharding(sharding, "io_callback", "sharding")
    return _call("io", callback, result_shape_dtypes, args, kwargs, ordered=bool(ordered))


def _call(kind, callback, result_shape_dtypes, args, kwargs, **options) -> Any:
    name = "pure_callback" if kind == "pure" else "io_callback"
    if not callable(callback):
        raise TypeError(f"{name}: callback must be callable, got {callback!r}")
    avals, out_tree = _result_avals(result_shape_dtypes, name)
    tree, dynamic, static = _split(args, kwargs)
    flat = _Flat(callback, tree, static, out_tree)
    spec = HostCallback(flat, avals, kind, len(dynamic), name=name, **options)
    return tree_util.tree_unflatten(out_tree, host_callback(spec, dynamic))


def debug_callback(
    callback: Callable[..., Any] | None = None,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: Any,
) -> Any:
    """Calls `callback(*args, **kwargs)` on the host with the values of the arrays in them, at
    every execution (inside jit, vmap — once per example —, loops and branches); its return
    value is ignored. `ordered=True` keeps program order among ordered callbacks.

    Also `debug_callback(ordered=True)(callback, *args)`, JAX's two-call form.
    """
    if callback is None:
        if args or kwargs:
            raise TypeError(
                "debug_callback received unexpected arguments in the two-call form: "
                f"args={args} kwargs={kwargs}"
            )
        return lambda f, *a, **k: debug_callback(f, *a, ordered=ordered, **k)
    if not callable(callback):
        raise TypeError(f"debug_callback: callback must be callable, got {callback!r}")
    _check_partitioned(partitioned)
    tree, dynamic, static = _split(args, kwargs)
    flat = _Flat(callback, tree, static, None)
    spec = HostCallback(flat, [], "debug", len(dynamic), ordered=bool(ordered), name="callback")
    host_callback(spec, dynamic)
    return None


def _check_partitioned(partitioned: bool) -> None:
    if partitioned:  # only one device: there are no shards to print apart
        raise NotImplementedError(
            "jax.debug: partitioned=True needs a sharded computation, which stablax does not "
            "run yet (one device)"
        )


def debug_print(
    fmt: str | None = None,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    **kwargs: Any,
) -> Any:
    """Prints `fmt.format(*args, **kwargs)` with the values of the arrays, at every execution.

    Unlike `print`, which runs once while a function is traced, this prints whenever the
    compiled program runs: inside jit, once per example under vmap, at every iteration of a loop,
    in the branch taken. Use placeholders, not f-strings: `debug.print("x = {x}", x=x)`.
    Also `debug.print(ordered=True)(fmt, ...)`, JAX's two-call form.

    Example:
      >>> @jit
      ... def f(x):
      ...     debug.print("Printing value of {} during execution", x)
      ...     return x * 2
      >>> f(jnp.array([1, 2, 3]))
      Printing value of [1 2 3] during execution
    """
    if fmt is None:
        if args or kwargs:
            raise TypeError(
                "debug_print received unexpected arguments in the two-call form: "
                f"args={args} kwargs={kwargs}"
            )
        return lambda f, *a, **k: debug_print(
            f, *a, ordered=ordered, partitioned=partitioned, skip_format_check=skip_format_check,
            **k,
        )  # fmt: skip
    if not skip_format_check:
        string.Formatter().format(fmt, *args, **kwargs)  # the user's error, at the call
    _check_partitioned(partitioned)
    fields = [field for _, field, _, _ in string.Formatter().parse(fmt)] if fmt else []
    placeholders = any(field is not None for field in fields)
    options = np.get_printoptions()

    def write(*values: Any, **named: Any) -> None:
        if placeholders:
            with np.printoptions(**options):
                message = fmt.format(*values, **named)
        else:
            message = " ".join((fmt, *(str(v) for v in values)))
        sys.stdout.write(message + "\n")

    tree, dynamic, static = _split(args, kwargs)
    flat = _Flat(write, tree, static, None)
    spec = HostCallback(flat, [], "debug", len(dynamic), ordered=bool(ordered), name="debug.print")
    host_callback(spec, dynamic)
    return None


def debug_log(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:
    """Like `debug_print`, through Python's logging (logger "stablax.debug", level INFO), the
    record naming the line that called it."""
    string.Formatter().format(fmt, *args, **kwargs)
    frame = mlir.user_frame_object()
    record = _logger.makeRecord(
        _logger.name, logging.INFO, frame.f_code.co_filename, frame.f_lineno, "", (), None
    )

    def log(*values: Any, **named: Any) -> None:
        entry = copy.copy(record)
        entry.msg = fmt.format(*values, **named)
        _logger.handle(entry)

    tree, dynamic, static = _split(args, kwargs)
    flat = _Flat(log, tree, static, None)
    host_callback(HostCallback(flat, [], "debug", len(dynamic), ordered=ordered), dynamic)


_logger = logging.getLogger("stablax.debug")


class DebugEffect:
    """The effect of a debug callback: it may be dropped with its results' uses, never reordered
    against the computation it observes (`jax.debug.DebugEffect`)."""

    def __repr__(self) -> str:
        return "Debug"


class OrderedDebugEffect(DebugEffect):
    """The effect of an ordered debug callback: kept in program order with the others."""

    def __repr__(self) -> str:
        return "OrderedDebug"


def effects_barrier() -> None:
    """Waits until every program dispatched so far has finished its host callbacks."""
    runtime_effects.effects_barrier()


def _sharding_of(value: Any) -> Any:
    aval_of(value)  # an array, a tracer or a scalar
    sharding = getattr(value, "sharding", None)
    return sharding if sharding is not None else runtime.sharding_for(runtime.default_device())


def inspect_array_sharding(value: Any, *, callback: Callable[[Any], None]) -> None:
    """Calls `callback` with the sharding of each array of `value` (its device's, today)."""
    for leaf in tree_util.tree_leaves(value):
        callback(_sharding_of(leaf))


def visualize_array_sharding(arr: Any, **kwargs: Any) -> None:
    """Prints how `arr` is laid out over devices (see `visualize_sharding`)."""
    visualize_sharding(aval_of(arr).shape, _sharding_of(arr), **kwargs)


def visualize_sharding(
    shape: Any,
    sharding: Any,
    *,
    use_color: bool = True,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
    color_map: Any = None,
) -> None:
    """Prints a box per device holding part of an array of `shape` (1-D or 2-D), labelled with
    the device; on one device, one box. `use_color` colours it when stdout is a terminal."""
    if len(shape) > 2:
        raise ValueError(f"visualize_sharding only works for shapes with 1 or 2 dims, got {shape}")
    if color_map is not None:
        raise NotImplementedError("visualize_sharding: color_map needs matplotlib colours")
    devices = sorted(sharding.device_set, key=lambda d: d.id)
    if len(devices) != 1:
        raise NotImplementedError("visualize_sharding: stablax lays arrays out on one device")
    label = f"{devices[0].platform.upper()} {devices[0].id}"
    width = min(max(int(round(max(len(label) + 2, 10) * scale)), min_width), max_width)
    rows = max(1, int(round((3 if len(shape) == 2 else 1) * scale)))
    color = use_color and sys.stdout.isatty()
    start, end = ("\x1b[30;47m", "\x1b[0m") if color else ("", "")
    lines = [label.center(width) if r == rows // 2 else " " * width for r in range(rows)]
    sys.stdout.write("".join(f"{start}{line}{end}\n" for line in lines))
