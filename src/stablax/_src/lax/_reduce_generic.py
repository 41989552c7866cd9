"""`lax.reduce` with any computation: the body is the traced Python computation.

A computation is traced on scalars of the init values' avals (pytrees in, the same pytree out).
One binary monoid op of the two arguments (`lambda a, b: a + b`, `jnp.maximum`) takes the monoid
path of _reductions.py and keeps its derivatives; anything else becomes a `stablehlo.reduce`
whose `computation` parameter is the closed traced body (a function, not a monoid's name) and
whose op carries GENERIC_ATTRIBUTE, so that the decoder reads its region back as that body.

Rules of the generic op, as JAX's `reduce_p`: batching of batched operands (a batched init
value raises NotImplementedError), and a JVP that reduces (primal, tangent) pairs in a balanced
tree with the JVP of the body (init values must have zero tangents).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import bodies, core, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import Tracer
from stablax._src.dispatch import bind
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.ad import jvp_traced
from stablax._src.interpreters.interpret import interpret
from stablax._src.ir import ir
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._shapes import batch_at, broadcast_in_dim, full, reshape, transpose
from stablax._src.lax._slice_pad import pad, slice_in_dim
from stablax._src.staging import run_staged

GENERIC_ATTRIBUTE = "stablax.generic_body"

_MONOID_OPS = {
    "stablehlo.add": "add",
    "stablehlo.multiply": "mul",
    "stablehlo.maximum": "max",
    "stablehlo.minimum": "min",
    "stablehlo.and": "and",
    "stablehlo.or": "or",
    "stablehlo.xor": "xor",
}


# --- tracing the computation -------------------------------------------------------------------


def flatten_args(opname: str, operands: Any, init_values: Any):
    """(flat operands, flat init values, their tree), with JAX's structure checks."""
    flat_operands, tree = tree_util.tree_flatten(operands)
    flat_inits, init_tree = tree_util.tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError(
            "Operands must have the same tree structure as init_values: "
            f"{tree} vs. {init_tree}{mlir.where_suffix()}"
        )
    return flat_operands, flat_inits, tree


def trace_computation(opname: str, computation: Callable, init_avals, tree) -> tuple[Any, Any]:
    """The computation as a closed function of 2k scalars (the k accumulated values, then the k
    new ones), and the tree of its result."""
    check_callable(f"lax.{opname}", computation, "computation")  # where JAX would call it
    k = len(init_avals)
    box: dict[str, Any] = {}

    def flat(*args):
        xs = tree_util.tree_unflatten(tree, list(args[:k]))
        ys = tree_util.tree_unflatten(tree, list(args[k:]))
        leaves, box["tree"] = tree_util.tree_flatten(computation(xs, ys))
        return leaves

    avals = [ShapedArray((), a.dtype, a.weak_type) for a in init_avals]
    fn, captured = cf.trace_body(flat, [*avals, *avals])
    if captured and not any(isinstance(c, Tracer) for c in captured):
        # Concrete arrays it closes over become constants of the body.
        consts = [np.asarray(c) for c in captured]
        closed = fn
        fn, captured = cf.trace_body(
            lambda *args: interpret(closed, [*args, *consts]), [*avals, *avals]
        )
    if captured:
        raise NotImplementedError(
            "Reduction computations can't close over Tracers (stablax: pass such values as "
            f"operands){mlir.where_suffix()}"
        )
    return fn, box["tree"]


def check_outputs(opname: str, fn: Any, init_avals) -> None:
    """The traced computation returns scalars of the init values' dtypes: checked after the
    init values themselves, as JAX's abstract evaluation does (ValueError, its verifier's)."""
    got = [(a.shape, a.dtype) for a in fn.out_avals]
    want = [((), a.dtype) for a in init_avals]
    if got != want:
        raise ValueError(
            f"lax.{opname}: the computation must return scalars of the init values' dtypes "
            f"{[a.dtype.name for a in init_avals]} in their structure, got "
            f"{[ShapedArray(s, d).str_short() for s, d in got]}{mlir.where_suffix()}"
        )


def monoid_of(fn: Any) -> str | None:
    """The monoid a traced two-argument computation is (one monoid op of its two arguments,
    either order: all are commutative), or None."""
    inputs, ops, outputs = fn.parts()
    if len(inputs) != 2 or len(ops) != 1 or len(outputs) != 1:
        return None
    (op,) = ops
    name = _MONOID_OPS.get(op.name)
    if name is None or list(op.results) != outputs:
        return None
    operands = list(op.operands)
    if operands not in ([inputs[0], inputs[1]], [inputs[1], inputs[0]]):
        return None
    if aval_of_value(op.results[0]).dtype.kind == "c" and name in ("max", "min"):
        return None  # the monoid path compares complex numbers lexicographically
    return name


def aval_of_value(value: Any) -> ShapedArray:
    return bodies.aval_of_value(value)


def check_inits(opname: str, operand_avals, init_avals) -> None:
    """JAX's checks of a generic reduction's init values: scalars, of the operands' dtypes."""
    shapes = [a.shape for a in init_avals if a.shape != ()]
    if shapes:  # JAX's class
        raise ValueError(
            f"lax.{opname}: init_values must be scalars, got shape {shapes[0]}{mlir.where_suffix()}"
        )
    if [a.dtype for a in operand_avals] != [a.dtype for a in init_avals]:
        raise TypeError(
            f"lax.{opname}: operand dtypes should match corresponding initial value dtypes, got "
            f"operands={[a.str_short() for a in operand_avals]} and initial_values="
            f"{[a.str_short() for a in init_avals]}{mlir.where_suffix()}"
        )


