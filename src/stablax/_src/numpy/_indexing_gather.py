"""Lowering parsed indices (see `_indexing.py`) to slices, or to one gather or scatter.

Every index expression is a gather/scatter over a canonical plan: advanced indices (broadcast
together) and slices with a step are collapsed operand dimensions addressed by index vectors;
unit-step slices are windows; None is a size-1 result dimension added by a reshape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.config import config
from stablax._src.dispatch import weak_scalar
from stablax._src.numpy._indexing import (
    ADVANCED,
    DynamicSlice,
    dynamic_slice_starts,
    is_eager,
    operand_sizes,
    parse_index,
    prewrap_static,
    run_eagerly,
)
from stablax._src.numpy._promotion import broadcast_to_shape

# --- basic indexing: slice, reverse, dynamic_slice ---------------------------------------------


def _is_static(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) or (
        isinstance(value, np.ndarray) and value.ndim == 0
    )


def _wrap(index: Any, size: int) -> Any:
    """index + size where index < 0, in the index's dtype (unsigned indices never wrap)."""
    if dtypes.issubdtype(aval_of(index).dtype, np.unsignedinteger):  # uint4 too
        return index
    negative = lax.lt(index, weak_scalar(0, aval_of(index).dtype))
    return lax.select(negative, lax.add(index, _full_like(index, size)), index)


def _full_like(index: Any, value: int) -> Any:
    aval = aval_of(index)
    return lax.full(aval.shape, np.asarray(value, aval.dtype), aval.dtype)


def _basic(x: Any, tokens: tuple, operands: list) -> Any:
    shape = x.aval.shape
    starts, limits, strides, reverse, out_shape = [], [], [], [], []
    dynamic: dict[int, tuple[Any, int]] = {}  # dimension -> (traced start, size), wrapped
    reverse_after: list[int] = []  # dimensions of reversed dynamic slices
    dim = 0
    for token in tokens:
        kind = token[0]
        if kind == "sep":
            continue
        if kind == "none":
            out_shape.append(1)
            continue
        n = shape[dim]
        if kind == "slice":
            start, stop, step = token[1:]
            count = len(range(start, stop, step))
            if step < 0:
                reverse.append(dim)
                start, step = n - 1 - start, -step
            start = start if count else 0
            starts.append(start)
            limits.append(start + (count - 1) * step + 1 if count else start)
            strides.append(step)
            out_shape.append(count)
        elif kind == "dslice":
            _, k, count, reversed_ = token
            dynamic[dim] = (operands[k], count)
            if reversed_:
                reverse_after.append(dim)
            starts.append(0)
            limits.append(n)
            strides.append(1)
            out_shape.append(count)
        else:
            value, wrapped = operands[token[1]], token[2]
            if _is_static(value):  # wrapped, then clamped into bounds (as a gather would)
                i = int(value)
                i = i + n if i < 0 and not wrapped else i
                i = min(max(i, 0), n - 1)
                starts.append(i)
                limits.append(i + 1)
            else:
                dynamic[dim] = (value if wrapped else _wrap(value, n), 1)
                starts.append(0)
                limits.append(n)
            strides.append(1)
        dim += 1
    if reverse:
        x = lax.rev(x, reverse)
    if any(s != 0 for s in starts) or any(st != 1 for st in strides) or tuple(limits) != shape:
        x = lax.slice(x, starts, limits, strides)
    if dynamic:
        sliced = x.aval.shape
        x = lax.dynamic_slice(
            x,
            [dynamic[d][0] if d in dynamic else 0 for d in range(len(sliced))],
            [dynamic[d][1] if d in dynamic else size for d, size in enumerate(sliced)],
            allow_negative_indices=False,  # XLA clamps what is left out of bounds
        )
    if reverse_after:
        x = lax.rev(x, reverse_after)
    if tuple(out_shape) == x.aval.shape:
        return x
    return lax.reshape(x, out_shape)


# --- the general plan --------------------------------------------------------------------------


