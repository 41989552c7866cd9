"""The scan op: a `stablehlo.while` marked `stablax.scan`, its layout, shape rule, lowering,
decoder and `bind_scan`, shared by the scan's rules (_control_flow_scan_ad.py) and its
registration with the user-facing `scan` (_control_flow_scan.py).

The loop's state is (i, carry..., ys..., xs..., consts...): a step counter from 0, the carry, the
stacked outputs being filled, the scanned inputs and the loop-invariant values. Each trip runs
`unroll` steps; a step slices xs at its index, calls the body (a private function of the module,
(carry, x, consts) -> (carry, y)) and writes y into ys. The attribute `stablax.scan = {length,
reverse, num_carry, num_xs, unroll}` lets reverse mode read the loop back as a scan; everything
else about it is in the module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import bodies, core, dispatch
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray
from stablax._src.interpreters import control_flow as cf
from stablax._src.ir import ir
from stablax._src.lax._shapes import broadcast_in_dim, full

split = cf.split


# A scan is a `stablehlo.while` carrying this attribute (its length, direction and sizes), keyed
# in the op tables as SCAN, so that reverse mode can recognise it.
SCAN_ATTRIBUTE = "stablax.scan"
SCAN = "stablax.scan"


def is_scan(op: Any) -> bool:
    return SCAN_ATTRIBUTE in op.attributes


def stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def unstacked(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def sizes(body: Any, num_carry: int, num_xs: int) -> tuple[int, int]:
    """(number of ys, number of consts) of a scan body."""
    return len(body.out_avals) - num_carry, len(body.in_avals) - num_carry - num_xs


# --- the construct -----------------------------------------------------------------------------


def scan_rule(*avals, body, length, reverse, num_carry, num_xs, unroll):
    n_y, n_k = sizes(body, num_carry, num_xs)
    where = mlir.where_suffix()
    if len(avals) != 1 + num_carry + n_y + num_xs + n_k:
        raise TypeError(f"lax.scan: {len(avals)} operands do not fit the loop's layout{where}")
    i, carry, ys, xs, consts = split(avals, 1, num_carry, n_y, num_xs)
    expected = [a.strip_weak_type() for a in body.in_avals]
    got = [a.strip_weak_type() for a in [*carry, *(unstacked(x) for x in xs), *consts]]
    y_avals = [stacked(y, length).strip_weak_type() for y in body.out_avals[num_carry:]]
    if (
        i[0].shape != ()
        or i[0].dtype != np.int32
        or any(x.ndim == 0 or x.shape[0] != length for x in xs)
        or got != expected
        or [y.strip_weak_type() for y in ys] != y_avals
        or length % unroll
    ):
        raise TypeError(
            f"lax.scan: operands {[a.str_short() for a in avals]} do not match a body of "
            f"{[a.str_short() for a in body.in_avals]} over {length} steps{where}"
        )
    # The carries are typed as the body's results (weak only where the body's are, as in JAX).
    carry_out = [c.update(weak_type=o.weak_type) for c, o in zip(carry, body.out_avals)]
    return (*i, *carry_out, *ys, *xs, *consts)


def scan_lowering(
    operands, in_avals, out_avals, *, body, length, reverse, num_carry, num_xs, unroll
):
    name = bodies.add_function(core.lowering_trace(), body, "scan_body")
    n_y, _ = sizes(body, num_carry, num_xs)
    x_avals = body.in_avals[num_carry : num_carry + num_xs]
    y_avals = body.out_avals[num_carry:]
    result_types = [mlir.aval_type(a) for a in body.out_avals]
    types = [v.type for v in operands]
    attribute = ir.DictAttr.get(
        {
            "length": mlir.i64(length),
            "reverse": mlir.bool_attr(reverse),
            "num_carry": mlir.i64(num_carry),
            "num_xs": mlir.i64(num_xs),
            "unroll": mlir.i64(unroll),
        }
    )
    loop = mlir.emit("stablehlo.while", operands, types, {SCAN_ATTRIBUTE: attribute}, regions=2)
    cond_block = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        cf.emit_return([_compare(cond_block.arguments[0], cf.scalar_i32(length), "LT")])
    body_block = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        i, carry, ys, xs, consts = split(list(body_block.arguments), 1, num_carry, n_y, num_xs)
        i = i[0]
        for s in range(unroll):
            step = i if s == 0 else _add(i, cf.scalar_i32(s))
            idx = _sub(cf.scalar_i32(length - 1), step) if reverse else step
            zero = cf.scalar_i32(0)
            slices = []
            for x, a in zip(xs, x_avals, strict=True):
                shape = [1, *a.shape]
                piece = mlir.emit(
                    "stablehlo.dynamic_slice",
                    [x, idx, *([zero] * a.ndim)],
                    [mlir.tensor_type(shape, a.dtype)],
                    {"slice_sizes": mlir.i64_array(shape)},
                ).result
                slices.append(_reshape(piece, a.shape, a.dtype))
            call = mlir.emit(
                "func.call",
                [*carry, *slices, *consts],
                result_types,
                {"callee": ir.FlatSymbolRefAttr.get(name)},
            )
            outs = list(call.results)
            carry = outs[:num_carry]
            ys = [
                mlir.emit(
                    "stablehlo.dynamic_update_slice",
                    [y_stack, _reshape(y, (1, *a.shape), a.dtype), idx, *([zero] * a.ndim)],
                    [y_stack.type],
                ).result
                for y_stack, y, a in zip(ys, outs[num_carry:], y_avals, strict=True)
            ]
        cf.emit_return([_add(i, cf.scalar_i32(unroll)), *carry, *ys, *xs, *consts])
    return list(loop.results)


def decode_scan(op: Any, owner: Any) -> dict[str, Any]:
    attribute = ir.DictAttr(op.attributes[SCAN_ATTRIBUTE])
    call = next(o.operation for o in op.regions[1].blocks[0].operations if o.name == "func.call")
    callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
    return {
        "body": bodies.Callee(owner, callee),
        "length": ir.IntegerAttr(attribute["length"]).value,
        "reverse": ir.BoolAttr(attribute["reverse"]).value,
        "num_carry": ir.IntegerAttr(attribute["num_carry"]).value,
        "num_xs": ir.IntegerAttr(attribute["num_xs"]).value,
        "unroll": ir.IntegerAttr(attribute["unroll"]).value,
    }


def zeros(shape, aval):
    """Zeros of exactly `aval`'s dtype and weak type, the buffer of a ys (lax.full canonicalizes:
    uint64 outputs, as rng_bit_generator's keys, would become uint32 without x64)."""
    zero = dispatch.weak_scalar(0, aval.dtype, weak_type=aval.weak_type)
    return broadcast_in_dim(zero, shape, ())


