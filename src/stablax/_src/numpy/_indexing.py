"""NumPy indexing (`x[idx]`): parsing an index expression into a static plan plus index operands.

`parse_index` turns any index NumPy allows (integers, slices with any step, None, Ellipsis,
integer arrays and lists, boolean masks and scalars) into hashable tokens and a list of index
operands; `_indexing_gather.py` lowers the tokens to slices or one gather/scatter. Eager calls
run through one cached `jit` per token structure, so the index values never trigger recompiles.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any

import numpy as np

from stablax._src import core, dtypes
from stablax._src import ir as mlir
from stablax._src.array import Array
from stablax._src.core import ConcretizationTypeError, Tracer
from stablax._src.errors import NonConcreteBooleanIndexError, TracerIntegerConversionError
from stablax._src.jit import jit
from stablax._src.numpy._asarray import asarray, nested_leaves

# Tokens, one per item of the expanded index (a plain tuple, so plans are hashable cache keys):
#   ("none",)                      a new axis of size 1
#   ("sep",)                       an Ellipsis standing for no dimension: it still separates
#                                  advanced indices (NumPy's transposition rule)
#   ("slice", start, stop, step)   a static slice, already resolved against its dimension
#   ("dslice", k, count, reverse)  a unit-step slice of `count` elements whose lowest index is
#                                  operand k (eager calls only; reversed for step -1)
#   ("int", k, wrapped)            a scalar integer index, operand k (basic indexing)
#   ("array", k, wrapped)          an advanced index (integer array, or an integer among arrays)
#   ("new", k, wrapped)            an advanced index over a new size-1 axis (a boolean scalar)
# `wrapped` says the operand's negative values were already resolved (on the host, or because
# negative indices are out of bounds by request), so the program must not wrap them again.
ADVANCED = ("array", "new")


def _is_bool_scalar(item: Any) -> bool:
    if isinstance(item, (bool, np.bool_)):
        return True
    aval = getattr(item, "aval", None)
    if aval is not None:
        return aval.ndim == 0 and aval.dtype == np.bool_
    return isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype == np.bool_


def _is_int_scalar(item: Any) -> bool:
    if isinstance(item, (bool, np.bool_)):
        return False
    if isinstance(item, (int, np.integer)):
        return True
    aval = getattr(item, "aval", None)
    if aval is not None:
        return aval.ndim == 0 and aval.dtype.kind in "iu"
    return isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype.kind in "iu"


def _concrete_mask(mask: Any) -> np.ndarray:
    """A boolean index's value on the host; traced masks must be concretizable (not under jit)."""
    if isinstance(mask, Tracer):
        try:
            return np.asarray(mask._trace.concrete_value(mask, "a boolean index"))
        except ConcretizationTypeError:
            raise NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got {mask.aval.str_short()}"
                f"{mlir.where_suffix()}.\nThe number of selected elements, and so the result "
                "shape, would depend on traced values. Use jnp.where(mask, x, fill) to keep the "
                "shape, or give a static size with jnp.nonzero(mask, size=n) / "
                "jnp.where(mask, size=n) and index with the result."
            ) from None
    return np.asarray(mask)


def _sequence_error(seq: list) -> TypeError:
    scalars = all(_is_int_scalar(s) or _is_bool_scalar(s) for s in seq)
    fix = "arr[array(seq)]" if scalars else "arr[tuple(seq)]"
    return TypeError(
        "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
        f"`{fix}` instead of `arr[seq]`{mlir.where_suffix()}."
    )


def _as_index_array(item: Any) -> Any:
    """Lists become arrays (stacked if they hold traced values); dtypes must be integer or bool."""
    if isinstance(item, list):
        flat = list(nested_leaves(item))
        if any(isinstance(v, (Array, Tracer)) for v in flat):
            item = asarray(item)
        else:
            item = np.asarray(item) if flat else np.zeros(np.shape(item), np.int32)
    dtype = np.dtype(item.dtype)
    if dtype.kind not in "biu" and not dtypes.issubdtype(dtype, np.integer):  # int4 too, as JAX
        raise TypeError(
            "Indexer must have integer or boolean type, got indexer with type "
            f"{dtype.name}{mlir.where_suffix()}"
        )
    return item


