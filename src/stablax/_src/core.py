"""Abstract values, Tracers, and the trace that turns a Python function into a StableHLO function.

A `FuncTrace` owns one `func.func` being built. Tracers carry an abstract value and the MLIR
value that computes them. Values from outside the function (concrete arrays, tracers of an
enclosing trace) are lifted to extra function arguments, never baked in as constants.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from stablax._src import basearray, dtypes
from stablax._src import ir as mlir
from stablax._src.array import IMMUTABLE_MESSAGE, Array, from_host
from stablax._src.avals import ShapedArray
from stablax._src.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)
from stablax._src.ir import ir

# --- errors ------------------------------------------------------------------------------------


def _concretization_message(tracer: Tracer, what: str) -> str:
    return (
        f"Abstract tracer value encountered where a concrete value is expected: {what} of a "
        f"traced array {tracer.aval.str_short()}{mlir.where_suffix()}.\n"
        "The value is only known when the compiled program runs. Use lax.cond or "
        "jnp.where for value-dependent branches, lax.while_loop/fori_loop for loops, or mark "
        "the argument static with jit(..., static_argnums=...)."
    )


# --- tracers -----------------------------------------------------------------------------------


class Tracer:
    """A value inside a function being traced: an abstract value plus the MLIR value computing it.

    Operators and array methods are attached by `stablax.numpy`, exactly as for `Array`.
    """

    __slots__ = ("aval", "value", "_trace")
    __array_priority__ = 100

    def __init__(self, trace: FuncTrace, aval: ShapedArray, value: ir.Value) -> None:
        self._trace = trace
        self.aval = aval
        self.value = value

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __bool__(self) -> bool:
        return bool(self._trace.concrete_value(self, "bool()", TracerBoolConversionError))

    def __int__(self) -> int:
        return int(self._trace.concrete_value(self, "int()"))

    def __float__(self) -> float:
        return float(self._trace.concrete_value(self, "float()"))

    def __complex__(self) -> complex:
        return complex(self._trace.concrete_value(self, "complex()"))

    def __index__(self) -> int:
        if self.aval.dtype.kind not in "iub":
            raise TypeError(f"only integer arrays can be used as an index, got {self.aval.dtype}")
        return int(self._trace.concrete_value(self, "__index__()", TracerIntegerConversionError))

    def item(self, *args: Any) -> Any:
        return self._trace.concrete_value(self, ".item()").item(*args)

    def tolist(self) -> Any:
        return self._trace.concrete_value(self, ".tolist()").tolist()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TracerArrayConversionError(
            f"The numpy.ndarray conversion method __array__() was called on traced array "
            f"{self.aval.str_short()}{mlir.where_suffix()}. NumPy functions cannot run on "
            "traced values: use the stablax.numpy function of the same name."
        )

    def __hash__(self) -> int:
        raise TypeError(f"unhashable type: traced array {self.aval.str_short()}")

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(IMMUTABLE_MESSAGE.format(type="traced array"))

    def __repr__(self) -> str:
        return f"Traced<{self.aval.str_short()}>"


basearray.Array.register(Tracer)


# --- the trace ---------------------------------------------------------------------------------


class _TraceState(threading.local):
    def __init__(self) -> None:
        self.stack: list[FuncTrace] = []
        # Where ops with no tracer operands go, if not the current trace (see `emitting_into`).
        self.target: FuncTrace | None = None
        # The trace an op is being lowered into (set by `bind`): lowerings that add private
        # functions or Python payloads to the module add them there.
        self.lowering: FuncTrace | None = None
        # Whether ordered effects were traced since the stack was last empty (`bind` then keeps
        # each trace's `effect_chain` going; see lax/_host_callback.py).
        self.ordered_effects = False


trace_state = _TraceState()


@contextlib.contextmanager
def outside_traces() -> Iterator[None]:
    """Runs the block as if nothing were being traced in this thread (a host callback run while
    a trace is open computes on concrete values)."""
    saved = trace_state.stack, trace_state.target, trace_state.lowering
    trace_state.stack, trace_state.target, trace_state.lowering = [], None, None
    try:
        yield
    finally:
        trace_state.stack, trace_state.target, trace_state.lowering = saved


def current_trace() -> FuncTrace | None:
    stack = trace_state.stack
    return stack[-1] if stack else None


def pending_derivatives() -> int:
    """How many derivatives autodiff is about to take of the current trace (0 outside one)."""
    trace = current_trace()
    return trace.differentiated if trace is not None else 0


def lowering_trace() -> FuncTrace:
    """The trace whose module the running lowering emits into."""
    trace = trace_state.lowering or current_trace()
    if trace is None:
        raise RuntimeError("stablax: internal error, an op was lowered outside any trace")
    return trace


class FuncTrace:
    """Builds one `func.func` in its own module: block arguments, ops, and finally a return.

    `sources` (optional, one per input) are the concrete values or enclosing-trace tracers the
    inputs stand for; with them, `evaluate(trace, tracer)` (concrete.evaluate_prefix) computes a
    tracer's value, so Python control flow works under `grad` outside `jit`. Without them
    (`jit`), asking for a concrete value is an error.

    The module may hold private functions besides `@name` (scan bodies, custom_jvp primals);
    `payloads` maps their symbols (and the keys of marker ops) to the Python objects the rewrites
    need for them (custom rules, tree structures, axis names). They belong to this trace and
    travel with a function when it is copied into another module (see bodies.py).
    `differentiated` counts the derivatives autodiff is about to take of this function (0: none):
    custom_jvp and custom_vjp functions called in it trace their rules directly, as JAX's JVP
    trace does, and a custom_jvp rule is traced one count lower (under `grad(grad(f))` the rule
    calls `f` at the outer level: the rule again, then the primal, as in JAX).
    """

    def __init__(
        self,
        in_avals: Sequence[ShapedArray],
        name: str = "main",
        sources: Sequence[Any] | None = None,
        differentiated: int = 0,
        evaluate: Callable[[FuncTrace, Tracer], Any] | None = None,
    ) -> None:
        if (sources is None) != (evaluate is None):
            raise ValueError("stablax: internal error, a trace's sources come with an evaluator")
        self.name = name
        self.in_avals = list(in_avals)
        self.sources = None if sources is None else list(sources)
        self.evaluate = evaluate
        self.differentiated = int(differentiated)
        self.payloads: dict[str, Any] = {}
        self.symbols: dict[Any, str] = {}  # what a private function or payload is -> its name
        self._symbol_counts: dict[str, int] = {}
        self.context = mlir.context()
        with self.context, ir.Location.unknown():
            self.module = ir.Module.create()
            with ir.InsertionPoint(self.module.body):
                self.func_op, self.block = mlir.new_function(
                    name, [mlir.aval_type(a) for a in in_avals], []
                )
        self.args = [
            Tracer(self, a, v) for a, v in zip(in_avals, self.block.arguments, strict=True)
        ]
        self.captured: list[Any] = []  # outer values passed as the extra trailing arguments
        self._captured_index: dict[int, Tracer] = {}
        self._concrete: dict[Any, Any] = {}
        self.finished = False
        self.level = -1
        self._contexts: list[Any] = []
        # Jitted functions traced once for this trace and its nested ones (jit_inline.py).
        self.inline_cache: dict[Any, Any] = {}
        # The last op of this function that ordered effects come after: each ordered host
        # callback reads it and becomes it, and so does a construct whose bodies have one.
        self.effect_chain: Tracer | None = None

    def __enter__(self) -> FuncTrace:
        self.level = len(trace_state.stack)  # nesting depth; inner traces have higher levels
        trace_state.stack.append(self)
        self._saved_target, trace_state.target = trace_state.target, None
        self.context.__enter__()
        self._contexts = [self.context, ir.Location.unknown(), ir.InsertionPoint(self.block)]
        for c in self._contexts[1:]:
            c.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        for c in reversed(self._contexts):
            c.__exit__(*exc)
        popped = trace_state.stack.pop()
        assert popped is self, "stablax: traces exited out of order"
        trace_state.target = self._saved_target
        if not trace_state.stack:
            trace_state.ordered_effects = False
        self.finished = True
        self.inline_cache.clear()

    def lift(self, outer: Any, aval: ShapedArray) -> Tracer:
        """Makes `outer` (a concrete array or an enclosing trace's tracer) an extra argument."""
        tracer = self._captured_index.get(id(outer))
        if tracer is None:
            value = self.block.add_argument(mlir.aval_type(aval), ir.Location.unknown())
            tracer = Tracer(self, aval, value)
            self._captured_index[id(outer)] = tracer
            self.captured.append(outer)
        return tracer

    def insertion_point(self) -> ir.InsertionPoint:
        """Where this function's next op goes (the end of its body)."""
        return ir.InsertionPoint(self.block)

    def new_symbol(self, prefix: str) -> str:
        """A name not used yet in this module: prefix_0, prefix_1, ... (deterministic, so equal
        programs print equal text and share compiled executables)."""
        n = self._symbol_counts.get(prefix, 0)
        self._symbol_counts[prefix] = n + 1
        return f"{prefix}_{n}"

    def add_payload(self, prefix: str, payload: Any) -> str:
        """The key under which `payload` is stored for this module's marker ops."""
        identity = ("payload", id(payload))
        key = self.symbols.get(identity)
        if key is None:
            key = self.symbols[identity] = self.new_symbol(prefix)
            self.payloads[key] = payload
        return key

    def constant(self, value: np.ndarray, weak_type: bool = False) -> Tracer:
        aval = ShapedArray(value.shape, value.dtype, weak_type)
        with self.context, ir.Location.unknown(), self.insertion_point():
            return Tracer(self, aval, mlir.constant(value))

    def finish(self, outs: Sequence[Any], donated: Sequence[int] = ()) -> TracedFunction:
        """Adds the return of `outs` and seals the function; the trace stays usable as a record."""
        with self.context, ir.Location.unknown(), self.insertion_point():
            out_tracers = [to_tracer(self, o) for o in outs]
            mlir.emit_return([t.value for t in out_tracers])
            arg_types = [arg.type for arg in self.block.arguments]
            result_types = [mlir.aval_type(t.aval) for t in out_tracers]
            self.func_op.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(arg_types, result_types)
            )
            if donated:
                _mark_donated(self.func_op, donated, len(arg_types))
        self.finished = True
        return TracedFunction(
            self.module,
            self.in_avals,
            [t.aval for t in out_tracers],
            self.captured,
            self,
            self.payloads,
        )

    # --- concrete values (Python control flow outside jit) ------------------------------------

    def concrete_value(
        self, tracer: Tracer, what: str, error: type[Exception] = ConcretizationTypeError
    ) -> np.ndarray:
        """The value `tracer` takes for this trace's concrete sources, computed on demand.

        Without sources (under `jit`) raises `error`, a subclass of JAX's typed errors.
        """
        if self.sources is None:
            raise error(_concretization_message(tracer, what))
        try:
            return np.asarray(self.concrete_array(tracer))
        except ConcretizationTypeError as err:  # e.g. a batched value under vmap
            if isinstance(err, error):
                raise
            raise error(str(err)) from None

    def concrete_array(self, tracer: Tracer) -> Any:
        if self.sources is None:
            raise ConcretizationTypeError(_concretization_message(tracer, "a concrete value"))
        cached = self._concrete.get(tracer.value)
        if cached is None:
            cached = self._concrete[tracer.value] = self.evaluate(self, tracer)
        return cached


