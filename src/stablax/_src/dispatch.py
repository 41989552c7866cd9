"""`bind`: emit an op into the active trace, or run it eagerly when none is.

An eager call of an op compiles a one-op program once per (op, avals, params) and afterwards is
a dict lookup. Host values become device Arrays here (`to_array`, cached Python scalars).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import caches, core, dtypes, ir_passes, runtime, transfer_guard
from stablax._src import ir as mlir
from stablax._src.array import Array, from_host, raise_if_deleted
from stablax._src.avals import ShapedArray
from stablax._src.config import config
from stablax._src.core import Tracer, current_trace, trace_state
from stablax._src.nan_checks import checked_kinds, invalid_kind
from stablax._src.nan_locator import check_program
from stablax._src.op_rules import lowering_rules, shape_rules, uncached_ops


class _CompileTimeEval(threading.local):
    """`ensure_compile_time_eval`: while active, ops whose operands are all concrete run eagerly
    even inside a trace (their results are constants of the traced program)."""

    active = False


compile_time_eval = _CompileTimeEval()


def bind(name: str, *args: Any, **params: Any) -> Any:
    """Applies op `name` to `args`: emitted into the active trace, or executed eagerly.

    Returns one value, or a tuple when the op's shape rule returns several avals.
    """
    current = current_trace()
    if current is None or (
        compile_time_eval.active and not any(isinstance(a, Tracer) for a in args)
    ):
        return _eager_bind(name, args, params)
    trace = core.operand_trace(args, trace_state.target or current)
    tracers = [core.to_tracer(trace, a) for a in args]
    in_avals = [t.aval for t in tracers]
    out = shape_rules[name](*in_avals, **params)
    out_avals = out if isinstance(out, tuple) else (out,)
    lower = lowering_rules[name]
    saved, trace_state.lowering = trace_state.lowering, trace
    try:
        if trace is current:
            values = lower([t.value for t in tracers], in_avals, out_avals, **params)
        else:
            with trace.insertion_point():
                values = lower([t.value for t in tracers], in_avals, out_avals, **params)
    finally:
        trace_state.lowering = saved
    results = tuple(Tracer(trace, a, v) for a, v in zip(out_avals, values, strict=True))
    if trace_state.ordered_effects and results and _reads_effect_chain(args):
        trace.effect_chain = results[0]  # later ordered effects of this function come after it
    return results if isinstance(out, tuple) else results[0]


def _reads_effect_chain(args: Sequence[Any]) -> bool:
    return any(type(a) is Tracer and a._trace.effect_chain is a for a in args)


# --- eager execution ---------------------------------------------------------------------------

# (op, avals, params) -> (executable, returns a tuple, out avals). The avals are kept here, not
# read from the executable: programs differing only in weak types share one executable.
_eager_cache = caches.LRUCache("stablax_eager_cache_size")


def _eager_bind(name: str, args: Sequence[Any], params: dict[str, Any]) -> Any:
    avals = []
    buffers = []
    for a in args:
        if type(a) is Array:
            avals.append(a.aval)
            buffers.append(a._buf)
        else:
            array = to_array(a)
            avals.append(array.aval)
            buffers.append(array._buf)
    if name in uncached_ops:
        key, hit = None, None
    else:
        try:
            key = (name, tuple(avals), tuple(params.items()) if params else None)
            hit = _eager_cache.get(key)
        except TypeError:  # an unhashable parameter: compile without caching the lookup
            key, hit = None, None
    if hit is None:
        hit = _compile_one_op(name, avals, params)
        if key is not None:
            _eager_cache[key] = hit
    executable, multiple, out_avals = hit
    try:
        results = executable.execute(buffers)
    except runtime.XlaRuntimeError:
        raise_if_deleted(args)  # a clear error for a deleted or donated argument
        raise
    if config.jax_debug_nans or config.jax_debug_infs:
        _check_eager(name, avals, params, buffers, results, out_avals, executable.device)
    outs = [Array(b, a) for b, a in zip(results, out_avals, strict=True)]
    return tuple(outs) if multiple else outs[0]


def _compile_one_op(name: str, avals: list[ShapedArray], params: dict[str, Any]):
    traced, multiple = _trace_one_op(name, avals, params)
    return compile_traced(traced)[0], multiple, tuple(traced.out_avals)


def _trace_one_op(name: str, avals: list[ShapedArray], params: dict[str, Any]):
    """The program that runs op `name` once, and whether the op has several results."""
    if config.jax_no_tracing:
        raise RuntimeError(f"re-tracing {name} to run it eagerly, but 'no_tracing' is set")
    mlir.start_top_level_trace()
    multiple = False

    def one_op(*tracers):
        nonlocal multiple
        out = bind(name, *tracers, **params)
        multiple = isinstance(out, tuple)
        return out if multiple else (out,)

    return core.trace_to_func(one_op, avals, name="main"), multiple


def _check_eager(name, avals, params, buffers, results, out_avals, device) -> None:
    """`jax_debug_nans`/`jax_debug_infs` for one eager op: a forbidden value in its results is
    traced to the op that made it (the op itself, or one in the loop or branch it runs)."""
    if invalid_kind(results, out_avals, checked_kinds()) is not None:
        check_program(None, _trace_one_op(name, avals, params)[0], buffers, results, device)


def compile_traced(
    traced: core.TracedFunction, device: Any = None, keep_unused: bool = True
) -> tuple[runtime.Executable, list[int] | None]:
    """Compiles a traced function (cached by the module's location-free fingerprint, unless it
    calls back into Python), without the inputs it never reads unless `keep_unused`; returns
    the executable and the positions of the inputs it takes (None: all of them)."""
    device = runtime.default_device() if device is None else device
    traced_op = traced.module.operation
    text = traced.text()
    if ir_passes.HOST_CALLBACK_TEXT in text:  # every input kept: a rare program, kept simple
        return compile_with_callbacks(traced_op, traced.payloads, traced.out_avals, device), None
    module, text = ir_passes.without_markers(traced_op, text)
    kept = None
    if not keep_unused:
        count = len(traced.in_avals) + len(traced.captured)
        module, text, kept = ir_passes.without_unused_arguments(
            module, text, module is not traced_op
        )
        kept = None if len(kept) == count else kept
    code = traced.bytecode() if module is traced_op else mlir.bytecode(module)
    return runtime.compile_module(code, text.encode(), traced.out_avals, device), kept


def compile_with_callbacks(
    module: Any, payloads: dict[str, Any], out_avals: Sequence[Any], device: Any
) -> runtime.Executable:
    """Compiles a module (an operation) whose host-callback ops name callables in `payloads`:
    they become the executable's own host callbacks."""
    with mlir.context():
        copy = ir_passes.copy_module(module)
        callbacks = ir_passes.bind_host_callbacks(copy.operation, payloads, device.platform)
        ir_passes.strip_markers(copy.operation)
        text = copy.operation.get_asm(enable_debug_info=False)
        ordered = any(c.ordered for c in callbacks)
        return runtime.compile_with_callbacks(
            copy, text.encode(), out_avals, device, callbacks, ordered
        )