def _classify(item: Any) -> tuple[str, Any]:
    if item is None:
        return "none", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, slice):
        return "slice", item
    if _is_bool_scalar(item):
        return "bool", bool(_concrete_mask(item))
    if _is_int_scalar(item):
        return "int", item
    if isinstance(item, (list, np.ndarray, Array, Tracer)):
        item = _as_index_array(item)
        return ("mask" if np.dtype(item.dtype) == np.bool_ else "array"), item
    if isinstance(item, str):
        raise TypeError(f"stablax does not support string indexing; got idx={item!r}")
    if hasattr(item, "__jax_array__"):
        return _classify(item.__jax_array__())
    kind = getattr(item, "dtype", type(item).__name__)
    raise TypeError(
        f"Indexer must have integer or boolean type, got indexer with type {kind}"
        f"{mlir.where_suffix()}"
    )


def _static_slice_entry(value: Any, s: slice, position: int) -> int | None:
    if value is None:
        return None
    try:
        return operator.index(value)
    except (ConcretizationTypeError, TracerIntegerConversionError):
        raise IndexError(
            f"Slice entries must be static integers. Got {s} at position {position}"
            f"{mlir.where_suffix()}. Use lax.dynamic_slice for a traced start."
        ) from None


def parse_index(idx: Any, shape: tuple[int, ...]) -> tuple[tuple, list]:
    """The tokens and index operands of `x[idx]` for an array of `shape` (see the table above)."""
    if isinstance(idx, list):
        raise _sequence_error(idx)
    if not isinstance(idx, tuple):
        idx = (idx,)
    classified = [_classify(item) for item in idx]
    masks = {i: _concrete_mask(v) for i, (k, v) in enumerate(classified) if k == "mask"}
    consumed = sum(
        masks[i].ndim if k == "mask" else 1
        for i, (k, _) in enumerate(classified)
        if k in ("slice", "int", "array", "mask")
    )
    ellipses = [i for i, (k, _) in enumerate(classified) if k == "ellipsis"]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > len(shape):
        raise IndexError(
            f"Too many indices: array is {len(shape)}-dimensional, but {consumed} were indexed"
        )
    advanced = any(k in ("array", "mask", "bool") for k, _ in classified)
    tokens: list[tuple] = []
    operands: list[Any] = []
    dim = 0
    for position, (kind, value) in enumerate(classified):
        if kind == "ellipsis":
            if len(shape) == consumed:
                tokens.append(("sep",))
            for _ in range(len(shape) - consumed):
                tokens.append(("slice", 0, shape[dim], 1))
                dim += 1
        elif kind == "none":
            tokens.append(("none",))
        elif kind == "slice":
            entries = (value.start, value.stop, value.step)
            start, stop, step = (_static_slice_entry(e, value, position) for e in entries)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            tokens.append(("slice", *slice(start, stop, step).indices(shape[dim])))
            dim += 1
        elif kind == "bool":
            tokens.append(("new", len(operands), True))
            operands.append(np.zeros(int(value), np.int32))
        elif kind == "mask":
            mask = masks[position]
            expected = shape[dim : dim + mask.ndim]
            if mask.shape != expected:
                raise IndexError(
                    "boolean index did not match shape of indexed array in index "
                    f"{position}: got {mask.shape}, expected {expected}"
                )
            for where in np.nonzero(mask):
                tokens.append(("array", len(operands), True))
                operands.append(where.astype(np.int32 if where.size < 2**31 else np.int64))
                dim += 1
        else:  # an integer or an integer array
            tokens.append(("array" if advanced else "int", len(operands), False))
            operands.append(value)
            dim += 1
    tokens.extend(("slice", 0, shape[d], 1) for d in range(dim, len(shape)))
    return tuple(tokens), operands


