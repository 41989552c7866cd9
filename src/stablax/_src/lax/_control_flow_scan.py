"""lax.scan: a `stablehlo.while` marked `stablax.scan`, its batching rule, and the user-facing
`scan`. Its jvp and transpose rules are in _control_flow_scan_ad.py.

The loop's state is (i, carry..., ys..., xs..., consts...): a step counter from 0, the carry, the
stacked outputs being filled, the scanned inputs and the loop-invariant values. Each trip runs
`unroll` steps; a step slices xs at its index, calls the body (a private function of the module,
(carry, x, consts) -> (carry, y)) and writes y into ys. The attribute `stablax.scan = {length,
reverse, num_carry, num_xs, unroll}` lets reverse mode read the loop back as a scan; everything
else about it is in the module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import bodies, core, dispatch, op_rules, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.core import Tracer
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.batching import batch_traced, bdim_at_front, moveaxis
from stablax._src.ir import ir
from stablax._src.lax._argcheck import check_callable

split = cf.split


# A scan is a `stablehlo.while` carrying this attribute (its length, direction and sizes), keyed
# in the op tables as SCAN, so that reverse mode can recognise it.
SCAN_ATTRIBUTE = "stablax.scan"
SCAN = "stablax.scan"


def _is_scan(op: Any) -> bool:
    return SCAN_ATTRIBUTE in op.attributes


def stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def unstacked(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def sizes(body: Any, num_carry: int, num_xs: int) -> tuple[int, int]:
    """(number of ys, number of consts) of a scan body."""
    return len(body.out_avals) - num_carry, len(body.in_avals) - num_carry - num_xs


# --- the construct -----------------------------------------------------------------------------


def _scan_rule(*avals, body, length, reverse, num_carry, num_xs, unroll):
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
    return tuple(avals)


def _scan_lowering(
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


def _decode_scan(op: Any, owner: Any) -> dict[str, Any]:
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


def _zeros(shape, aval):
    """Zeros of exactly `aval`'s dtype and weak type, the buffer of a ys (lax.full canonicalizes:
    uint64 outputs, as rng_bit_generator's keys, would become uint32 without x64)."""
    from stablax._src import lax

    zero = dispatch.weak_scalar(0, aval.dtype, weak_type=aval.weak_type)
    return lax.broadcast_in_dim(zero, shape, ())


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
    from stablax._src import lax

    num_carry, num_xs = len(carry), len(xs)
    y_avals = body.out_avals[num_carry:]
    ys0 = [_zeros((length, *a.shape), a) for a in y_avals]
    outs = cf.bind_construct(
        SCAN,
        [lax.full((), 0, np.int32), *carry, *ys0, *xs, *consts],
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


# --- batching ----------------------------------------------------------------------------------


def _scan_batch(values, dims, *, axis_size, body, length, reverse, num_carry, num_xs, unroll):
    n_c, n_x = num_carry, num_xs
    n_y, _ = sizes(body, n_c, n_x)
    _, c, _, x, k = split(values, 1, n_c, n_y, n_x)
    _, cd, _, xd, kd = split(dims, 1, n_c, n_y, n_x)
    # Batched xs carry their batch dimension at 1 (0 is the scanned axis); the rest at 0.
    x = [v if d is None else moveaxis(v, d, 1) for v, d in zip(x, xd, strict=True)]
    k = [v if d is None else moveaxis(v, d, 0) for v, d in zip(k, kd, strict=True)]
    x_mask = [d is not None for d in xd]
    k_mask = [d is not None for d in kd]
    carry_mask = [d is not None for d in cd]
    while True:
        new_body, out_mask, y_mask, captured = _batched_body(
            body, carry_mask, x_mask, k_mask, n_c, axis_size
        )
        if out_mask == carry_mask:
            break
        carry_mask = [a or b for a, b in zip(carry_mask, out_mask, strict=True)]
    c = [
        bdim_at_front(v, d, axis_size) if m else v
        for v, d, m in zip(c, cd, carry_mask, strict=True)
    ]
    counter, c_out, ys = bind_scan(
        c, x, [*k, *captured], body=new_body, length=length, reverse=reverse, unroll=unroll
    )
    out_dims = [
        None,
        *(0 if m else None for m in carry_mask),
        *(1 if m else None for m in y_mask),
        *(1 if m else None for m in x_mask),
        *(0 if m else None for m in k_mask),
    ]
    return op_results(counter, c_out, ys, x, k), out_dims


def _batched_body(fn, carry_mask, x_mask, k_mask, n_c, axis_size):
    """The body with batched inputs at axis 0; carries in `carry_mask` come out batched at 0,
    ys batched at 0 where the body batches them. Values it captures are trailing consts."""
    masks = [*carry_mask, *x_mask, *k_mask]
    in_avals = [
        ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type) if m else a
        for a, m in zip(fn.in_avals, masks, strict=True)
    ]
    box: dict[str, Any] = {}

    def batched(*args):
        outs, out_dims = batch_traced(fn, args, [0 if m else None for m in masks], axis_size)
        box["out_mask"] = [d is not None for d in out_dims[:n_c]]
        box["y_mask"] = [d is not None for d in out_dims[n_c:]]
        result = []
        for i, (o, d) in enumerate(zip(outs, out_dims, strict=True)):
            force = i < n_c and carry_mask[i]
            result.append(bdim_at_front(o, d, axis_size) if d is not None or force else o)
        return result

    new_body, captured = cf.trace_body(batched, in_avals)
    out_mask = [a or b for a, b in zip(box["out_mask"], carry_mask, strict=True)]
    return new_body, out_mask, box["y_mask"], captured


