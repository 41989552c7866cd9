"""Host callbacks: a program calls a Python function with its operands' values and takes back
arrays. The op is a `stablax.host_callback` custom call whose payload is a `HostCallback` (so the
callable belongs to the traced function and, compiled, to its executable); compilation points it
at jaxlib's Python-callback target (ir_passes.bind_host_callbacks)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import core, dispatch, dtypes, ir_passes, runtime, runtime_effects
from stablax._src.array import Array, from_host
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.batching import broadcast_in_dim, moveaxis
from stablax._src.ir import ir
from stablax._src.lax._control_flow_scan import scan
from stablax._src.lax._slice_pad import index_in_dim
from stablax._src.op_rules import def_op

HOST_CALLBACK = f"stablehlo.custom_call:{ir_passes.HOST_CALLBACK}"

# An ordered callback reads the previous ordered effect's value and returns one of these: the
# data dependency that keeps ordered effects in program order. A scalar, not an empty array:
# XLA replaces every empty array by a constant, and the dependency with it.
_ORDER = ShapedArray((), np.bool_)
_NO_ORDER = np.zeros((), np.bool_)

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all")
_ALL_VMAP_METHODS = (*VMAP_METHODS, "legacy_vectorized", None)


class HostCallback:
    """A Python function a program calls on the host, and how.

    `fn` takes one stablax Array (on a CPU device) per argument and returns a sequence of array
    likes matching `result_avals`. `kind` is "pure" (no side effects: may be called any number of
    times, or not at all), "io" or "debug" (side effects; "debug" returns nothing). An `ordered`
    one reads one more operand and returns one more result, the order of effects. `name` names it
    in errors.
    """

    __slots__ = ("fn", "result_avals", "kind", "ordered", "vmap_method", "num_args", "name")

    def __init__(
        self,
        fn: Callable[..., Any],
        result_avals: Sequence[ShapedArray],
        kind: str,
        num_args: int,
        *,
        ordered: bool = False,
        vmap_method: str | None = None,
        name: str = "callback",
    ) -> None:
        self.fn = fn
        self.result_avals = tuple(result_avals)
        self.kind = kind
        self.ordered = ordered
        self.vmap_method = vmap_method
        self.num_args = num_args
        self.name = name

    @property
    def has_side_effect(self) -> bool:
        return self.kind != "pure"

    @property
    def num_effect_results(self) -> int:
        return 1 if self.ordered else 0

    def with_results(self, result_avals: Sequence[ShapedArray]) -> HostCallback:
        """The same callback returning `result_avals` (batched results under vmap)."""
        return HostCallback(
            self.fn,
            result_avals,
            self.kind,
            self.num_args,
            ordered=self.ordered,
            vmap_method=self.vmap_method,
            name=self.name,
        )

    def __call__(self, *operands: np.ndarray) -> tuple[np.ndarray, ...]:
        """Runs on the host, called by the program with one NumPy array per operand."""
        outs = self.run(operands[: self.num_args])
        return (*outs, _NO_ORDER) if self.ordered else outs

    def run(self, values: Sequence[Any]) -> tuple[np.ndarray, ...]:
        """Calls `fn` on `values` (host arrays) as JAX does, on a CPU device and outside any trace
        of this thread; checks and returns its results as NumPy arrays."""
        cpu = runtime.devices("cpu")[0]
        with core.outside_traces():
            args = [v if isinstance(v, Array) else from_host(v, device=cpu) for v in values]
            out = self.fn(*args)
        if self.kind == "debug":
            return ()
        return self._checked(out)

    def _checked(self, out: Any) -> tuple[np.ndarray, ...]:
        if not isinstance(out, (tuple, list)) or len(out) != len(self.result_avals):
            count = len(out) if isinstance(out, (tuple, list)) else 1
            raise RuntimeError(
                f"{self.name}: the callback returned {count} values, but "
                f"{len(self.result_avals)} were declared (result_shape_dtypes)"
            )
        checked = []
        for i, (value, aval) in enumerate(zip(out, self.result_avals, strict=True)):
            host = np.asarray(value)
            host = host.astype(dtypes.canonicalize_dtype(host.dtype), copy=False)
            if host.shape != aval.shape or host.dtype != aval.dtype:
                raise RuntimeError(
                    f"{self.name}: result {i} of the callback is {host.dtype.name}"
                    f"{list(host.shape)}, but {aval.str_short()} was declared "
                    "(result_shape_dtypes)"
                )
            checked.append(host)
        return tuple(checked)

    def __repr__(self) -> str:
        return f"HostCallback({self.name}, {self.kind})"


def host_callback(callback: HostCallback, args: Sequence[Any]) -> list[Any]:
    """Calls `callback` on `args`: emitted into the program being traced, or run now.

    Returns its results (arrays of `callback.result_avals`).
    """
    if core.current_trace() is None:
        if callback.ordered:
            # after the ordered effects of programs dispatched earlier
            runtime_effects.effects_barrier()
        outs = callback.run([np.asarray(a) for a in args])
        return [from_host(o) for o in outs]
    deps: list[Any] = []
    if callback.ordered:
        trace = core.operand_trace(args, core.trace_state.target or core.current_trace())
        deps = [cf.effect_chain(trace)]
        core.trace_state.ordered_effects = True
    out = dispatch.bind(HOST_CALLBACK, *args, *deps, callback=callback)
    outs = list(out) if isinstance(out, tuple) else [out]
    if callback.ordered:
        trace.effect_chain = outs.pop()
    return outs


# --- the op ------------------------------------------------------------------------------------


def _rule(*avals: ShapedArray, callback: HostCallback) -> tuple[ShapedArray, ...]:
    return (*callback.result_avals, *((_ORDER,) if callback.ordered else ()))


def _lowering(operands, in_avals, out_avals, *, callback):
    key = core.lowering_trace().add_payload("host_callback", callback)
    payload = {ir_passes.PAYLOAD_ATTRIBUTE: ir.StringAttr.get(key)}
    return ir_passes.emit_marker(
        ir_passes.HOST_CALLBACK, operands, out_avals, payload, callback.has_side_effect
    )


def _decode(op: Any, owner: Any) -> dict[str, Any]:
    return {"callback": ir_passes.payload_of(op, owner.payloads)}


def _jvp(primals, tangents, *, callback):
    if callback.kind == "pure":
        raise ValueError(
            "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks "
            "while taking gradients."
        )
    if callback.kind == "io":
        raise ValueError("IO callbacks do not support JVP.")
    # A debug callback sees the primal values; it has no tangents.
    out = dispatch.bind(HOST_CALLBACK, *primals, callback=callback)
    outs = list(out) if isinstance(out, tuple) else [out]
    return outs, [None] * len(outs)


def _batch(values, dims, *, axis_size, callback):
    n = callback.num_args
    args, arg_dims, deps = list(values[:n]), list(dims[:n]), list(values[n:])
    if all(d is None for d in arg_dims):
        out = dispatch.bind(HOST_CALLBACK, *values, callback=callback)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [None] * len(outs)
    args = [x if d is None else moveaxis(x, d, 0) for x, d in zip(args, arg_dims, strict=True)]
    batched = [d is not None for d in arg_dims]
    if callback.kind == "io" and callback.ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    method = "sequential" if callback.kind == "io" else callback.vmap_method
    if callback.kind == "debug":
        return _unrolled(callback, args, batched, deps, axis_size)
    if method in ("sequential", "sequential_unrolled"):
        return _sequential(callback, args, batched, axis_size, method == "sequential_unrolled")
    if method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        return _vectorized(callback, args, batched, axis_size, method)
    raise NotImplementedError(
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        f"'legacy_vectorized'. Got vmap_method={method!r}."
    )


def _unrolled(callback, args, batched, deps, axis_size):
    # One call per example, in order (JAX's debug callbacks under vmap).
    for i in range(axis_size):
        example = [index_in_dim(x, i, 0, False) if b else x for x, b in zip(args, batched)]
        out = dispatch.bind(HOST_CALLBACK, *example, *deps, callback=callback)
        deps = list(out) if isinstance(out, tuple) else [out]
    return deps, [None] * len(deps)


def _sequential(callback, args, batched, axis_size, unroll):
    # A loop over the examples (JAX's "sequential"), each call on one example.
    mapped = [x for x, b in zip(args, batched, strict=True) if b]

    def step(carry, xs):
        it = iter(xs)
        example = [next(it) if b else x for x, b in zip(args, batched, strict=True)]
        out = dispatch.bind(HOST_CALLBACK, *example, callback=callback)
        return carry, list(out) if isinstance(out, tuple) else [out]

    _, outs = scan(step, (), mapped, length=axis_size, unroll=axis_size if unroll else 1)
    return outs, [0] * len(outs)


def _vectorized(callback, args, batched, axis_size, method):
    # One call on the whole batch: unbatched arguments get a leading axis of 1 ("expand_dims") or
    # of the batch size ("broadcast_all"), or stay as they are ("legacy_vectorized").
    if method != "legacy_vectorized":
        size = axis_size if method == "broadcast_all" else 1
        args = [
            x
            if b
            else broadcast_in_dim(x, (size, *aval_of(x).shape), range(1, aval_of(x).ndim + 1))
            for x, b in zip(args, batched, strict=True)
        ]
    results = [ShapedArray((axis_size, *a.shape), a.dtype) for a in callback.result_avals]
    out = dispatch.bind(HOST_CALLBACK, *args, callback=callback.with_results(results))
    outs = list(out) if isinstance(out, tuple) else [out]
    return outs, [0] * len(outs)


def_op(
    HOST_CALLBACK,
    _rule,
    _lowering,
    decode=_decode,
    decode_reads_owner=True,
    jvp=_jvp,
    batch=_batch,
    cache_eagerly=False,
)


def check_vmap_method(vmap_method: Any) -> None:
    if vmap_method not in _ALL_VMAP_METHODS:
        raise ValueError(
            f"vmap_method must be on of the allowed methods {list(_ALL_VMAP_METHODS)}, but got: "
            f"{vmap_method}"
        )
