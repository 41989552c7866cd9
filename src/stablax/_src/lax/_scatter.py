"""`scatter` and its combining forms (add, sub, mul, min, max, apply): out-of-bounds updates are
dropped by default (`mode="drop"`), or clamped (`mode="clip"`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind, weak_scalar
from stablax._src.interpreters.ad import is_undefined
from stablax._src.interpreters.batching import bdim_at_front, moveaxis
from stablax._src.ir import ir
from stablax._src.lax._argcheck import check_callable, lax_ints
from stablax._src.lax._elementwise import (
    add,
    div,
    eq,
    mul,
    select,
)
from stablax._src.lax._elementwise_common import (
    ANY,
    NUMBER,
    _scalar_operand,
    check_dtype,
)
from stablax._src.lax._elementwise_unary import neg
from stablax._src.lax._gather import _gather
from stablax._src.lax._gather_scatter_dims import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _check_batching,
    _check_dims,
    _check_indices,
    _clamp_indices,
    _flag,
    _normalize_dnums,
    _parse_mode,
    _scatter_window_sizes,
    _shifted,
    _value_error,
    _window_bounds,
)
from stablax._src.lax._reduce_bodies import MONOIDS, computation_of, emit_monoid_body
from stablax._src.lax._shapes import (
    _error as _type_error,
)
from stablax._src.lax._shapes import convert_element_type, full
from stablax._src.lax._slicing import _zeros, _zeros_like
from stablax._src.op_rules import def_op

# --- scatter -----------------------------------------------------------------------------------

# The region combines the current value and the update: "replace" returns the update, the others
# are reduction monoids (their bodies and decoding are shared with `stablehlo.reduce`).
SCATTER_COMPUTATIONS = ("replace", "add", "mul", "min", "max")


def _scatter_shape(
    name: str,
    computation: str,
    operand: ShapedArray,
    indices: ShapedArray,
    updates: ShapedArray,
    dn: ScatterDimensionNumbers,
) -> ShapedArray:
    check_dtype(name, operand.dtype, MONOIDS[computation][1] if computation in MONOIDS else ANY)
    if updates.dtype != operand.dtype:
        raise _type_error(
            name,
            "operand and updates must have the same dtype, got "
            f"{operand.str_short()} and {updates.str_short()}",
        )
    _check_indices(
        name,
        indices,
        dn.scatter_dims_to_operand_dims,
        "scatter_dims_to_operand_dims",
        operand.ndim,
        dn.operand_batching_dims,
    )
    if updates.ndim != len(dn.update_window_dims) + indices.ndim - 1:
        raise _type_error(
            name,
            f"updates {updates.str_short()} must have rank "
            f"{len(dn.update_window_dims) + indices.ndim - 1}: the window "
            f"dimensions plus the batch dimensions of {indices.str_short()}",
        )
    _check_dims(name, "update_window_dims", dn.update_window_dims, updates.ndim)
    _check_dims(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
    _check_batching(
        name,
        operand,
        indices,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
        "scatter_indices",
    )
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_dims = [d for d in range(operand.ndim) if d not in dropped]
    if len(dropped) != len(dn.inserted_window_dims) + len(dn.operand_batching_dims) or len(
        window_dims
    ) != len(dn.update_window_dims):
        raise _type_error(
            name,
            f"update_window_dims {dn.update_window_dims}, inserted_window_"
            f"dims {dn.inserted_window_dims} and operand_batching_dims "
            f"{dn.operand_batching_dims} must together cover the "
            f"{operand.ndim} dimensions of {operand.str_short()} once",
        )
    windows = [updates.shape[d] for d in dn.update_window_dims]
    scatter_sizes = [s for d, s in enumerate(updates.shape) if d not in dn.update_window_dims]
    if any(w > operand.shape[d] for w, d in zip(windows, window_dims, strict=True)) or (
        scatter_sizes != list(indices.shape[:-1])
    ):
        raise _type_error(
            name,
            f"updates {updates.str_short()} do not match: windows must fit "
            f"in {operand.str_short()} and the other dimensions must equal the "
            f"batch dimensions of {indices.str_short()}",
        )
    return operand


def _scatter_rule(
    operand: ShapedArray,
    indices: ShapedArray,
    updates: ShapedArray,
    *,
    computation: str,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool,
    unique_indices: bool,
) -> ShapedArray:
    name = "scatter" if computation == "replace" else f"scatter_{computation}"
    if computation not in SCATTER_COMPUTATIONS:
        raise _value_error("scatter", f"unknown computation {computation!r}")
    return _scatter_shape(name, computation, operand, indices, updates, dimension_numbers)


def _scatter_lowering(
    operands,
    in_avals,
    out_avals,
    *,
    computation,
    dimension_numbers,
    indices_are_sorted,
    unique_indices,
):
    dn = dimension_numbers
    attr = mlir.stablehlo.ScatterDimensionNumbers.get(
        update_window_dims=list(dn.update_window_dims),
        inserted_window_dims=list(dn.inserted_window_dims),
        input_batching_dims=list(dn.operand_batching_dims),
        scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
        index_vector_dim=in_avals[1].ndim - 1,
    )
    op = mlir.emit(
        "stablehlo.scatter",
        operands,
        [mlir.aval_type(out_avals[0])],
        {
            "scatter_dimension_numbers": attr,
            "indices_are_sorted": mlir.bool_attr(indices_are_sorted),
            "unique_indices": mlir.bool_attr(unique_indices),
        },
        regions=1,
    )
    scalar = mlir.tensor_type((), in_avals[0].dtype)
    block = op.regions[0].blocks.append(scalar, scalar)
    if computation == "replace":
        with ir.InsertionPoint(block):
            mlir.emit("stablehlo.return", [block.arguments[1]], [])
    else:
        emit_monoid_body(block, computation, in_avals[0].dtype)
    return list(op.results)


def _scatter_decode(op: Any) -> dict[str, Any]:
    dn = mlir.stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
    fields = (
        "update_window_dims",
        "inserted_window_dims",
        "scattered_dims_to_operand_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
    )
    body = list(op.regions[0].blocks[0].operations)
    return {
        "computation": "replace" if len(body) == 1 else computation_of(op),
        "dimension_numbers": ScatterDimensionNumbers(*(tuple(getattr(dn, f)) for f in fields)),
        "indices_are_sorted": _flag(op, "indices_are_sorted"),
        "unique_indices": _flag(op, "unique_indices"),
    }


def _window_gather(x: Any, indices: Any, updates_shape: Sequence[int], dn, fill: Any) -> Any:
    """The operand windows a scatter writes to, shaped like its updates (`fill` where the
    scatter drops the window)."""
    sizes = _scatter_window_sizes(aval_of(x).ndim, updates_shape, dn)
    gather_dn = GatherDimensionNumbers(
        dn.update_window_dims,
        dn.inserted_window_dims,
        dn.scatter_dims_to_operand_dims,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
    )
    return _gather("scatter", x, indices, gather_dn, sizes, False, "fill", fill)


def _scatter_jvp(primals, tangents, *, computation, **params):
    x, indices, updates = primals
    t_x, _, t_updates = tangents
    out = bind("stablehlo.scatter", x, indices, updates, computation=computation, **params)
    if computation in ("replace", "add"):  # linear in (operand, updates)
        t_x = _zeros_like(x) if t_x is None else t_x
        t_updates = _zeros_like(updates) if t_updates is None else t_updates
        return out, bind(
            "stablehlo.scatter", t_x, indices, t_updates, computation=computation, **params
        )

    def scatter_add(operand, values):
        return bind("stablehlo.scatter", operand, indices, values, computation="add", **params)

    if computation == "mul":
        terms = []
        if t_x is not None:
            terms.append(
                bind("stablehlo.scatter", t_x, indices, updates, computation="mul", **params)
            )
        if t_updates is not None:
            if not params["unique_indices"]:
                raise NotImplementedError(
                    "[jvp] scatter_mul with respect to its updates needs unique_indices=True "
                    "(as in JAX)"
                )
            terms.append(mul(x, scatter_add(_zeros_like(x), t_updates)))
        return out, terms[0] if len(terms) == 1 else add(*terms)
    # min/max: the tangent of whichever value won, averaged over ties.
    dtype = aval_of(out).dtype
    x_won = eq(x, out)
    updates_won = eq(
        updates,
        _window_gather(out, indices, aval_of(updates).shape, params["dimension_numbers"], np.nan),
    )
    t_x = _zeros_like(x) if t_x is None else t_x
    t_updates = _zeros_like(updates) if t_updates is None else t_updates
    total = add(
        select(x_won, t_x, _zeros_like(x)),
        scatter_add(_zeros_like(x), select(updates_won, t_updates, _zeros_like(updates))),
    )
    count = add(
        convert_element_type(x_won, dtype),
        scatter_add(_zeros_like(x), convert_element_type(updates_won, dtype)),
    )
    return out, div(total, count)


def _scatter_transpose(ct, x, indices, updates, *, computation, **params):
    if computation == "mul" and not is_undefined(updates):  # linear in the operand alone
        return [
            bind("stablehlo.scatter", ct, indices, updates, computation="mul", **params),
            None,
            None,
        ]
    if computation not in ("replace", "add"):
        raise NotImplementedError(f"[transpose] scatter with {computation} is not linear")
    t_x = t_updates = None
    if is_undefined(x):
        t_x = ct
        if computation == "replace":  # overwritten elements did not reach the output
            zeros = _zeros(updates.aval.shape, aval_of(ct).dtype)
            t_x = bind("stablehlo.scatter", ct, indices, zeros, computation="replace", **params)
    if is_undefined(updates):
        dn = params["dimension_numbers"]
        t_updates = _window_gather(ct, indices, updates.aval.shape, dn, 0)
    return [t_x, None, t_updates]


def _scatter_batch(values, dims, *, axis_size, dimension_numbers, indices_are_sorted, **params):
    (x, indices, updates), (x_dim, indices_dim, updates_dim) = values, dims
    dn = dimension_numbers
    # Every example updates its own operand: operand and updates get the batch dim first.
    x = bdim_at_front(x, x_dim, axis_size)
    updates = bdim_at_front(updates, updates_dim, axis_size)
    if indices_dim is None:  # the batch dim is one more window dim
        dn = ScatterDimensionNumbers(
            (0, *_shifted(dn.update_window_dims)),
            _shifted(dn.inserted_window_dims),
            _shifted(dn.scatter_dims_to_operand_dims),
            _shifted(dn.operand_batching_dims),
            dn.scatter_indices_batching_dims,
        )
    else:  # a pair of batching dims: example i scatters into operand i
        indices = moveaxis(indices, indices_dim, 0)
        dn = ScatterDimensionNumbers(
            _shifted(dn.update_window_dims),
            _shifted(dn.inserted_window_dims),
            _shifted(dn.scatter_dims_to_operand_dims),
            (0, *_shifted(dn.operand_batching_dims)),
            (0, *_shifted(dn.scatter_indices_batching_dims)),
        )
        indices_are_sorted = False
    out = bind(
        "stablehlo.scatter",
        x,
        indices,
        updates,
        dimension_numbers=dn,
        indices_are_sorted=indices_are_sorted,
        **params,
    )
    return out, 0


def_op(
    "stablehlo.scatter",
    _scatter_rule,
    _scatter_lowering,
    decode=_scatter_decode,
    jvp=_scatter_jvp,
    transpose=_scatter_transpose,
    batch=_scatter_batch,
)


def _scatter(
    opname: str,
    computation: str,
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str | GatherScatterMode | None,
) -> Any:
    mode = _parse_mode(opname, mode, GatherScatterMode.FILL_OR_DROP)
    dn = _normalize_dnums(dimension_numbers, ScatterDimensionNumbers, opname)
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval_of(operand).dtype)
    aval = aval_of(operand)
    if dtypes.is_python_scalar(updates):
        updates = _scalar_operand(updates, [aval.dtype])
    params = dict(
        computation=computation,
        dimension_numbers=dn,
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
    )
    indices_aval, updates_aval = aval_of(scatter_indices), aval_of(updates)
    _scatter_shape(opname, computation, aval, indices_aval, updates_aval, dn)
    if mode == GatherScatterMode.CLIP:
        sizes = _scatter_window_sizes(aval.ndim, updates_aval.shape, dn)
        upper = _window_bounds(
            aval.shape, dn.scatter_dims_to_operand_dims, sizes, indices_aval.dtype
        )
        scatter_indices = _clamp_indices(scatter_indices, upper)
    # FILL_OR_DROP needs nothing: XLA skips update windows that are not entirely in bounds.
    return bind("stablehlo.scatter", operand, scatter_indices, updates, **params)


def _scatter_function(opname: str, computation: str, effect: str) -> Callable[..., Any]:
    """The public scatter of one combiner: JAX's signature, calling `_scatter`."""

    def scatter_fun(
        operand: Any,
        scatter_indices: Any,
        updates: Any,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ) -> Any:
        if computation != "replace":
            # JAX's order: the operand's dtype (read by its combiner; not by scatter), the mode,
            # then the rest.
            dtype = aval_of(operand).dtype
        if computation == "sub":  # x - u == x + (-u), exactly, also for wrapping integers
            check_dtype(opname, dtype, NUMBER)
            _parse_mode(opname, mode, GatherScatterMode.FILL_OR_DROP)
            if dtypes.is_python_scalar(updates):
                updates = _scalar_operand(updates, [dtype])
            if aval_of(updates).dtype == dtype:  # else _scatter reports the mismatch
                updates = neg(updates)
        args = (operand, scatter_indices, updates, dimension_numbers)
        body = "add" if computation == "sub" else computation
        return _scatter(opname, body, *args, indices_are_sorted, unique_indices, mode)

    scatter_fun.__name__ = scatter_fun.__qualname__ = opname
    scatter_fun.__doc__ = f"""Scatters `updates` into `operand`, {effect}.

    Update windows are placed as `dimension_numbers` describe; where windows overlap, all their
    updates are applied (for `scatter`, which one wins is unspecified).

    Args:
      operand: the array to update.
      scatter_indices: an integer array whose last dimension holds the index vectors.
      updates: the windows, with the batch dimensions of `scatter_indices`.
      dimension_numbers: a `ScatterDimensionNumbers`.
      indices_are_sorted: promise that the indices are sorted (passed to XLA).
      unique_indices: promise that no index repeats (passed to XLA).
      mode: a `GatherScatterMode` or its name; None means FILL_OR_DROP: update windows that are
        not entirely in bounds are skipped. CLIP clamps the indices first.

    Returns:
      The updated array (`stablehlo.scatter`, the combiner in its region).
    """
    return scatter_fun