op_rules.def_op(
    SCAN,
    _scan_rule,
    _scan_lowering,
    decode=_decode_scan,
    decode_reads_owner=True,
    cache_eagerly=False,
    batch=_scan_batch,
    key=("stablehlo.while", _is_scan),
)


# --- the user-facing function ------------------------------------------------------------------


def scan(
    f: Callable,
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
    _split_transpose: bool = False,
) -> tuple[Any, Any]:
    """Loops `carry, y = f(carry, x)` over the leading axis of `xs`, stacking the ys.

    Lowers to a `stablehlo.while` marked `stablax.scan`; differentiable in both modes: reverse
    mode stacks the body's residuals and runs the transposed body backwards. Example:
    `lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))`.

    Args:
      f: (carry, x) -> (carry, y), carry keeping its pytree structure, shapes and dtypes.
      init: the initial carry (a pytree of arrays).
      xs: a pytree of arrays scanned along axis 0, or None (then `length` is required).
      length: the number of steps, when xs is None (or as a check).
      reverse: scan from the end; ys keep the input order.
      unroll: steps per loop iteration (True: the whole loop unrolled).

    Returns:
      (final carry, stacked ys).
    """
    check_callable("lax.scan", f, "f")
    init_leaves, init_tree = tree_util.tree_flatten(init)
    x_leaves, x_tree = tree_util.tree_flatten(xs)
    # the types first, then the lengths, as JAX
    cf.check_leaf_types("scan", [*init_leaves, *x_leaves])
    x_avals = [aval_of(x) for x in x_leaves]
    for a in x_avals:
        if a.ndim == 0:
            raise ValueError(
                "scan got value with no leading axis to scan over: "
                f"{a.str_short()}{mlir.where_suffix()}"
            )
    lengths = [a.shape[0] for a in x_avals]
    if length is not None:
        length = _static_length(length)
        if any(n != length for n in lengths):
            raise ValueError(
                f"scan got `length` argument of {length} which disagrees with leading axis "
                f"sizes {lengths}."
            )
    elif not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    elif len(set(lengths)) > 1:
        raise ValueError(
            f"scan got values with different leading axis sizes: {', '.join(map(str, lengths))}."
        )
    else:
        length = lengths[0]
    n_c = len(init_leaves)
    box: dict[str, Any] = {}

    def flat_body(*args):
        carry = tree_util.tree_unflatten(init_tree, list(args[:n_c]))
        x = tree_util.tree_unflatten(x_tree, list(args[n_c:]))
        out = f(carry, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"scan body output must be a pair, got {_describe(out)}.")
        carry_out, y = out
        c_leaves, c_tree = tree_util.tree_flatten(carry_out)
        if c_tree != init_tree:
            raise TypeError(
                "scan body function carry input and carry output must have the same pytree "
                f"structure, but they differ: the input carry has structure {init_tree} but "
                f"the output carry has structure {c_tree}{mlir.where_suffix()}."
            )
        y_leaves, box["y_tree"] = tree_util.tree_flatten(y)
        return [*c_leaves, *y_leaves]

    def trace(carry):
        return cf.trace_body(flat_body, [*map(aval_of, carry), *map(unstacked, x_avals)])

    traced, captured = trace(init_leaves)
    init_leaves, changed = cf.weak_join(init_leaves, traced.out_avals[:n_c])
    if changed:
        traced, captured = trace(init_leaves)
    cf.check_avals(
        "scan",
        [aval_of(c) for c in init_leaves],
        traced.out_avals[:n_c],
        cf.leaf_paths(init, "c"),
        "scan body function carry input and carry output must have equal types, but they "
        "differ: the body returned {got} where the carry {path} is {expected}, so the {kind} "
        "do not match. Revise the function so that all output types match the corresponding "
        "input types",
    )
    if not isinstance(unroll, bool) and unroll < 0:  # after the carry's types, as JAX
        raise ValueError(
            f"lax.scan: `unroll` must be a `bool` or a non-negative `int`, got {unroll!r}"
            f"{mlir.where_suffix()}"
        )
    if length > np.iinfo(np.int32).max:  # stablax counts steps in int32 (JAX: int64 under x64)
        raise OverflowError(
            f"lax.scan: {length} steps do not fit its int32 step counter (at most 2**31 - 1)"
            f"{mlir.where_suffix()}"
        )
    steps = length if unroll is True else max(1, min(int(unroll), length)) if unroll else 1
    if core.current_trace() is None:  # eagerly: one program, compiled once per fingerprint
        from stablax._src.staging import run_staged

        def staged(*values):
            c, x, k = split(values, n_c, len(x_leaves))
            return _scan_pieces(traced, c, x, k, length, reverse, steps)

        outs = run_staged(staged, [*init_leaves, *x_leaves, *captured])
    else:
        outs = _scan_pieces(traced, init_leaves, x_leaves, captured, length, reverse, steps)
    carry = tree_util.tree_unflatten(init_tree, outs[:n_c])
    ys = tree_util.tree_unflatten(box["y_tree"], outs[n_c:])
    return carry, ys


