"""`gather` (`stablehlo.gather`) with its rules, and `index_take`. Out-of-bounds modes are index
arithmetic and masking with lax ops before the op, so its rules stay small; the modes, dimension
numbers and bounds it shares with scatter live in `_gather_scatter_dims.py`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind, weak_scalar
from stablax._src.interpreters.batching import moveaxis
from stablax._src.lax._argcheck import RANK, axis_arg, int_sequence, lax_ints, sequence
from stablax._src.lax._elementwise import select
from stablax._src.lax._gather_scatter_dims import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _check_batching,
    _check_dims,
    _check_indices,
    _clamp_indices,
    _flag,
    _in_bounds,
    _index_dtype,
    _is_int,
    _normalize_dnums,
    _parse_mode,
    _scatter_window_sizes,
    _shifted,
    _value_error,
    _window_bounds,
)
from stablax._src.lax._reduce_bodies import int_tuple
from stablax._src.lax._reshape_axes import expand_dims
from stablax._src.lax._shapes import (
    _error as _type_error,
)
from stablax._src.lax._shapes import broadcast_in_dim, convert_element_type, full, full_like
from stablax._src.lax._slice_pad import concatenate
from stablax._src.lax._slicing import _zeros
from stablax._src.op_rules import def_op

# --- gather ------------------------------------------------------------------------------------


def _gather_shape(
    name: str,
    operand: ShapedArray,
    indices: ShapedArray,
    dn: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
) -> ShapedArray:
    _check_indices(
        name, indices, dn.start_index_map, "start_index_map", operand.ndim, dn.operand_batching_dims
    )
    _check_dims(name, "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim)
    _check_batching(
        name,
        operand,
        indices,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        "start_indices",
    )
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    if len(dropped) != len(dn.collapsed_slice_dims) + len(dn.operand_batching_dims):
        raise _type_error(
            name,
            f"collapsed_slice_dims {dn.collapsed_slice_dims} overlaps "
            f"operand_batching_dims {dn.operand_batching_dims}",
        )
    if len(slice_sizes) != operand.ndim or any(
        not 0 <= s <= d for s, d in zip(slice_sizes, operand.shape, strict=True)
    ):
        raise _type_error(
            name,
            f"slice_sizes {slice_sizes} must have one entry in [0, dim] per "
            f"dimension of {operand.str_short()}",
        )
    if any(slice_sizes[d] > 1 for d in dropped):
        raise _type_error(
            name,
            f"slice_sizes {slice_sizes} must be at most 1 in the collapsed and batching dimensions",
        )
    window = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    if len(dn.offset_dims) != len(window):
        raise _type_error(
            name,
            f"offset_dims {dn.offset_dims} must have one entry per window "
            f"dimension: slice_sizes {slice_sizes} leave {len(window)}",
        )
    _check_dims(name, "offset_dims", dn.offset_dims, out_rank)
    batch, offsets = iter(indices.shape[:-1]), iter(window)
    shape = [next(offsets) if d in dn.offset_dims else next(batch) for d in range(out_rank)]
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_rule(
    operand: ShapedArray,
    indices: ShapedArray,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes,
    indices_are_sorted: bool,
) -> ShapedArray:
    return _gather_shape("gather", operand, indices, dimension_numbers, slice_sizes)


def _gather_lowering(
    operands, in_avals, out_avals, *, dimension_numbers, slice_sizes, indices_are_sorted
):
    dn = dimension_numbers
    attr = mlir.stablehlo.GatherDimensionNumbers.get(
        offset_dims=list(dn.offset_dims),
        collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map),
        index_vector_dim=in_avals[1].ndim - 1,
    )
    op = mlir.emit(
        "stablehlo.gather",
        operands,
        [mlir.aval_type(out_avals[0])],
        {
            "dimension_numbers": attr,
            "slice_sizes": mlir.i64_array(slice_sizes),
            "indices_are_sorted": mlir.bool_attr(indices_are_sorted),
        },
    )
    return list(op.results)


def _gather_decode(op: Any) -> dict[str, Any]:
    dn = mlir.stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    fields = GatherDimensionNumbers._fields
    return {
        "dimension_numbers": GatherDimensionNumbers(*(tuple(getattr(dn, f)) for f in fields)),
        "slice_sizes": int_tuple(op.attributes["slice_sizes"]),
        "indices_are_sorted": _flag(op, "indices_are_sorted"),
    }


def _gather_jvp(primals, tangents, **params):
    x, indices = primals
    out = bind("stablehlo.gather", x, indices, **params)
    t = tangents[0]
    return out, None if t is None else bind("stablehlo.gather", t, indices, **params)


def _gather_transpose(ct, x, indices, *, dimension_numbers, slice_sizes, indices_are_sorted):
    # XLA clamps gather windows into bounds: the cotangent goes back to the clamped windows, a
    # scatter-add of the cotangent into zeros.
    dn = dimension_numbers
    scatter_dn = ScatterDimensionNumbers(
        dn.offset_dims,
        dn.collapsed_slice_dims,
        dn.start_index_map,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
    )
    shape, ct_aval = x.aval.shape, aval_of(ct)
    windows = _scatter_window_sizes(len(shape), ct_aval.shape, scatter_dn)
    upper = _window_bounds(shape, dn.start_index_map, windows, aval_of(indices).dtype)
    t_x = bind(
        "stablehlo.scatter",
        _zeros(shape, ct_aval.dtype),
        _clamp_indices(indices, upper),
        ct,
        computation="add",
        dimension_numbers=scatter_dn,
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=False,
    )
    return [t_x, None]


def _gather_batch(values, dims, *, axis_size, dimension_numbers, slice_sizes, indices_are_sorted):
    (x, indices), (x_dim, indices_dim), dn = values, dims, dimension_numbers
    if indices_dim is None:  # the batch dim is one more window dim, first in operand and output
        x = moveaxis(x, x_dim, 0)
        dn = GatherDimensionNumbers(
            (0, *_shifted(dn.offset_dims)),
            _shifted(dn.collapsed_slice_dims),
            _shifted(dn.start_index_map),
            _shifted(dn.operand_batching_dims),
            dn.start_indices_batching_dims,
        )
        sizes = (axis_size, *slice_sizes)
    else:
        # The batch dim leads the indices and so the output's batch dims.
        indices = moveaxis(indices, indices_dim, 0)
        if x_dim is None:
            dn = GatherDimensionNumbers(
                _shifted(dn.offset_dims),
                dn.collapsed_slice_dims,
                dn.start_index_map,
                dn.operand_batching_dims,
                _shifted(dn.start_indices_batching_dims),
            )
            sizes = tuple(slice_sizes)
        else:  # a pair of batching dims: example i gathers from operand i
            x = moveaxis(x, x_dim, 0)
            dn = GatherDimensionNumbers(
                _shifted(dn.offset_dims),
                _shifted(dn.collapsed_slice_dims),
                _shifted(dn.start_index_map),
                (0, *_shifted(dn.operand_batching_dims)),
                (0, *_shifted(dn.start_indices_batching_dims)),
            )
            sizes = (min(axis_size, 1), *slice_sizes)  # 0 for an empty batch
        indices_are_sorted = False  # sorted per example, not across the batch
    out = bind(
        "stablehlo.gather",
        x,
        indices,
        dimension_numbers=dn,
        slice_sizes=sizes,
        indices_are_sorted=indices_are_sorted,
    )
    return out, 0


def_op(
    "stablehlo.gather",
    _gather_rule,
    _gather_lowering,
    decode=_gather_decode,
    jvp=_gather_jvp,
    transpose=_gather_transpose,
    batch=_gather_batch,
)


def _default_fill(dtype: np.dtype) -> Any:
    if dtype == np.bool_:
        return True
    kind = dtypes.KIND.get(np.dtype(dtype))  # int4's numpy kind is "V"
    if kind == "i":
        return int(dtypes.iinfo(dtype).min)
    if kind == "u":
        return int(dtypes.iinfo(dtype).max)
    return np.nan


def gather(
    operand: Any,
    start_indices: Any,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value: Any = None,
) -> Any:
    """Gathers the `slice_sizes` windows of `operand` that start at each index vector.

    The index vectors are the last dimension of `start_indices`; the result has the other
    dimensions of `start_indices` as batch dimensions and the window at `offset_dims`.

    Args:
      operand: the array to gather from.
      start_indices: an integer array; `start_indices[..., k]` indexes operand dimension
        `dimension_numbers.start_index_map[k]`.
      dimension_numbers: a `GatherDimensionNumbers`.
      slice_sizes: the window size in every operand dimension.
      unique_indices: accepted for JAX compatibility (a promise about the indices; unused).
      indices_are_sorted: promise that the indices are sorted (passed to XLA).
      mode: a `GatherScatterMode` or its name. None means PROMISE_IN_BOUNDS, where XLA clamps
        the windows into bounds like CLIP.
      fill_value: the value of out-of-bounds windows under FILL_OR_DROP; by default NaN for
        inexact dtypes, the minimum of signed integers, the maximum of unsigned ones, True for
        booleans.

    Returns:
      The gathered array (`stablehlo.gather`, after clamping/masking lax ops for the mode).
    """
    del unique_indices
    return _gather(
        "gather",
        operand,
        start_indices,
        dimension_numbers,
        slice_sizes,
        indices_are_sorted,
        mode,
        fill_value,
    )


def _gather(
    opname: str,
    operand: Any,
    start_indices: Any,
    dimension_numbers: Any,
    slice_sizes: Sequence[int],
    indices_are_sorted: bool,
    mode: Any,
    fill_value: Any,
) -> Any:
    mode = _parse_mode(opname, mode, GatherScatterMode.PROMISE_IN_BOUNDS)
    dn = _normalize_dnums(dimension_numbers, GatherDimensionNumbers, opname)
    sizes = lax_ints(slice_sizes, "slice_sizes", opname)
    if dtypes.is_python_scalar(operand):
        operand = weak_scalar(operand, aval_of(operand).dtype)
    params = dict(
        dimension_numbers=dn, slice_sizes=sizes, indices_are_sorted=bool(indices_are_sorted)
    )
    aval, indices_aval = aval_of(operand), aval_of(start_indices)
    out_aval = _gather_shape(opname, aval, indices_aval, dn, sizes)
    if mode == GatherScatterMode.PROMISE_IN_BOUNDS:
        return bind("stablehlo.gather", operand, start_indices, **params)
    upper = _window_bounds(aval.shape, dn.start_index_map, sizes, indices_aval.dtype)
    out = bind("stablehlo.gather", operand, _clamp_indices(start_indices, upper), **params)
    if mode == GatherScatterMode.CLIP:
        return out
    batch_dims = [d for d in range(out_aval.ndim) if d not in dn.offset_dims]
    mask = broadcast_in_dim(_in_bounds(start_indices, upper), out_aval.shape, batch_dims)
    fill = _default_fill(aval.dtype) if fill_value is None else fill_value
    return select(mask, out, full_like(out, fill))  # keeps the operand's weak type, as JAX


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
    """`src[idxs[0], idxs[1], ...]` along `axes`: the i-th result row takes index i of each.

    Args:
      src: the array.
      idxs: one 1-D integer array per axis, all of the same length n.
      axes: the axes of `src` they index.

    Returns:
      An array of shape (n, *the dimensions of src not in axes) (`stablehlo.gather`; indices
      out of bounds are clamped, where JAX wraps them: see the index-take-clamps rule in
      tests/reliability/known_differences/).
    """
    idxs = sequence(idxs, "idxs", "lax.index_take")  # before axes, as JAX
    if not idxs:  # JAX's class (its concatenate of no index arrays)
        raise _value_error("index_take", f"needs at least one index array, got {idxs}")
    avals = [aval_of(i) for i in idxs]
    if any(a.ndim == 0 for a in avals):  # JAX's class (its concatenate along axis 1), before axes
        raise _value_error(
            "index_take",
            f"needs 1-D index arrays, got {', '.join(a.str_short() for a in avals)}",
        )
    axes = int_sequence(axes, "axes", "lax.index_take")
    if len(idxs) != len(axes) or any(
        a.ndim != 1 or not _is_int(a) or a.shape != avals[0].shape for a in avals
    ):
        raise _type_error(
            "index_take",
            "needs one 1-D integer index array per axis, all of one "
            f"length, got {', '.join(a.str_short() for a in avals)} for axes {axes}",
        )
    axes = tuple(axis_arg(a, aval_of(src).ndim, "lax.index_take", array=RANK) for a in axes)
    dtype = _index_dtype(avals)
    shape = aval_of(src).shape
    if any(shape[a] == 0 for a in axes):  # no slice of size 1 to gather
        if avals[0].shape[0]:
            raise TypeError(  # JAX's class (its gather's slice size check)
                f"lax.index_take: cannot take {avals[0].shape[0]} indices from an empty axis of "
                f"{aval_of(src).str_short()}{mlir.where_suffix()}"
            )
        kept = tuple(s for d, s in enumerate(shape) if d not in axes)
        return full((0, *kept), 0, aval_of(src).dtype)
    indices = concatenate([expand_dims(convert_element_type(i, dtype), (1,)) for i in idxs], 1)
    rest = len(shape) - len(axes)
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(1, 1 + rest)),
        collapsed_slice_dims=tuple(sorted(axes)),
        start_index_map=axes,
    )
    sizes = tuple(1 if d in axes else s for d, s in enumerate(shape))
    return _gather("index_take", src, indices, dn, sizes, False, None, None)
