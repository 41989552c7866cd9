"""checkify's checks of divisions (`div_checks`) and of indexing (`index_checks`): the rules of
`stablehlo.divide`, `dynamic_slice`, `dynamic_update_slice`, `gather` and `scatter`.

An out-of-bounds failure carries int32[3] (the first bad index, its axis, the axis's size), the
index a program gave before XLA clamped it, as JAX reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import bodies, lax
from stablax._src.avals import aval_of
from stablax._src.interpreters.interpret import eval_op
from stablax._src.ir import ir
from stablax._src.transforms.checkify_error import Error, assert_failure
from stablax._src.transforms.checkify_kinds import (
    DivisionByZeroError,
    NaNError,
    OOBError,
    failure,
    location_of,
)
from stablax._src.transforms.checkify_walker import Walk, any_of, check_nans, record_nans, rules

# --- division by zero --------------------------------------------------------------------------


def _divide_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    outs = eval_op(op, values, walk.owner)
    if DivisionByZeroError in walk.enabled:
        divisor = _divisor(op, walk, values[1])
        any_zero = any_of(lax.eq(divisor, lax.full_like(divisor, 0)))
        template, payload = failure(DivisionByZeroError, location_of(op))
        error = assert_failure(error, any_zero, template, payload)
    if NaNError in walk.enabled:
        error = check_nans(op, "stablehlo.divide", outs, error)
    return error, outs


def _divisor(op: Any, walk: Walk, divisor: Any) -> Any:
    """The divisor the program gave: an integer division divides by `select(y == 0, 1, y)` (XLA
    folds x / 0 badly), so `y` is read through the select its lowering adds."""
    select = _made_by(op.operands[1], "stablehlo.select")
    if select is None:
        return divisor
    y = select.operands[2]
    compare = _made_by(select.operands[0], "stablehlo.compare")
    if compare is None or compare.operands[0] != y:
        return divisor
    return walk.env.get(y, divisor)


def _made_by(value: Any, name: str) -> Any:
    value = value.maybe_downcast()
    if not isinstance(value, ir.OpResult):
        return None
    op = value.owner.operation
    return op if op.name == name else None


def _clamped(indices: Any) -> Any:
    """The indices clamped by `select(i > high, high, select(i < low, low, i))` (the lowering of
    a CLIP or FILL_OR_DROP gather/scatter) as the value `i`, or None if not made so."""
    high = _made_by(indices, "stablehlo.select")
    low = None if high is None else _made_by(high.operands[2], "stablehlo.select")
    if low is None or not (_compares(high, "GT") and _compares(low, "LT")):
        return None
    return low.operands[2]


def _compares(select: Any, direction: str) -> bool:
    """Whether `select(compare(a, b), b, a)` compares a to b in `direction`."""
    compare = _made_by(select.operands[0], "stablehlo.compare")
    return (
        compare is not None
        and f"{direction}>" in str(compare.attributes["comparison_direction"])
        and compare.operands[0] == select.operands[2]
        and compare.operands[1] == select.operands[1]
    )


def _given_indices(op: Any, walk: Walk, indices: Any) -> Any:
    """The indices the program gave a gather/scatter, before a CLIP or FILL_OR_DROP lowering
    clamped them (JAX checks the indices it was given)."""
    raw = _clamped(op.operands[1])
    return indices if raw is None else walk.env.get(raw, indices)


def _shown_shape(operand: Any, sizes: Sequence[int]) -> tuple[int, ...]:
    """The shape of the array a dynamic slice indexes, as JAX names it: where the operand is a
    static slice of an array (`x[1, i]` slices row 1, then slices dynamically), that array's
    shape, if the static slice is whole along every axis the dynamic one can move on."""
    shape = bodies.aval_of_value(operand).shape
    sliced = _made_by(operand, "stablehlo.slice")
    if sliced is None:
        return tuple(shape)
    source = bodies.aval_of_value(sliced.operands[0]).shape
    movable = [d for d, (n, s) in enumerate(zip(shape, sizes, strict=True)) if s != n]
    if any(shape[d] != source[d] for d in movable):
        return tuple(shape)
    return tuple(source)


rules["stablehlo.divide"] = _divide_rule


# --- out-of-bounds indices ---------------------------------------------------------------------


def _out_of_bounds(
    op: Any,
    error: Error,
    indices: Any,
    upper: Sequence[int],
    axes: Sequence[int],
    operand_shape: Sequence[int],
    prim: str,
    shown_shape: Sequence[int] | None = None,
) -> Error:
    """`error` with an OOBError where an index of `indices` (its last dimension addresses the
    operand's `axes`) is negative or above its `upper` bound; the message names `shown_shape`
    (by default the operand's)."""
    aval = aval_of(indices)
    bound = lax.broadcast_in_dim(np.asarray(upper, aval.dtype), aval.shape, (aval.ndim - 1,))
    below = lax.lt(indices, lax.full_like(indices, 0))
    mask = lax.bitwise_or(below, lax.gt(indices, bound))
    template, payload = failure(
        OOBError,
        location_of(op),
        (prim, tuple(operand_shape if shown_shape is None else shown_shape)),
        [_payload(mask, indices, axes, operand_shape)],
    )
    return assert_failure(error, any_of(mask), template, payload)


def _payload(mask: Any, indices: Any, axes: Sequence[int], operand_shape: Sequence[int]) -> Any:
    """int32[3]: the first flagged index in row-major order, the axis it addresses, its size."""
    size = int(np.prod(aval_of(mask).shape))
    if size == 0:
        return np.zeros(3, np.int32)
    flat_mask = lax.convert_element_type(lax.reshape(mask, (size,)), np.int32)
    first = lax.argmax(flat_mask, 0, np.int32)
    component = lax.rem(first, np.int32(len(axes)))
    axis = _take(np.asarray(axes, np.int32), component)
    axis_size = _take(np.asarray(operand_shape, np.int32), axis)
    index = lax.convert_element_type(_take(lax.reshape(indices, (size,)), first), np.int32)
    return lax.concatenate([lax.reshape(v, (1,)) for v in (index, axis, axis_size)], 0)


def _take(vector: Any, index: Any) -> Any:
    return lax.dynamic_index_in_dim(vector, index, 0, False, allow_negative_indices=False)


def _starts(values: Sequence[Any]) -> Any:
    return lax.concatenate([lax.reshape(v, (1,)) for v in values], 0)


def _dynamic_slice_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    outs = eval_op(op, values, walk.owner)
    if OOBError in walk.enabled:
        shape = aval_of(values[0]).shape
        sizes = walk.params(op)["slice_sizes"]
        upper = [d - s for d, s in zip(shape, sizes, strict=True)]
        starts, axes = _starts(values[1:]), range(len(shape))
        shown = _shown_shape(op.operands[0], sizes)
        prim = "dynamic_slice"
        error = _out_of_bounds(op, error, starts, upper, axes, shape, prim, shown)
    return error, outs


def _dynamic_update_slice_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    outs = eval_op(op, values, walk.owner)
    if OOBError in walk.enabled:
        shape, sizes = aval_of(values[0]).shape, aval_of(values[1]).shape
        upper = [d - s for d, s in zip(shape, sizes, strict=True)]
        starts = _starts(values[2:])
        prim = "dynamic_update_slice"
        error = _out_of_bounds(op, error, starts, upper, range(len(shape)), shape, prim)
    return error, outs


def _gather_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    outs = eval_op(op, values, walk.owner)
    if OOBError in walk.enabled:
        params = walk.params(op)
        axes = params["dimension_numbers"].start_index_map
        shape, sizes = aval_of(values[0]).shape, params["slice_sizes"]
        upper = [shape[a] - sizes[a] for a in axes]
        indices = _given_indices(op, walk, values[1])
        error = _out_of_bounds(op, error, indices, upper, axes, shape, "gather")
    return error, outs


# JAX's names of its scatter primitives, by the computation combining an update.
_SCATTER_NAMES = {
    "replace": "scatter",
    "add": "scatter-add",
    "mul": "scatter-mul",
    "min": "scatter-min",
    "max": "scatter-max",
}


def _scatter_rule(op: Any, values: list[Any], walk: Walk, error: Error):
    outs = eval_op(op, values, walk.owner)
    if OOBError not in walk.enabled:  # as JAX: a scatter's NaN check comes with index checks
        return error, outs
    params = walk.params(op)
    dn = params["dimension_numbers"]
    operand, updates = aval_of(values[0]), aval_of(values[2])
    window = iter(dn.update_window_dims)
    sizes = [
        1
        if d in dn.inserted_window_dims or d in dn.operand_batching_dims
        else updates.shape[next(window)]
        for d in range(operand.ndim)
    ]
    axes = dn.scatter_dims_to_operand_dims
    upper = [operand.shape[a] - sizes[a] for a in axes]
    prim = _SCATTER_NAMES.get(params["computation"], "scatter")
    indices = _given_indices(op, walk, values[1])
    error = _out_of_bounds(op, error, indices, upper, axes, operand.shape, prim)
    if NaNError in walk.enabled:
        error = record_nans(op, prim, outs, error)
    return error, outs


rules["stablehlo.dynamic_slice"] = _dynamic_slice_rule
rules["stablehlo.dynamic_update_slice"] = _dynamic_update_slice_rule
rules["stablehlo.gather"] = _gather_rule
rules["stablehlo.scatter"] = _scatter_rule