scatter = _scatter_function("scatter", "replace", "replacing the elements it hits")
scatter_add = _scatter_function("scatter_add", "add", "adding to the elements it hits")
scatter_sub = _scatter_function("scatter_sub", "sub", "subtracting from the elements it hits")
scatter_mul = _scatter_function("scatter_mul", "mul", "multiplying the elements it hits")
scatter_min = _scatter_function("scatter_min", "min", "taking the minimum with what it hits")
scatter_max = _scatter_function("scatter_max", "max", "taking the maximum with what it hits")


def scatter_apply(
    operand: Any,
    scatter_indices: Any,
    func: Callable[[Any], Any],
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
) -> Any:
    """Replaces the elements of `operand` that the scatter windows hit by `func` of them.

    `func` must be elementwise: it is applied to the whole operand and selected where a window
    of shape `update_shape` lands (a boolean scatter builds the mask). Unlike XLA's per-update
    application in JAX, an element hit by several windows gets `func` applied once.

    Args:
      operand: the array.
      scatter_indices: an integer array whose last dimension holds the index vectors.
      func: an elementwise function of arrays, returning the operand's shape and dtype.
      dimension_numbers: a `ScatterDimensionNumbers`.
      update_shape: the shape the updates would have (batch and window dimensions).
      indices_are_sorted: promise that the indices are sorted.
      unique_indices: promise that no index repeats.
      mode: as for `scatter`.

    Returns:
      The updated array (`stablehlo.scatter` of the mask, then `stablehlo.select`).
    """
    aval = aval_of(operand)
    update_shape = lax_ints(update_shape, "update_shape", "scatter_apply")
    check_callable("lax.scatter_apply", func, "func")
    applied = func(operand)  # first, as JAX traces func before it looks at the rest
    if applied is None or isinstance(applied, (tuple, list, dict)):  # JAX's class
        raise ValueError(
            f"lax.scatter_apply: func must return an array, got {type(applied).__name__}"
            f"{mlir.where_suffix()}"
        )
    mask = _scatter(
        "scatter_apply",
        "replace",
        full(aval.shape, False, np.bool_),
        scatter_indices,
        full(update_shape, True, np.bool_),
        dimension_numbers,
        indices_are_sorted,
        unique_indices,
        mode,
    )
    return select(mask, applied, operand)