def _scan_pieces(body, carry, xs, consts, length, reverse, unroll) -> list[Any]:
    """The scan as ops of whole trips: `length - length % unroll` steps of `unroll` per trip, then
    the remainder in one trip. Returns (carry, ys)."""
    from stablax._src import lax

    n_c = len(carry)
    y_avals = body.out_avals[n_c:]
    if length == 0:
        return [*carry, *(_zeros((0, *a.shape), a) for a in y_avals)]
    main = length - length % unroll
    # Forward scans run the leading `main` steps first; reverse scans the trailing ones.
    head = main if not reverse else length - main
    pieces = [(0, head), (head, length)]
    if reverse:
        pieces = pieces[::-1]
    ys_parts: dict[int, list[Any]] = {}
    for start, stop in pieces:
        if stop == start:
            continue
        part = [x if (start, stop) == (0, length) else lax.slice_in_dim(x, start, stop) for x in xs]
        n = stop - start
        _, carry, ys = bind_scan(
            carry,
            part,
            consts,
            body=body,
            length=n,
            reverse=reverse,
            unroll=unroll if n == main else n,
        )
        ys_parts[start] = ys
    ordered = [ys_parts[s] for s in sorted(ys_parts)]
    if len(ordered) == 1:
        return [*carry, *ordered[0]]
    return [*carry, *(lax.concatenate(list(parts), 0) for parts in zip(*ordered, strict=True))]


def _static_length(length: Any) -> int:
    if isinstance(length, Tracer):
        raise core.ConcretizationTypeError(
            f"scan: `length` must be a static Python int, got a traced value{mlir.where_suffix()}"
        )
    return int(length)


def _describe(out: Any) -> str:
    leaves = tree_util.tree_leaves(out)
    if len(leaves) == 1 and not isinstance(out, (tuple, list)):
        return f"~{aval_of(leaves[0]).str_short()}"
    return type(out).__name__