def _reshape(value, shape, dtype):
    return mlir.emit("stablehlo.reshape", [value], [mlir.tensor_type(shape, dtype)]).result


def _add(a, b):
    return mlir.emit("stablehlo.add", [a, b], [a.type]).result


def _sub(a, b):
    return mlir.emit("stablehlo.subtract", [a, b], [a.type]).result


def _compare(a, b, direction: str):
    attrs = {"comparison_direction": mlir.stablehlo.ComparisonDirectionAttr.get(direction)}
    return mlir.emit(
        "stablehlo.compare", [a, b], [mlir.tensor_type((), np.dtype(bool))], attrs
    ).result


def bind_scan(
    carry: Sequence[Any],
    xs: Sequence[Any],
    consts: Sequence[Any],
    *,
    body: Any,
    length: int,
    reverse: bool,
    unroll: int,
) -> tuple[Any, list[Any], list[Any]]:
    """One scan op over (carry, xs, consts); returns (its step counter, carry out, ys)."""
    num_carry, num_xs = len(carry), len(xs)
    y_avals = body.out_avals[num_carry:]
    ys0 = [zeros((length, *a.shape), a) for a in y_avals]
    outs = cf.bind_construct(
        SCAN,
        [full((), 0, np.int32), *carry, *ys0, *xs, *consts],
        body=body,
        length=length,
        reverse=bool(reverse),
        num_carry=num_carry,
        num_xs=num_xs,
        unroll=unroll,
    )
    return outs[0], outs[1 : 1 + num_carry], outs[1 + num_carry : 1 + num_carry + len(y_avals)]


def op_results(counter: Any, carry, ys, xs, consts) -> list[Any]:
    """A rule's outputs in the op's layout: the loop returns its xs and consts unchanged."""
    return [counter, *carry, *ys, *xs, *consts]