class Plan(NamedTuple):
    """A gather/scatter equivalent to an index expression on an operand of `operand_shape`."""

    operand_shape: tuple[int, ...]  # the operand with new axes for boolean scalars
    indices: Any  # (*batch, k) index vectors, or None when no dimension is addressed
    offset_dims: tuple[int, ...]  # window dimensions of the gathered shape
    collapsed: tuple[int, ...]  # operand dimensions addressed one element at a time
    index_map: tuple[int, ...]  # the operand dimension of each index-vector component
    slice_sizes: tuple[int, ...]
    gathered_shape: tuple[int, ...]  # the result without the None dimensions
    result_shape: tuple[int, ...]  # what x[idx] has

    def gather_dnums(self) -> lax.GatherDimensionNumbers:
        return lax.GatherDimensionNumbers(self.offset_dims, self.collapsed, self.index_map)

    def scatter_dnums(self) -> lax.ScatterDimensionNumbers:
        return lax.ScatterDimensionNumbers(self.offset_dims, self.collapsed, self.index_map)


def _index_dtype(operands: Sequence[Any], sizes: Sequence[int]) -> np.dtype:
    wide = max(sizes, default=0) >= 2**31 - 1 or any(
        aval_of(o).dtype.itemsize > 4 or aval_of(o).dtype == np.uint32 for o in operands
    )
    return dtypes.canonicalize_dtype(np.int64) if wide and config.jax_enable_x64 else np.int32


def _broadcast_advanced(arrays: Sequence[Any]) -> tuple[int, ...]:
    shapes = [aval_of(a).shape for a in arrays]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        shown = " ".join(str(s) for s in shapes)
        raise IndexError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            f"{shown}{mlir.where_suffix()}"
        ) from None


def make_plan(x: Any, tokens: tuple, operands: list) -> Plan:
    """The gather/scatter plan of `x[tokens]` (see `_indexing.parse_index`)."""
    sizes = operand_sizes(tokens, x.aval.shape)
    operand_shape = tuple(
        s for t, s in zip(tokens, sizes, strict=True) if t[0] not in ("none", "sep")
    )
    advanced = [p for p, t in enumerate(tokens) if t[0] in ADVANCED or t[0] == "int"]
    dims = {}  # token position -> operand dimension
    for p, t in enumerate(tokens):
        if t[0] not in ("none", "sep"):
            dims[p] = len(dims)
    dtype = _index_dtype([operands[tokens[p][1]] for p in advanced], sizes)
    arrays = {}
    for p in advanced:
        _, k, wrapped = tokens[p]
        value = lax.convert_element_type(operands[k], dtype)
        arrays[p] = value if wrapped else _wrap(value, sizes[p])
    batch = _broadcast_advanced(list(arrays.values())) if arrays else ()
    contiguous = advanced == list(range(advanced[0], advanced[-1] + 1)) if advanced else True
    # The result layout, NumPy's rule: the advanced block replaces the first advanced index when
    # the advanced indices are adjacent, and goes first otherwise.
    layout: list[tuple] = [("b", j) for j in range(len(batch))] if not contiguous else []
    for p, t in enumerate(tokens):
        if t[0] == "sep":
            continue
        if t[0] == "none":
            layout.append(("none",))
        elif t[0] == "slice":
            layout.append(("slice", p))
        elif contiguous and p == advanced[0]:
            layout.extend(("b", j) for j in range(len(batch)))
    gathered = [entry for entry in layout if entry[0] != "none"]

    def extent(entry: tuple) -> int:
        if entry[0] == "b":
            return batch[entry[1]]
        return len(range(*tokens[entry[1]][1:]))

    def strided(p: int) -> bool:
        start, stop, step = tokens[p][1:]
        return step != 1 and len(range(start, stop, step)) > 1

    batch_positions = [
        i for i, e in enumerate(gathered) if e[0] == "b" or (e[0] == "slice" and strided(e[1]))
    ]
    batch_shape = tuple(extent(gathered[i]) for i in batch_positions)
    where_in_batch = {gathered[i]: b for b, i in enumerate(batch_positions)}
    components: dict[int, Any] = {}  # operand dimension -> (*batch_shape) index component
    block = tuple(where_in_batch[("b", j)] for j in range(len(batch)))
    for p, value in arrays.items():
        components[dims[p]] = lax.broadcast_in_dim(_broadcast_to(value, batch), batch_shape, block)
    slice_sizes = [min(1, d) for d in operand_shape]  # an empty dimension has no slice of 1
    offset_dims = []
    for i, entry in enumerate(gathered):
        if entry[0] != "slice":
            continue
        p = entry[1]
        start, stop, step = tokens[p][1:]
        count = len(range(start, stop, step))
        if strided(p):
            iota = lax.broadcasted_iota(dtype, batch_shape, where_in_batch[entry])
            scaled = lax.mul(iota, lax.full(batch_shape, np.asarray(step, dtype), dtype))
            components[dims[p]] = lax.add(
                scaled, lax.full(batch_shape, np.asarray(start, dtype), dtype)
            )
            continue
        offset_dims.append(i)
        slice_sizes[dims[p]] = count
        if count != operand_shape[dims[p]]:  # a partial window: its start is addressed
            components[dims[p]] = lax.full(batch_shape, np.asarray(start, dtype), dtype)
    index_map = tuple(sorted(components))
    indices = None
    if index_map:
        columns = [lax.reshape(components[d], (*batch_shape, 1)) for d in index_map]
        indices = columns[0] if len(columns) == 1 else lax.concatenate(columns, len(batch_shape))
    collapsed = tuple(dims[p] for p in sorted(dims) if tokens[p][0] != "slice" or strided(p))
    gathered_shape = tuple(extent(e) for e in gathered)
    result_shape = tuple(1 if e[0] == "none" else extent(e) for e in layout)
    return Plan(
        operand_shape,
        indices,
        tuple(offset_dims),
        collapsed,
        index_map,
        tuple(slice_sizes),
        gathered_shape,
        result_shape,
    )