# Small NumPy constants are embedded in the program; larger ones become device arguments.
MAX_EMBEDDED_CONSTANT_SIZE = 256


class emitting_into:  # noqa: N801 (a context manager used like a function)
    """Within this block, ops with no tracer operands are emitted into `trace` (an open trace
    below the current one): linearize uses it to keep primal computations in the primal function."""

    def __init__(self, trace: FuncTrace) -> None:
        self.trace = trace

    def __enter__(self) -> FuncTrace:
        self.saved = trace_state.target
        trace_state.target = self.trace
        return self.trace

    def __exit__(self, *exc: Any) -> None:
        trace_state.target = self.saved


def operand_trace(args: Sequence[Any], default: FuncTrace) -> FuncTrace:
    """The trace an op on `args` belongs to: the innermost live trace among its tracer operands.

    Ops whose operands all come from an enclosing trace are emitted there (e.g. the primal half
    of a JVP rule during linearize); ops with no tracer operands go to the current trace.
    """
    best = None
    for a in args:
        if isinstance(a, Tracer):
            t = a._trace
            if not t.finished and (best is None or t.level > best.level):
                best = t
    return default if best is None else best


def to_tracer(trace: FuncTrace, x: Any) -> Tracer:
    """Brings any operand into `trace`: its own tracers, lifted outer values, or constants."""
    if isinstance(x, Tracer):
        if x._trace is trace:
            return x
        if x._trace.finished:
            raise UnexpectedTracerError(
                f"A traced value {x.aval.str_short()} from a function whose tracing has already "
                f"finished was used{mlir.where_suffix()}. Tracers must not escape the function "
                "being transformed (e.g. through a global or a side effect); return them instead."
            )
        return trace.lift(x, x.aval)
    if isinstance(x, Array):
        return trace.lift(x, x.aval)
    if dtypes.is_python_scalar(x):
        value = np.asarray(x, dtype=dtypes.python_scalar_dtype(x))
        return trace.constant(value, weak_type=type(x) is not bool)
    if isinstance(x, (np.ndarray, np.generic)):
        value = np.asarray(x)
        dtypes.check_user_dtype(value.dtype, "stablax")
        value = value.astype(dtypes.canonicalize_dtype(value.dtype), copy=False)
        if value.size <= MAX_EMBEDDED_CONSTANT_SIZE:
            return trace.constant(value)
        device_array = from_host(value)
        return trace.lift(device_array, device_array.aval)
    if hasattr(x, "__jax_array__"):
        return to_tracer(trace, x.__jax_array__())
    raise TypeError(
        f"Value {x!r} of type {type(x).__name__} is not a valid stablax array type"
        f"{mlir.where_suffix()}"
    )


