"""The op tables and `bind`: emit an op into the active trace, or run it eagerly when none is.

`shape_rules` and `lowering_rules` are keyed by the exact MLIR op name ("stablehlo.sine"); the
transforms add their own tables (jvp, transpose, batching) keyed the same way. An eager call of
an op compiles a one-op program once per (op, avals, params) and afterwards is a dict lookup.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import caches, core, dtypes, runtime, transfer_guard
from stablax._src import ir as mlir
from stablax._src.array import Array, raise_if_deleted
from stablax._src.avals import ShapedArray
from stablax._src.config import config
from stablax._src.core import Tracer, current_trace, trace_state
from stablax._src.nan_checks import check_nans

# shape rule: (*in_avals, **params) -> ShapedArray | tuple[ShapedArray, ...]; raises on bad input.
ShapeRule = Callable[..., Any]
# lowering: (operands: list[ir.Value], in_avals, out_avals, **params) -> list[ir.Value]
Lowering = Callable[..., Sequence[Any]]

# decoder: (op: ir.Operation, owner: core.TracedFunction) -> params, the inverse of the lowering,
# so that rewrites can re-bind an op read from a StableHLO function: bind(op.name, *operands,
# **decoder(op, owner)) re-emits it. `owner` is the function whose module holds the op (its
# private functions and payloads); most decoders read the op alone.
Decoder = Callable[[Any, Any], dict[str, Any]]
# jvp rule: (primals: list, tangents: list[value | None], **params) -> (outs, out_tangents);
# None is a symbolic zero tangent. Rules are written with stablax.lax functions.
JvpRule = Callable[..., tuple[Any, Any]]
# transpose rule: (cotangent, *operands, **params) -> one cotangent (or None) per operand; linear
# operands arrive as `UndefinedPrimal` (see transforms/ad.py), the others as values.
TransposeRule = Callable[..., Sequence[Any]]

# Loaders of the op families `stablax.lax` imports on first use (lax/__init__.py): a lookup that
# misses in any rule table runs them first, so the tables are complete whenever a rewrite or
# `bind` reads an op, whichever module emitted it (and an op family's rules in several files).
lazy_family_loaders: list[Callable[[], None]] = []
_loading = threading.RLock()  # a second thread that misses waits for the families to load


class _RuleTable(dict):
    def __missing__(self, name: str) -> Any:
        with _loading:
            while lazy_family_loaders:
                load = lazy_family_loaders[0]
                load()
                if lazy_family_loaders and lazy_family_loaders[0] is load:
                    lazy_family_loaders.pop(0)
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default


shape_rules: dict[str, ShapeRule] = _RuleTable()
lowering_rules: dict[str, Lowering] = _RuleTable()
param_decoders: dict[str, Decoder] = _RuleTable()
jvp_rules: dict[str, JvpRule] = _RuleTable()
transpose_rules: dict[str, TransposeRule] = _RuleTable()
# batching rule: (values, dims: list[int | None], *, axis_size, **params) -> (outs, out_dims);
# see transforms/batching.py.
BatchRule = Callable[..., tuple[Any, Any]]
batch_rules: dict[str, BatchRule] = _RuleTable()
# Ops whose batching rule runs even when no operand is batched: collectives over a named vmap axis
# (psum of an unbatched x is axis_size * x), see lax/_parallel.py.
named_axis_ops: set[str] = set()
# Ops whose outputs have zero derivative everywhere they are defined (comparisons, integer ops,
# rounding, bit manipulation): jvp gives symbolic zeros instead of a rule.
not_differentiable: set[str] = set()
# Ops whose regions read values from above (control flow): those values are operands of the op
# for the rewrites, after its own operands (see bodies.free_values).
captures_from_above: set[str] = set()
# Ops whose parameters hold functions or payloads: run eagerly without the eager cache (their
# one-op programs compile through the fingerprint cache), so no global table keeps them alive.
uncached_ops: set[str] = set()
# expansion: (op: ir.Operation) -> None, replacing a marker op in a module about to be compiled by
# the ops implementing it (the linalg decompositions' LAPACK calls), keyed by custom-call target.
Expansion = Callable[[Any], None]
expansion_rules: dict[str, Expansion] = {}


def no_params(op: Any, owner: Any = None) -> dict[str, Any]:
    return {}


def generic_lowering(name: str) -> Lowering:
    """Emits `name` one-to-one: operands in, results of the inferred types out, no attributes."""

    def lower(operands, in_avals, out_avals, **params):
        op = mlir.emit(name, operands, [mlir.aval_type(a) for a in out_avals])
        return list(op.results)

    return lower


def attribute_lowering(name: str, **attributes: tuple[str, Callable[[Any], Any]]) -> Lowering:
    """Emits `name` one-to-one with attributes built from params: attr=(param, encoder)."""

    def lower(operands, in_avals, out_avals, **params):
        attrs = {attr: encode(params[param]) for attr, (param, encode) in attributes.items()}
        op = mlir.emit(name, operands, [mlir.aval_type(a) for a in out_avals], attrs)
        return list(op.results)

    return lower


def def_op(
    name: str,
    shape_rule: ShapeRule,
    lowering: Lowering | None = None,
    *,
    decode: Decoder | None = None,
    jvp: JvpRule | None = None,
    transpose: TransposeRule | None = None,
    differentiable: bool = True,
    decode_reads_owner: bool = False,
    regions_capture: bool = False,
    cache_eagerly: bool = True,
) -> str:
    """Registers all of an op's rules in one place.

    The lowering defaults to the generic one-to-one emitter and the decoder to "no params";
    a decoder takes the op alone unless `decode_reads_owner`. `regions_capture`: the op's
    regions read values from above; `cache_eagerly=False`: its params hold functions.
    """
    shape_rules[name] = shape_rule
    lowering_rules[name] = lowering if lowering is not None else generic_lowering(name)
    if decode is None:
        param_decoders[name] = no_params
    elif decode_reads_owner:
        param_decoders[name] = decode
    else:
        param_decoders[name] = lambda op, owner: decode(op)
    if regions_capture:
        captures_from_above.add(name)
    if not cache_eagerly:
        uncached_ops.add(name)
    if jvp is not None:
        jvp_rules[name] = jvp
    if transpose is not None:
        transpose_rules[name] = transpose
    if not differentiable:
        not_differentiable.add(name)
    return name


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
    return results if isinstance(out, tuple) else results[0]


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
    if config.jax_debug_nans:
        check_nans(name, executable.execute(buffers), out_avals)
    try:
        results = executable.execute(buffers)
    except runtime.XlaRuntimeError:
        raise_if_deleted(args)  # a clear error for a deleted or donated argument
        raise
    outs = [Array(b, a) for b, a in zip(results, out_avals, strict=True)]
    return tuple(outs) if multiple else outs[0]


def _compile_one_op(name: str, avals: list[ShapedArray], params: dict[str, Any]):
    if config.jax_no_tracing:
        raise RuntimeError(f"re-tracing {name} to run it eagerly, but 'no_tracing' is set")
    mlir.start_top_level_trace()
    multiple = False

    def one_op(*tracers):
        nonlocal multiple
        out = bind(name, *tracers, **params)
        multiple = isinstance(out, tuple)
        return out if multiple else (out,)

    traced = core.trace_to_func(one_op, avals, name="main")
    return compile_traced(traced), multiple, tuple(traced.out_avals)


def compile_traced(traced: core.TracedFunction, device: Any = None) -> runtime.Executable:
    """Compiles a traced function (cached by the module's location-free fingerprint)."""
    device = runtime.default_device() if device is None else device
    text = traced.text(debug_info=False)
    if MARKER_TEXT in text:  # transformation-only marker ops: strip them from a copy
        from stablax._src.lax._custom import strip_markers

        with mlir.context():
            module = traced.module.operation.clone()
            strip_markers(module)
            text = module.get_asm(enable_debug_info=False)
            return runtime.compile_module(
                mlir.bytecode(module), text.encode(), traced.out_avals, device
            )
    return runtime.compile_module(traced.bytecode(), text.encode(), traced.out_avals, device)


# How a `stablax.*` marker custom call prints (see lax/_custom.py).
MARKER_TEXT = "custom_call @stablax."


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
        from stablax._src.array import from_host

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
    from stablax._src.array import from_host

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
        from stablax._src.array import from_host

        cached = from_host(host, weak_type=weak_type)
        if len(_scalar_cache) < _SCALAR_CACHE_LIMIT:
            _scalar_cache[key] = cached
    return cached


caches.on_clear(_scalar_cache.clear)


def is_tracing() -> bool:
    return bool(trace_state.stack)