def bind_generic(key: str, operands: Sequence[Any], **params: Any) -> list[Any]:
    """Binds a generic reduction; eagerly, as one program staged from the values (its params
    hold a function, so no one-op executable is cached for it)."""
    if core.current_trace() is None:
        return run_staged(lambda *v: cf.bind_construct(key, v, **params), list(operands))
    return cf.bind_construct(key, operands, **params)


def reduce_generic(flat_operands, flat_inits, computation_fn, dims) -> list[Any]:
    return bind_generic(
        "stablehlo.reduce", [*flat_operands, *flat_inits], computation=computation_fn, axes=dims
    )


# --- the op's rules (called by _reductions.py's for a function-valued `computation`) ----------


def reduce_rule(*avals: ShapedArray, computation: Any, axes: tuple[int, ...]):
    k = len(avals) // 2
    operands, inits = avals[:k], avals[k:]
    check_inits("reduce", operands, inits)
    shapes = {x.shape for x in operands}
    if len(shapes) != 1:
        raise ValueError(
            f"lax.reduce: operands must have one shape, got "
            f"{[x.str_short() for x in operands]}{mlir.where_suffix()}"
        )
    return tuple(
        ShapedArray(
            tuple(d for i, d in enumerate(x.shape) if i not in axes),
            x.dtype,
            x.weak_type and init.weak_type,
        )
        for x, init in zip(operands, inits, strict=True)
    )


def emit_body(op: Any, computation: Any, in_avals: Sequence[ShapedArray]) -> None:
    """Fills the region of a generic reduce/reduce_window with the body, and marks the op."""
    scalars = [mlir.tensor_type((), a.dtype) for a in in_avals[len(in_avals) // 2 :]]
    cf.emit_region_body(op.regions[0], computation, lambda args: args, [*scalars, *scalars])
    op.attributes[GENERIC_ATTRIBUTE] = ir.UnitAttr.get()


def decode_body(op: Any, owner: Any) -> Any:
    """The body of a generic reduce/reduce_window read back from its region."""
    return bodies.Region(owner, op.regions[0], bodies.free_values(op))


def is_generic(op: Any) -> bool:
    return GENERIC_ATTRIBUTE in op.attributes


def reduce_batch(values, dims, *, axis_size, computation, axes):
    k = len(values) // 2
    if any(d is not None for d in dims[k:]):
        raise NotImplementedError(
            f"[vmap] lax.reduce with a batched initial value and a general computation is not "
            f"implemented (as in JAX){mlir.where_suffix()}"
        )
    arrays = [batch_at(x, d, 0, axis_size) for x, d in zip(values[:k], dims[:k], strict=True)]
    outs = bind(
        "stablehlo.reduce",
        *arrays,
        *values[k:],
        computation=computation,
        axes=tuple(a + 1 for a in axes),
    )
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    return outs, [0] * len(outs)


# --- jvp: a balanced tree of pairwise reductions, differentiated through the body -------------


def elementwise(fn: Any, size: int, primals, tangents):
    """The JVP of the scalar body `fn` applied elementwise to flat (size,) arrays."""
    batched, _, captured = cf.batched_body(
        fn, [True] * len(primals), [True] * len(fn.out_avals), size
    )
    return jvp_traced(batched, [*primals, *captured], [*tangents, *([None] * len(captured))])


def reduce_jvp(primals, tangents, *, computation, axes):
    k = len(primals) // 2
    xs, inits = list(primals[:k]), list(primals[k:])
    txs, t_inits = list(tangents[:k]), tangents[k:]
    if any(t is not None for t in t_inits):
        raise NotImplementedError(
            "Gradient of general lax.reduce with non-zero tangents for initial values to "
            f"reduction not implemented{mlir.where_suffix()}"
        )
    shape = aval_of(xs[0]).shape
    kept = [d for d in range(len(shape)) if d not in axes]
    kept_shape = tuple(shape[d] for d in kept)
    n = int(np.prod([shape[d] for d in axes], dtype=np.int64))
    rest = int(np.prod(kept_shape, dtype=np.int64))

    def to_rows(x):  # the reduced axes first, flattened: (n, rest)
        return None if x is None else reshape(transpose(x, (*axes, *kept)), (n, rest))

    xs, txs = [to_rows(x) for x in xs], [to_rows(t) for t in txs]
    while n > 1:
        n1 = (n + 1) // 2
        n2 = n - n1
        first = [_slice_rows(x, 0, n1) for x in xs]
        second = [_slice_rows(x, n1, n) for x in xs]
        t_first = [None if t is None else _slice_rows(t, 0, n1) for t in txs]
        t_second = [None if t is None else _slice_rows(t, n1, n) for t in txs]
        if n2 != n1:  # the odd row meets the init values
            second = [pad(x, i, [(0, 1, 0), (0, 0, 0)]) for x, i in zip(second, inits)]
            t_second = [
                None if t is None else pad(t, _zero_of(t), [(0, 1, 0), (0, 0, 0)]) for t in t_second
            ]
        size = n1 * rest
        flat = [reshape(x, (size,)) for x in [*first, *second]]
        t_flat = [None if t is None else reshape(t, (size,)) for t in [*t_first, *t_second]]
        outs, touts = elementwise(computation, size, flat, t_flat)
        xs = [reshape(o, (n1, rest)) for o in outs]
        txs = [None if t is None else reshape(t, (n1, rest)) for t in touts]
        n = n1
    if n == 0:
        outs = [broadcast_in_dim(i, kept_shape, ()) for i in inits]
        return outs, [None] * k
    outs = [reshape(x, kept_shape) for x in xs]
    return outs, [None if t is None else reshape(t, kept_shape) for t in txs]


def _slice_rows(x: Any, start: int, stop: int) -> Any:
    return slice_in_dim(x, start, stop, axis=0)


def _zero_of(t: Any) -> Any:
    return full((), 0, aval_of(t).dtype)