def hlo_of_traced(traced: core.TracedFunction, name: str) -> Any:
    """The HLO XLA would compile for a traced function (an `XlaComputation`), its module named
    as JAX names a jitted function's: `jit_<name>`, with characters outside [A-Za-z0-9_.-]
    replaced by `_` and trailing ones dropped (`jit__lambda` for a lambda)."""
    _, text = ir_passes.without_markers(traced.module.operation, traced.text())
    symbol = re.sub(r"[^\w.-]", "_", f"jit_{name}").rstrip("_")
    return runtime.hlo_computation(re.sub(r"^module\b", f'module @"{symbol}"', text, count=1))


# --- host values to device arrays -------------------------------------------------------------

# Eager executables target the default device: a new default device needs new ones.
_eager_device_flag = [config.jax_default_device]


def _forget_eager_programs_of_other_devices() -> None:
    if config.jax_default_device is not _eager_device_flag[0]:
        _eager_device_flag[0] = config.jax_default_device
        _eager_cache.clear()
        _scalar_cache.clear()


config.on_change(_forget_eager_programs_of_other_devices)

_scalar_cache: dict[tuple, Array] = {}
_SCALAR_CACHE_LIMIT = 4096


def to_array(x: Any) -> Array:
    """Any array-like operand as a device Array (Python scalars become weakly typed 0-d arrays)."""
    kind = type(x)
    if kind is Array:
        return x
    if kind in _PYTHON_SCALARS:  # before the isinstance checks: a scalar hit is on jit's hot path
        return _python_scalar(x, kind)
    if isinstance(x, Array):
        return x
    if isinstance(x, Tracer):
        raise core.UnexpectedTracerError(
            f"A traced value {x.aval.str_short()} was used outside the function being traced"
            f"{mlir.where_suffix()}; tracers must not escape their transformation."
        )
    if hasattr(x, "__jax_array__"):
        return to_array(x.__jax_array__())
    if isinstance(x, (np.ndarray, np.generic, list, tuple)) or np.isscalar(x):
        return from_host(x)
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid stablax array type")