def operand_sizes(tokens: tuple, shape: tuple[int, ...]) -> list[int]:
    """The size of the dimension each token indexes (1 for new axes, 0 for None and "sep")."""
    sizes, dims = [], iter(shape)
    for token in tokens:
        kind = token[0]
        sizes.append(0 if kind in ("none", "sep") else 1 if kind == "new" else next(dims))
    return sizes


def prewrap_static(
    tokens: tuple, operands: list, shape: tuple[int, ...], wrap_negative: bool = True
) -> tuple[tuple, list]:
    """Resolves negative static indices on the host; out-of-bounds ones become -1 or the size.

    The program then neither wraps them nor recompiles for each value: eager calls pass them as
    operands. Traced indices are left to the program.
    """
    out_tokens, out_operands = list(tokens), list(operands)
    for t, (token, size) in enumerate(zip(tokens, operand_sizes(tokens, shape), strict=True)):
        if token[0] not in ("int", "array", "new") or token[2]:
            continue
        value = operands[token[1]]
        if isinstance(value, (Array, Tracer)):
            if not wrap_negative:
                out_tokens[t] = (token[0], token[1], True)
            continue
        if isinstance(value, (int, np.integer)):  # a Python int: cheap, and cached on device
            value = int(value)
            value = value + size if value < 0 and wrap_negative else value
            out_operands[token[1]] = min(max(value, -1), size)
            out_tokens[t] = (token[0], token[1], True)
            continue
        value = np.asarray(value)
        if value.dtype.kind == "u":
            value = np.minimum(value, size).astype(np.int64)
        else:
            value = value.astype(np.int64)
            if wrap_negative:
                value = np.where(value < 0, value + size, value)
            value = np.clip(value, -1, size)
        dtype = np.int32 if size < 2**31 - 1 else np.int64
        out_operands[token[1]] = value.astype(dtype)
        out_tokens[t] = (token[0], token[1], True)
    return tuple(out_tokens), out_operands


def dynamic_slice_starts(
    tokens: tuple, operands: list, shape: tuple[int, ...]
) -> tuple[tuple, list]:
    """Unit-step slices (step 1 or -1) of basic indices become operands of a `dynamic_slice`.

    `x[i:i+10]` then compiles once for every `i` (as JAX's eager slices do). Token:
    ("dslice", k, count, reverse), operand k being the lowest index the slice reads.
    """
    if any(t[0] in ADVANCED for t in tokens):
        return tokens, operands
    out_tokens, out_operands = list(tokens), list(operands)
    for t, (token, size) in enumerate(zip(tokens, operand_sizes(tokens, shape), strict=True)):
        if token[0] != "slice" or token[3] not in (1, -1):
            continue
        start, stop, step = token[1:]
        count = len(range(start, stop, step))
        if count in (0, size):  # nothing to read, or the whole axis: one program anyway
            continue
        low = start if step == 1 else start - count + 1
        out_tokens[t] = ("dslice", len(out_operands), count, step == -1)
        out_operands.append(low)
    return tuple(out_tokens), out_operands


# --- eager dispatch: one jit per static structure ----------------------------------------------

_eager_functions: dict[tuple, Any] = {}
_EAGER_CACHE_LIMIT = 2048


def run_eagerly(key: tuple, impl: Any, *args: Any) -> Any:
    """Runs `impl(*args)` through a `jit` cached under `key` (the static parts of the call)."""
    jitted = _eager_functions.get(key)
    if jitted is None:
        if len(_eager_functions) >= _EAGER_CACHE_LIMIT:
            _eager_functions.clear()
        jitted = _eager_functions[key] = jit(impl)
    return jitted(*args)


def is_eager(x: Any, operands: list) -> bool:
    """True when nothing is being traced, so the index operation can be one cached program."""
    return not core.trace_state.stack and not isinstance(x, Tracer)


@dataclasses.dataclass(frozen=True)
class DynamicSlice:
    """`ds(start, size, stride)`: `size` elements from `start` (which may be traced), every
    `stride`-th (JAX's `Slice`)."""

    start: Any
    size: int
    stride: int = 1

    def __post_init__(self) -> None:
        if self.stride < 0:
            raise ValueError("`stride` must be >= 0.")