class TracedFunction:
    """The result of tracing: a module holding `func @name` (and its private functions), its
    avals, the captured values bound to its trailing inputs, and the Python payloads of its ops.

    Every walker reads functions through this interface (`parts`, `in_avals`, `out_avals`,
    `captured`, `owner`); bodies.py gives private functions and regions the same one.
    """

    def __init__(
        self,
        module: ir.Module,
        in_avals,
        out_avals,
        captured,
        trace=None,
        payloads=None,
        ported=None,
    ) -> None:
        self._home = module
        self._ported: dict[Any, ir.Module] = {} if ported is None else ported
        self.in_avals = list(in_avals)
        self.out_avals = list(out_avals)
        self.captured = list(captured)
        self.trace = trace
        self.payloads: dict[str, Any] = {} if payloads is None else payloads

    @property
    def module(self) -> ir.Module:
        """The module, in this thread's current MLIR context: a function traced in another
        thread (or before the context was renewed) is reparsed here once, with its locations."""
        ctx = mlir.context()
        home = self._home
        if home.context is ctx:
            return home
        ported = self._ported.get(ctx)
        if ported is None:
            text = home.operation.get_asm(enable_debug_info=True)
            with ctx:
                ported = self._ported[ctx] = ir.Module.parse(text)
        return ported

    @property
    def owner(self) -> TracedFunction:
        return self

    @property
    def func_op(self) -> Any:
        return self.module.body.operations[0]

    def parts(self) -> tuple[list[Any], list[Any], list[Any]]:
        """(block arguments, ops except the return, returned values)."""
        with mlir.context():
            block = self.func_op.regions[0].blocks[0]
            ops = [op.operation for op in block.operations]
            return list(block.arguments), ops[:-1], list(ops[-1].operands)

    def with_signature(self, in_avals: Sequence[ShapedArray], captured: Sequence[Any]):
        """The same function read with other input avals and captured values (e.g. its captured
        values as ordinary trailing inputs)."""
        return TracedFunction(
            self._home, in_avals, self.out_avals, captured, self.trace, self.payloads, self._ported
        )

    def text(self, debug_info: bool = False) -> str:
        with mlir.context():
            return self.module.operation.get_asm(enable_debug_info=debug_info)

    def bytecode(self) -> bytes:
        with mlir.context():
            return mlir.bytecode(self.module.operation)


def trace_to_func(
    fun: Callable[..., Sequence[Any]],
    in_avals: Sequence[ShapedArray],
    name: str = "main",
    donated: Sequence[int] = (),
    sources: Sequence[Any] | None = None,
    differentiated: int = 0,
    evaluate: Callable[[FuncTrace, Tracer], Any] | None = None,
) -> TracedFunction:
    """Traces `fun` (flat tracers in, a flat sequence of values out) into a new module.

    The function is public `@name`; captured outer values are its trailing arguments.
    """
    trace = FuncTrace(in_avals, name, sources, differentiated, evaluate)
    with trace:
        outs = fun(*trace.args)
        traced = trace.finish(outs, donated)
    with trace.context:
        if not traced.module.operation.verify():
            raise RuntimeError(
                f"stablax: internal error, traced module does not verify:\n{traced.module}"
            )
    return traced


def _mark_donated(func_op: Any, donated: Sequence[int], num_args: int) -> None:
    empty = ir.DictAttr.get({})
    donor = ir.DictAttr.get({"jax.buffer_donor": ir.BoolAttr.get(True)})
    attrs = [donor if i in set(donated) else empty for i in range(num_args)]
    func_op.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
