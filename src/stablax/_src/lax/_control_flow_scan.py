"""lax.scan: the scan op's registration with all its rules (batching here, jvp and transpose in
_control_flow_scan_ad.py, the op itself in _control_flow_scan_op.py) and the user-facing `scan`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import core, op_rules, tree_util
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.core import Tracer
from stablax._src.interpreters import control_flow as cf
from stablax._src.interpreters.batching import bdim_at_front, moveaxis
from stablax._src.lax._argcheck import check_callable
from stablax._src.lax._control_flow_scan_ad import scan_jvp, scan_transpose
from stablax._src.lax._control_flow_scan_op import (
    SCAN,
    bind_scan,
    decode_scan,
    is_scan,
    op_results,
    scan_lowering,
    scan_rule,
    sizes,
    unstacked,
    zeros,
)
from stablax._src.lax._slice_pad import concatenate, slice_in_dim
from stablax._src.staging import run_staged

split = cf.split


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
        # Batched carries come out batched, ys where the body batches them; captured values
        # become trailing consts.
        new_body, out_mask, captured = cf.batched_body(
            body, [*carry_mask, *x_mask, *k_mask], [*carry_mask, *[False] * n_y], axis_size
        )
        out_mask, y_mask = out_mask[:n_c], out_mask[n_c:]
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


op_rules.def_op(
    SCAN,
    scan_rule,
    scan_lowering,
    decode=decode_scan,
    decode_reads_owner=True,
    jvp=scan_jvp,
    transpose=scan_transpose,
    batch=_scan_batch,
    key=("stablehlo.while", is_scan),
    cache_eagerly=False,
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
    ordered = cf.has_ordered_effects(traced)
    if ordered:  # the order of effects as one more carry
        carry_avals = [aval_of(c) for c in init_leaves]
        init_leaves = [*init_leaves, cf.effect_chain()]
        traced, captured = cf.trace_body(
            cf.chained(flat_body, n_c, n_c),
            [*carry_avals, aval_of(init_leaves[-1]), *map(unstacked, x_avals)],
        )
        n_c += 1
    if core.current_trace() is None:  # eagerly: one program, compiled once per fingerprint

        def staged(*values):
            c, x, k = split(values, n_c, len(x_leaves))
            return _scan_pieces(traced, c, x, k, length, reverse, steps)

        outs = run_staged(staged, [*init_leaves, *x_leaves, *captured])
    else:
        outs = _scan_pieces(traced, init_leaves, x_leaves, captured, length, reverse, steps)
    if ordered:
        n_c -= 1
        outs = cf.end_chain(outs, n_c)
    carry = tree_util.tree_unflatten(init_tree, outs[:n_c])
    ys = tree_util.tree_unflatten(box["y_tree"], outs[n_c:])
    return carry, ys


def _scan_pieces(body, carry, xs, consts, length, reverse, unroll) -> list[Any]:
    """The scan as ops of whole trips: `length - length % unroll` steps of `unroll` per trip, then
    the remainder in one trip. Returns (carry, ys)."""
    n_c = len(carry)
    y_avals = body.out_avals[n_c:]
    if length == 0:
        return [*carry, *(zeros((0, *a.shape), a) for a in y_avals)]
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
        part = [x if (start, stop) == (0, length) else slice_in_dim(x, start, stop) for x in xs]
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
    return [*carry, *(concatenate(list(parts), 0) for parts in zip(*ordered, strict=True))]


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
