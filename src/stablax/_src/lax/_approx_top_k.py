"""`approx_max_k` / `approx_min_k`: XLA's approximate top-k, computed exactly.

On TPU, XLA trades recall for speed; elsewhere (CPU and GPU) it falls back to an exact top-k,
which is what these functions compute on every backend: the results meet any `recall_target`,
and match JAX's CPU results, ties included.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.lax._argcheck import RANK, axis_arg
from stablax._src.lax._elementwise import add, sub
from stablax._src.lax._elementwise_unary import neg
from stablax._src.lax._shapes import broadcasted_iota, full_like
from stablax._src.lax._slice_pad import rev, slice_in_dim
from stablax._src.lax._sort import sort, top_k


def _approx_top_k(
    name: str,
    operand: Any,
    k: int,
    reduction_dimension: int,
    recall_target: float,
    is_max_k: bool,
    reduction_input_size_override: int,
    aggregate_to_topk: bool,
) -> tuple[Any, Any]:
    aval = aval_of(operand)
    dtypes.check_user_dtype(aval.dtype, name)  # an operand that is no array (bytes) first
    # JAX's order: k's sign (compared as given: 1.5 passes), the rank, k against the size, the
    # dtype; a k that is no integer fails only then (TypeError, as JAX's shape check).
    if k <= 0:
        raise ValueError(f"{name}: k must be positive, got {k}{mlir.where_suffix()}")
    if aval.ndim == 0:
        raise TypeError(f"{name}: operand must have at least one dimension, got shape ()")
    dim = axis_arg(reduction_dimension, aval.ndim, f"lax.{name}", array=RANK)
    size = aval.shape[dim]
    if size < k:
        raise ValueError(
            f"{name}: k must be in (0, {size}] (the size of dimension {dim}), got {k}"
            f"{mlir.where_suffix()}"
        )
    if not dtypes.issubdtype(aval.dtype, np.floating):
        raise ValueError(f"{name}: operand must be a floating type, got {aval.dtype}")
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"{name}: k must be an integer, got {k!r}{mlir.where_suffix()}") from None
    if not 0.0 < recall_target <= 1.0:
        raise ValueError(f"{name}: recall_target must be in (0, 1], got {recall_target}")
    if reduction_input_size_override not in (-1,) and reduction_input_size_override < size:
        raise ValueError(
            f"{name}: reduction_input_size_override ({reduction_input_size_override}) must be "
            f"at least the size of the reduced dimension ({size})"
        )
    # Without aggregation the fallback returns the whole sorted dimension.
    keep = k if aggregate_to_topk else size
    if keep == size or keep == 1:
        return _by_sort(operand, dim, keep, is_max_k, last_of_ties=keep == 1 < size)
    # XLA's TopK on the rest: IEEE total order (+0 above -0), ties to the lower index.
    if is_max_k:
        values, indices = top_k(operand, keep, axis=dim)
        return values, indices
    values, indices = top_k(neg(operand), keep, axis=dim)
    return neg(values), indices


def _by_sort(operand: Any, dim: int, keep: int, is_max_k: bool, last_of_ties: bool):
    # As XLA's fallback sorts the whole axis (and reduces for k = 1): a stable sort whose keys
    # treat -0.0 and +0.0 as equal (x + 0.0 is +0.0 for both), descending for max through
    # negated keys; the k = 1 reduction keeps the last of tied entries. NaNs are unordered.
    size = aval_of(operand).shape[dim]
    source = rev(operand, (dim,)) if last_of_ties else operand
    keys = add(source, full_like(source, 0))
    if is_max_k:
        keys = neg(keys)
    positions = broadcasted_iota(np.int32, aval_of(operand).shape, dim)
    _, indices, values = sort((keys, positions, source), dimension=dim, num_keys=1)
    values, indices = (
        slice_in_dim(values, 0, keep, axis=dim),
        slice_in_dim(indices, 0, keep, axis=dim),
    )
    if last_of_ties:
        indices = sub(full_like(indices, size - 1), indices)
    return values, indices


def approx_max_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Any, Any]:
    """The `k` largest entries along `reduction_dimension`, in descending order, and their int32
    indices.

    Args:
      operand: a floating array.
      k: how many entries to return.
      reduction_dimension: the axis to search.
      recall_target: the recall XLA may settle for on TPU (results here are exact).
      reduction_input_size_override: the logical size of the axis when the operand is a shard.
      aggregate_to_topk: if False, XLA may return more than k candidates: here, the whole axis
        in descending order.

    Returns:
      `(values, indices)`. Differentiable in `operand` (through the exact selection).
    """
    return _approx_top_k(
        "approx_max_k",
        operand,
        k,
        reduction_dimension,
        recall_target,
        True,
        reduction_input_size_override,
        aggregate_to_topk,
    )


def approx_min_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Any, Any]:
    """The `k` smallest entries along `reduction_dimension`, in ascending order, and their int32
    indices (see `approx_max_k`)."""
    return _approx_top_k(
        "approx_min_k",
        operand,
        k,
        reduction_dimension,
        recall_target,
        False,
        reduction_input_size_override,
        aggregate_to_topk,
    )
