"""Region bodies of the reduce-like ops (reduce, reduce_window, sort, cumulative reductions):
emitting a body into a region and reading an emitted one back, and the readers of the integer
attributes these ops carry. The monoids themselves are in _reduce_monoids.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.core import Tracer, current_trace, to_tracer
from stablax._src.ir import ir
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax._reduce_monoids import MONOIDS
from stablax._src.lax._reduce_monoids import identity_element as identity_element  # for jnp


def emit_region_body(block: ir.Block, body: Any) -> None:
    """Fills a region's `block` with `body(*scalar tracers) -> tuple`, written with lax functions.

    Lowerings run inside a trace, so lax calls on tracers of the block arguments emit at the
    block's insertion point; the outputs become the block's `stablehlo.return`. Bodies must not
    create constants (Python scalars, `full`): a trace emits those at the end of its function,
    outside the region.
    """
    trace = current_trace()
    args = [Tracer(trace, ShapedArray((), mlir.dtype_of_type(a.type)), a) for a in block.arguments]
    with ir.InsertionPoint(block):
        outs = [to_tracer(trace, o) for o in body(*args)]
        mlir.emit("stablehlo.return", [o.value for o in outs], [])


def emit_monoid_body(block: ir.Block, computation: str, dtype: np.dtype) -> None:
    """The body of a monoid reduction: one binary op on the two scalar block arguments.

    Complex max/min are the exception: XLA's CPU backend compares only the real parts of
    `stablehlo.maximum`, so they are spelled as a lexicographic compare and select, as in JAX.
    """
    if dtype.kind == "c" and computation in ("max", "min"):
        emit_region_body(block, complex_extremum(computation))
        return
    with ir.InsertionPoint(block):
        scalar = mlir.tensor_type((), dtype)
        body = mlir.emit(MONOIDS[computation][0], list(block.arguments), [scalar])
        mlir.emit("stablehlo.return", list(body.results), [])


def complex_extremum(computation: str):
    beats = ew.gt if computation == "max" else ew.lt

    def body(a, b):
        re_a, re_b = unary.real(a), unary.real(b)
        pick_a = ew.select(
            ew.eq(re_a, re_b), beats(unary.imag(a), unary.imag(b)), beats(re_a, re_b)
        )
        return (ew.select(pick_a, a, b),)

    return body


_MONOID_OF_BODY_OP = {op: name for name, (op, _) in MONOIDS.items()}


def computation_of(op: Any) -> str:
    """The `computation` whose body an emitted reduce/reduce_window carries (the decoders' half
    of `emit_monoid_body` and the argmax and logaddexp bodies)."""
    body_ops = [o.operation for o in op.regions[0].blocks[0].operations][:-1]
    if len(body_ops) == 1:
        return _MONOID_OF_BODY_OP[body_ops[0].name]
    if any(o.name == "stablehlo.log_plus_one" for o in body_ops):
        return "logaddexp"
    # argmax/argmin and complex max/min: the first strict comparison says which extreme wins.
    direction = next(
        mlir.stablehlo.ComparisonDirectionAttr(o.attributes["comparison_direction"]).value
        for o in body_ops
        if o.name == "stablehlo.compare"
        and mlir.stablehlo.ComparisonDirectionAttr(o.attributes["comparison_direction"]).value
        in ("GT", "LT")
    )
    extreme = "max" if direction == "GT" else "min"
    return f"arg{extreme}" if len(op.regions[0].blocks[0].arguments) == 4 else extreme


def int_tuple(attr: Any) -> tuple[int, ...]:
    """A DenseI64ArrayAttr (or dense integer elements) as a flat tuple of Python ints."""
    try:
        return tuple(int(v) for v in ir.DenseI64ArrayAttr(attr))
    except (ValueError, TypeError):
        return tuple(int(v) for v in np.asarray(ir.DenseIntElementsAttr(attr)).ravel())


def pad_pairs(attr: Any) -> tuple[tuple[int, int], ...]:
    """A dense Nx2 padding attribute as ((low, high), ...)."""
    flat = int_tuple(attr)
    return tuple(zip(flat[0::2], flat[1::2], strict=True))