_PYTHON_SCALARS = frozenset({bool, int, float, complex})


def _python_scalar(x: Any, kind: type) -> Array:
    """A Python scalar's 0-d device array, one per value (arrays are immutable, so shared)."""
    if transfer_guard.active["host_to_device"]:  # JAX transfers every scalar operand
        transfer_guard.check("host_to_device", f"Python scalar {x!r}")
    # The dtype of a Python scalar depends on the x64 flag, so the flag is part of the key.
    if kind is float:
        key = (config.jax_enable_x64, kind, x, math.copysign(1.0, x))
    else:
        key = (config.jax_enable_x64, *_scalar_key(x))
    cached = _scalar_cache.get(key)
    if cached is not None:
        return cached
    array = _scalar_to_array(x)
    if len(_scalar_cache) < _SCALAR_CACHE_LIMIT:
        _scalar_cache[key] = array
    return array


def _scalar_key(x: Any) -> tuple:
    """What tells scalars apart: type, value and the signs of zeros (0.0 == -0.0 as dict keys)."""
    kind = type(x)
    if kind is float or isinstance(x, np.floating):
        return (kind, x, math.copysign(1.0, x))
    if kind is complex or isinstance(x, np.complexfloating):
        return (kind, x, math.copysign(1.0, x.real), math.copysign(1.0, x.imag))
    return (kind, x)


def check_python_int(x: int) -> np.dtype:
    """The dtype a Python int operand takes; OverflowError if it does not fit (as JAX)."""
    dtype = dtypes.python_scalar_dtype(x)
    info = np.iinfo(dtype)
    if not info.min <= x <= info.max:
        raise OverflowError(f"Python int {x} too large to convert to {dtype.name}")
    return dtype


def _scalar_to_array(x: Any) -> Array:
    dtype = check_python_int(x) if type(x) is int else dtypes.python_scalar_dtype(x)
    return from_host(np.asarray(x, dtype=dtype), weak_type=type(x) is not bool)


def weak_scalar(value: Any, dtype: np.dtype, weak_type: bool = True) -> Any:
    """A 0-d operand of `dtype` (weakly typed by default): a constant when tracing, else a cached
    Array."""
    trace = current_trace()
    try:
        host = np.asarray(value, dtype=dtype)
    except OverflowError:  # NumPy's "Python int too large to convert to C long" names no type
        raise OverflowError(
            f"Python int {value} too large to convert to {np.dtype(dtype).name}"
        ) from None
    if trace is not None and not compile_time_eval.active:
        # During linearize, constants belong to the primal function (trace_state.target).
        return (trace_state.target or trace).constant(host, weak_type=weak_type)
    if transfer_guard.active["host_to_device"]:
        transfer_guard.check("host_to_device", f"constant {host.dtype.name} {value!r}")
    key = (weak_type, dtype, *_scalar_key(value))
    cached = _scalar_cache.get(key)
    if cached is None:
        cached = from_host(host, weak_type=weak_type)
        if len(_scalar_cache) < _SCALAR_CACHE_LIMIT:
            _scalar_cache[key] = cached
    return cached


caches.on_clear(_scalar_cache.clear)


def is_tracing() -> bool:
    return bool(trace_state.stack)