def _broadcast_to(value: Any, shape: tuple[int, ...]) -> Any:
    return broadcast_to_shape(value, shape)


def _reshape(x: Any, shape: tuple[int, ...]) -> Any:
    return x if aval_of(x).shape == tuple(shape) else lax.reshape(x, shape)


# --- gather ------------------------------------------------------------------------------------


def gather_impl(
    x: Any,
    tokens: tuple,
    operands: list,
    *,
    mode: Any = None,
    fill_value: Any = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """`x[tokens]`: slices for basic indices (unless filling), else one `stablehlo.gather`."""
    fill = lax.GatherScatterMode.from_any(mode) == lax.GatherScatterMode.FILL_OR_DROP
    if mode is None:
        fill = False
    if not fill and not any(t[0] in ADVANCED for t in tokens):
        return _basic(x, tokens, operands)
    plan = make_plan(x, tokens, operands)
    x = _reshape(x, plan.operand_shape)
    if plan.indices is None:  # only whole dimensions: nothing is addressed
        return _reshape(x, plan.result_shape)
    out = lax.gather(
        x,
        plan.indices,
        plan.gather_dnums(),
        plan.slice_sizes,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode="promise_in_bounds" if mode is None else mode,
        fill_value=fill_value,
    )
    return _reshape(out, plan.result_shape)


# --- scatter -----------------------------------------------------------------------------------

# The combiner of each `.at[...]` update: (lax scatter function, elementwise equivalent used when
# the index addresses whole dimensions only).
SCATTERS: dict[str, tuple[Callable, Callable]] = {
    "set": (lax.scatter, lambda x, y: y),
    "add": (lax.scatter_add, lax.add),
    "sub": (lax.scatter_sub, lax.sub),
    "mul": (lax.scatter_mul, lax.mul),
    "min": (lax.scatter_min, lax.min),
    "max": (lax.scatter_max, lax.max),
}


def scatter_impl(
    x: Any,
    tokens: tuple,
    operands: list,
    updates: Any,
    *,
    combine: str,
    mode: Any = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """`x` with `updates` combined into `x[tokens]` (one `stablehlo.scatter`)."""
    shape, dtype = x.aval.shape, x.aval.dtype
    plan = make_plan(x, tokens, operands)
    if dtypes.is_python_scalar(updates) or not hasattr(updates, "aval"):
        updates = weak_scalar(updates, dtype) if np.ndim(updates) == 0 else np.asarray(updates)
    if aval_of(updates).dtype != dtype or aval_of(updates).weak_type:
        updates = lax.convert_element_type(updates, dtype)
    updates = _broadcast_updates(updates, plan.result_shape)
    updates = _reshape(updates, plan.gathered_shape)
    operand = _reshape(x, plan.operand_shape)
    scatter, elementwise = SCATTERS[combine]
    if plan.indices is None:
        out = elementwise(operand, updates)
    else:
        out = scatter(
            operand,
            plan.indices,
            updates,
            plan.scatter_dnums(),
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )
    if aval_of(out).weak_type != x.aval.weak_type:  # the update replaced everything
        out = lax.convert_element_type(out, dtype, weak_type=x.aval.weak_type)
    return _reshape(out, shape)


def apply_impl(
    x: Any,
    tokens: tuple,
    operands: list,
    *,
    func: Callable[[Any], Any],
    mode: Any = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """`x` with `func` applied to the elements of `x[tokens]`."""
    shape = x.aval.shape
    plan = make_plan(x, tokens, operands)
    operand = _reshape(x, plan.operand_shape)
    if plan.indices is None:
        out = func(operand)
    else:
        out = lax.scatter_apply(
            operand,
            plan.indices,
            func,
            plan.scatter_dnums(),
            update_shape=plan.gathered_shape,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )
    return _reshape(out, shape)


def _broadcast_updates(updates: Any, shape: tuple[int, ...]) -> Any:
    """The updates broadcast to the indexed shape (JAX's rule: no extra leading dimensions)."""
    aval = aval_of(updates)
    try:
        ok = aval.ndim <= len(shape) and np.broadcast_shapes(aval.shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"x.at[idx]: cannot broadcast the update {aval.str_short()} to the indexed shape "
            f"{shape}{mlir.where_suffix()}"
        )
    return _broadcast_to(updates, shape)


# --- x[idx] ------------------------------------------------------------------------------------


def getitem(x: Any, idx: Any) -> Any:
    """`x[idx]` with NumPy's indexing rules, as JAX implements them.

    Basic indices (integers, slices with any step, None, Ellipsis) lower to `stablehlo.slice`
    (after a `reverse` for negative steps) and a reshape, or a `dynamic_slice` for traced
    integers. Advanced indices (integer arrays and lists, boolean masks, boolean scalars) lower to
    one `stablehlo.gather`; several of them broadcast together, and their dimensions go first
    when they are separated by a slice, None or Ellipsis (NumPy's rule).

    Out-of-bounds indices do not raise: as in JAX, a retrieval clamps every index into
    [0, size - 1] (negative indices first count from the end). Use `x.at[idx].get(mode="fill",
    fill_value=...)` to get a fill value for out-of-bounds positions instead. Boolean masks need
    concrete values (not under `jit`): `NonConcreteBooleanIndexError` says what to use instead.
    """
    if isinstance(idx, DynamicSlice) or (
        isinstance(idx, tuple) and any(isinstance(i, DynamicSlice) for i in idx)
    ):
        x, idx = _apply_dynamic_slices(x, idx)
    shape = x.aval.shape
    tokens, operands = parse_index(idx, shape)
    sizes = operand_sizes(tokens, shape)
    if all(t[0] == "sep" or t == ("slice", 0, n, 1) for t, n in zip(tokens, sizes, strict=True)):
        return x  # x[...], x[:], x[()]: the array itself, as in JAX
    if is_eager(x, operands):
        tokens, operands = prewrap_static(tokens, operands, shape)
        tokens, operands = dynamic_slice_starts(tokens, operands, shape)
        key = ("getitem", tokens)
        return run_eagerly(key, _GetItem(tokens), x, *operands)
    return gather_impl(x, tokens, operands)


def _apply_dynamic_slices(x: Any, idx: Any) -> tuple[Any, Any]:
    # Each DynamicSlice becomes a lax.dynamic_slice of its dimension and then ":" (or "::stride").
    items = list(idx) if isinstance(idx, tuple) else [idx]
    for position, item in enumerate(items):
        if not isinstance(item, DynamicSlice):
            continue
        if any(not isinstance(i, (int, slice, DynamicSlice)) for i in items[:position]):
            raise NotImplementedError(
                "ds(...) indices must follow only integers and slices in an index"
            )
        length = (item.size - 1) * item.stride + 1 if item.size else 0
        x = lax.dynamic_slice_in_dim(x, item.start, length, axis=position)
        items[position] = slice(None, None, item.stride or None)
    return x, tuple(items)


class _GetItem:
    """The jitted body of an eager `x[idx]`: the static structure is bound, operands are args."""

    def __init__(self, tokens: tuple, **params: Any) -> None:
        self.tokens, self.params = tokens, params
        self.__name__ = "getitem"

    def __call__(self, x: Any, *operands: Any) -> Any:
        return gather_impl(x, self.tokens, list(operands), **self.params)
