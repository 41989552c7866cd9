"""The index machinery dynamic slices, gather and scatter share: index dtypes and checks, the
out-of-bounds modes, the dimension numbers, and the bounds that clamp windows into the operand.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.ir import ir
from stablax._src.lax._argcheck import lax_ints
from stablax._src.lax._elementwise import and_, ge, gt, le, lt, select
from stablax._src.lax._reduce_monoids import reduce_and
from stablax._src.lax._shapes import _error as _type_error
from stablax._src.lax._shapes import broadcast_in_dim


def _value_error(opname: str, message: str) -> ValueError:
    return ValueError(f"lax.{opname}: {message}{mlir.where_suffix()}")


def _is_int(aval: ShapedArray) -> bool:
    return aval.dtype.kind in "iu"


def _index_dtype(avals: Sequence[ShapedArray]) -> np.dtype:
    """int32, or int64 (when x64 is on) if an index could overflow int32."""
    wide = any(
        a.dtype.itemsize > 4 or (a.dtype.kind == "u" and a.dtype.itemsize == 4) for a in avals
    )
    return dtypes.canonicalize_dtype(np.int64) if wide else np.dtype(np.int32)


# --- modes and dimension numbers ---------------------------------------------------------------


class GatherScatterMode(enum.Enum):
    """What gather and scatter do with out-of-bounds indices.

    CLIP clamps indices so the whole window is in bounds. FILL_OR_DROP makes gather return
    `fill_value` for a window that is not entirely in bounds and scatter skip such an update
    window. PROMISE_IN_BOUNDS trusts the caller (XLA then clamps gathers, drops scatters).
    """

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """Parses 'clip', 'fill'/'drop' (also None) and 'promise_in_bounds'."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(
            f"Unknown gather/scatter mode {s!r}: expected 'clip', 'fill', 'drop' or "
            "'promise_in_bounds'"
        )


class GatherDimensionNumbers(NamedTuple):
    """How `gather` maps index vectors to operand windows (StableHLO's gather dimensions).

    The last dimension of `start_indices` holds the index vectors. `offset_dims` are the output
    dimensions holding the window; `collapsed_slice_dims` and `operand_batching_dims` are operand
    dimensions (window size 1) left out of the output; `start_index_map[k]` is the operand
    dimension that index component k addresses; `start_indices_batching_dims[i]` is the indices
    dimension paired with `operand_batching_dims[i]`.
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How `scatter` maps update windows into the operand (StableHLO's scatter dimensions).

    `update_window_dims` are the update dimensions holding the window; `inserted_window_dims`
    and `operand_batching_dims` are operand dimensions with window size 1 absent from updates;
    `scatter_dims_to_operand_dims[k]` is the operand dimension that index component k addresses;
    `scatter_indices_batching_dims[i]` pairs with `operand_batching_dims[i]`.
    """

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def _parse_mode(opname: str, mode: Any, default: GatherScatterMode) -> GatherScatterMode:
    if mode is None:
        return default
    try:
        return GatherScatterMode.from_any(mode)
    except ValueError as e:
        raise _value_error(opname, str(e)) from None


def _normalize_dnums(dnums: Any, kind: type, opname: str) -> Any:
    if not isinstance(dnums, kind):
        raise _type_error(
            opname, f"dimension_numbers must be a {kind.__name__}, got {type(dnums).__name__}"
        )
    return kind(*(lax_ints(v, f, opname) for f, v in zip(kind._fields, dnums, strict=True)))


def _check_dims(
    opname: str, what: str, dims: Sequence[int], bound: int, ordered: bool = True
) -> None:
    if (
        any(not 0 <= d < bound for d in dims)
        or len(set(dims)) != len(dims)
        or (ordered and list(dims) != sorted(dims))
    ):
        order = "sorted, " if ordered else ""
        raise _type_error(opname, f"{what} {tuple(dims)} must be {order}unique and in [0, {bound})")


def _check_batching(
    opname: str, operand: ShapedArray, indices: ShapedArray, operand_dims, indices_dims, prefix: str
) -> None:
    _check_dims(opname, "operand_batching_dims", operand_dims, operand.ndim)
    _check_dims(opname, f"{prefix}_batching_dims", indices_dims, indices.ndim - 1, False)
    if [operand.shape[d] for d in operand_dims] != [indices.shape[d] for d in indices_dims]:
        raise _type_error(
            opname,
            f"operand_batching_dims {operand_dims} and {prefix}_batching_"
            f"dims {indices_dims} must pair dimensions of equal size, got "
            f"{operand.str_short()} and {indices.str_short()}",
        )


def _check_indices(
    opname: str, indices: ShapedArray, index_map, what: str, ndim: int, batching
) -> None:
    if not _is_int(indices) or indices.ndim < 1:
        raise _type_error(
            opname,
            "indices must be an integer array of rank >= 1 (index vectors "
            f"in the last dimension), got {indices.str_short()}",
        )
    if len(index_map) != indices.shape[-1]:
        raise _type_error(
            opname,
            f"{what} {index_map} needs one entry per index component, and "
            f"{indices.str_short()} has {indices.shape[-1]}",
        )
    _check_dims(opname, what, index_map, ndim, False)
    if set(index_map) & set(batching):
        raise _type_error(opname, f"{what} {index_map} overlaps operand_batching_dims {batching}")


def _window_bounds(operand_shape, index_map, window_sizes, dtype) -> np.ndarray:
    """The largest in-bounds start per index component, capped to the index dtype's range."""
    upper = [operand_shape[d] - window_sizes[d] for d in index_map]
    return np.minimum(np.asarray(upper, np.int64), dtypes.iinfo(dtype).max).astype(dtype)


# Bounds are typed NumPy constants (`upper` has the indices' dtype): indices may be NumPy arrays.


def _clamp_indices(indices: Any, upper: np.ndarray) -> Any:
    # Two selects rather than a clamp: they are linear ops with transpose rules, as the rule
    # tables want for every op of a linear gather/scatter.
    shape = aval_of(indices).shape
    low = broadcast_in_dim(np.zeros((), upper.dtype), shape, ())
    high = broadcast_in_dim(upper, shape, (len(shape) - 1,))
    indices = select(lt(indices, low), low, indices)
    return select(gt(indices, high), high, indices)


def _in_bounds(indices: Any, upper: np.ndarray) -> Any:
    """True for index vectors whose whole window is in bounds (shape: indices.shape[:-1])."""
    shape = aval_of(indices).shape
    high = broadcast_in_dim(upper, shape, (len(shape) - 1,))
    ok = and_(ge(indices, np.zeros((), upper.dtype)), le(indices, high))
    return reduce_and(ok, (len(shape) - 1,))


def _scatter_window_sizes(rank: int, updates_shape: Sequence[int], dn: Any) -> list[int]:
    """The operand window of each scatter update: the update's window dimensions, and 1 in the
    operand dimensions the updates leave out."""
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    windows = iter(updates_shape[d] for d in dn.update_window_dims)
    return [1 if d in dropped else next(windows) for d in range(rank)]


def _flag(op: Any, name: str) -> bool:
    return name in op.attributes and ir.BoolAttr(op.attributes[name]).value


def _shifted(dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(d + 1 for d in dims)
