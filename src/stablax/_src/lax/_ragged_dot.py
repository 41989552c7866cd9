"""Grouped matrix products: `ragged_dot` / `ragged_dot_general` (a mixture-of-experts matmul)
and `scaled_dot` (block-scaled low-precision matmul), composed from masks and `dot_general`.

`ragged_dot_general` has JAX's three modes, by where the lhs ragged dimension sits:
non-contracting ([m, k] x [g, k, n] -> [m, n]), contracting ([m, k] x [k, n] -> [g, m, n]) and
batch. Each group's rows (or contracted entries) are masked in, then one `dot_general` runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from stablax._src import dtypes
from stablax._src import ir as mlir
from stablax._src.avals import aval_of
from stablax._src.lax._cumulative import cumsum
from stablax._src.lax._dot import _dims, canonicalize_precision, dot_general
from stablax._src.lax._elementwise import bitwise_and, le, lt, mul, select, sub
from stablax._src.lax._reshape_axes import expand_dims
from stablax._src.lax._shapes import (
    broadcast_in_dim,
    broadcasted_iota,
    convert_element_type,
    full_like,
    reshape,
)


@dataclasses.dataclass(frozen=True, init=False)
class RaggedDotDimensionNumbers:
    """The dimensions of `ragged_dot_general`: the `dot_general` dimension numbers, the one lhs
    ragged dimension, and the rhs group dimension (non-contracting mode only)."""

    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: tuple[int, ...]
    rhs_group_dimensions: tuple[int, ...]

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers", _dims(dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(map(int, lhs_ragged_dimensions)))
        object.__setattr__(self, "rhs_group_dimensions", tuple(map(int, rhs_group_dimensions)))


_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def _remaining(n: int, *taken: Sequence[int]) -> list[int]:
    used = {d for dims in taken for d in dims}
    return [d for d in range(n) if d not in used]


def _expand(x: Any, dim: int, group_sizes: Any, prefix: Sequence[int]) -> Any:
    """x with a leading group axis g: entry [j, ...] keeps x where the position along `dim`
    falls in group j (whose sizes may vary along x's `prefix` dims), zero elsewhere."""
    aval = aval_of(x)
    num_groups = aval_of(group_sizes).shape[-1]
    shape = (num_groups, *aval.shape)
    ends = cumsum(group_sizes, axis=aval_of(group_sizes).ndim - 1)
    starts = sub(ends, group_sizes)
    # group_sizes is [*prefix sizes, g]: its group axis goes to 0, its others to the prefix dims.
    layout = (*[1 + p for p in prefix], 0)
    starts = broadcast_in_dim(starts, shape, layout)
    ends = broadcast_in_dim(ends, shape, layout)
    position = broadcasted_iota(aval_of(group_sizes).dtype, shape, dim + 1)
    mask = bitwise_and(le(starts, position), lt(position, ends))
    spread = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    return select(mask, spread, full_like(spread, 0))


def ragged_dot_general(
    lhs: Any,
    rhs: Any,
    group_sizes: Any,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
    precision: Any = None,
    preferred_element_type: Any = None,
    group_offset: Any = None,
    out_sharding: Any = None,
) -> Any:
    """`dot_general` where one lhs dimension is split into consecutive groups of the given sizes.

    Args:
      lhs, rhs: the operands.
      group_sizes: integer array `[g]` (or `[*prefix, g]` for sizes varying along the lhs
        batch/leading dims), summing to at most the ragged dimension's size; later entries
        belong to no group.
      ragged_dot_dimension_numbers: a `RaggedDotDimensionNumbers`.
      precision, preferred_element_type: as for `dot_general`.
      group_offset, out_sharding: not supported (None), as on JAX's CPU backend.

    Returns:
      Non-contracting ragged dim: rows of group j multiply `rhs`'s group j, shape as
      `dot_general`. Contracting: one product per group, stacked on a new leading axis `g`.
      Batch: plain `dot_general`.
    """
    if out_sharding is not None:
        raise NotImplementedError("ragged_dot_general: out_sharding is not supported")
    precision = canonicalize_precision(precision)  # after out_sharding, before the operands
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    numbers = ragged_dot_dimension_numbers
    if not isinstance(numbers, RaggedDotDimensionNumbers):
        raise TypeError(
            "lax.ragged_dot_general: ragged_dot_dimension_numbers must be a "
            f"RaggedDotDimensionNumbers, got {type(numbers).__name__}"
        )
    (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
    gs = aval_of(group_sizes)
    if not dtypes.issubdtype(gs.dtype, np.integer):
        raise TypeError(
            "ragged_dot_general requires that group_sizes.dtype is subtype of np.integer."
        )
    if gs.ndim == 0:
        raise TypeError("expected rank of group_sizes to be >=1.")
    if len(numbers.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    ndim = aval_of(lhs).ndim
    ragged = numbers.lhs_ragged_dimensions[0]
    free = _remaining(ndim, lc, lb)
    dot = dict(precision=precision, preferred_element_type=preferred_element_type)
    if ragged in lb:
        return dot_general(lhs, rhs, numbers.dot_dimension_numbers, **dot)
    if ragged in free:
        prefix = [*lb, *free[: free.index(ragged)]]
    elif ragged in lc:
        prefix = [*lb, *lc[: lc.index(ragged)]]
    else:
        raise TypeError(f"lhs_ragged_dim {ragged} is out of range for an lhs of rank {ndim}.")
    group_sizes = _broadcast_group_sizes(group_sizes, [aval_of(lhs).shape[i] for i in prefix])
    lhs_groups = _expand(lhs, ragged, group_sizes, prefix)
    inc = lambda dims: [d + 1 for d in dims]  # noqa: E731
    if ragged in free:
        if len(numbers.rhs_group_dimensions) != 1:
            raise TypeError(
                "ragged_dot_general requires exactly one rhs group dimension when lhs ragged "
                "dimension is noncontracting."
            )
        (group_dim,) = numbers.rhs_group_dimensions
        rhs_ndim = aval_of(rhs).ndim
        if not 0 <= group_dim < rhs_ndim:  # JAX's class and message
            raise TypeError(
                "ragged_dot_general requires rhs group dimension numbers to be nonnegative and "
                "less than the number of axes of the rhs value, got "
                f"{group_dim} for rhs of rank {rhs_ndim}."
            )
        if aval_of(rhs).shape[group_dim] != gs.shape[-1]:
            raise TypeError(
                f"expected rhs group dimension size to be {gs.shape[-1]}, got "
                f"{aval_of(rhs).shape[group_dim]}."
            )
        contract = ((*inc(lc), 0), (*rc, group_dim))
        return dot_general(lhs_groups, rhs, (contract, (inc(lb), rb)), **dot)
    if numbers.rhs_group_dimensions:
        raise TypeError(
            "ragged_dot_general requires zero group dimensions in the rhs when lhs ragged "
            "dimension is contracting or batch."
        )
    rhs_ragged = rc[lc.index(ragged)]
    rhs_prefix = [*rb, *rc[: rc.index(rhs_ragged)]]
    rhs_groups = _expand(rhs, rhs_ragged, group_sizes, rhs_prefix)
    return dot_general(
        lhs_groups, rhs_groups, ((inc(lc), inc(rc)), ([0, *inc(lb)], [0, *inc(rb)])), **dot
    )


def _broadcast_group_sizes(group_sizes: Any, prefix_sizes: list[int]) -> Any:
    aval = aval_of(group_sizes)
    expected = (*prefix_sizes, aval.shape[-1])
    if aval.ndim == 1:
        return broadcast_in_dim(group_sizes, expected, (len(prefix_sizes),))
    if aval.shape != expected:
        raise TypeError(f"expected group_sizes to have shape {expected}, got {aval.shape}.")
    return group_sizes


def ragged_dot(
    lhs: Any,
    rhs: Any,
    group_sizes: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    group_offset: Any = None,
    out_sharding: Any = None,
) -> Any:
    """`lhs[m, k]` times `rhs[g, k, n]` where consecutive rows of lhs use successive groups of rhs.

    Args:
      lhs: `[m, k]`.
      rhs: `[g, k, n]`.
      group_sizes: integer `[g]`; rows `sum(group_sizes[:j])` to `sum(group_sizes[:j+1])` of
        lhs multiply `rhs[j]` (rows past the last group give 0).

    Returns:
      `[m, n]`.
    """
    precision = canonicalize_precision(precision)  # first, as JAX's ragged_dot
    return ragged_dot_general(
        lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type, group_offset, out_sharding
    )


# --- scaled_dot --------------------------------------------------------------------------------


def _scale_to(scale: Any, shape: tuple[int, ...], contracting: Sequence[int]) -> Any:
    # Each scale entry covers a block of consecutive entries along the contracting dimensions.
    for i in contracting:
        have = aval_of(scale).shape
        if have[i] != shape[i]:
            if have[i] == 0 or shape[i] % have[i]:
                raise TypeError(
                    f"a scale of size {have[i]} does not divide dimension {i} of size {shape[i]}"
                )
            block = shape[i] // have[i]
            spread = (*have[: i + 1], block, *have[i + 1 :])
            scale = broadcast_in_dim(
                expand_dims(scale, (i + 1,)), spread, tuple(range(len(spread)))
            )
            scale = reshape(scale, (*have[:i], have[i] * block, *have[i + 1 :]))
    return scale


def _check_block_size(side: str, shape: tuple, scale: Any, contracting: Sequence[int]) -> None:
    # JAX's check: a scale covers blocks of at least 2 entries of a contracting dim. A missing
    # scale is JAX's unit scale (size 1 there), so those dims need 2 entries too.
    have = (1,) * len(shape) if scale is None else aval_of(scale).shape
    for i in contracting:
        if have[i] and shape[i] % have[i] == 0 and shape[i] // have[i] < 2:
            raise TypeError(
                f"scaled_dot: the ratio of {side} contracting dim {i} (size {shape[i]}) to its "
                f"scale's size {have[i]} must be at least 2{mlir.where_suffix()}"
            )


def _unit_scale(shape: tuple[int, ...], contracting: Sequence[int]) -> Any:
    scale_shape = tuple(1 if i in contracting else d for i, d in enumerate(shape))
    return convert_element_type(
        broadcast_in_dim(np.ones((), ml_dtypes.bfloat16), scale_shape, ()), ml_dtypes.float8_e8m0fnu
    )


def scaled_dot(
    lhs: Any,
    rhs: Any,
    *,
    lhs_scale: Any = None,
    rhs_scale: Any = None,
    dimension_numbers: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """`(lhs * lhs_scale) @ (rhs * rhs_scale)` for block-scaled operands (e.g. float8 with
    float8_e8m0fnu scales), computed in bfloat16 and accumulated in `preferred_element_type`.

    Args:
      lhs, rhs: the operands (rank >= 2).
      lhs_scale, rhs_scale: scales; along contracting dimensions each entry scales a block of
        `size // scale_size` consecutive entries, elsewhere sizes match. None means 1.
      dimension_numbers: as `dot_general`'s; default: contract lhs's last axis with rhs's
        second-to-last, leading axes batched.
      preferred_element_type: bfloat16 (default) or float32.

    Returns:
      The product, of `preferred_element_type`.
    """
    lhs_aval, rhs_aval = aval_of(lhs), aval_of(rhs)
    given = {"lhs": lhs, "rhs": rhs, "lhs_scale": lhs_scale, "rhs_scale": rhs_scale}
    ranks = {k: aval_of(v).ndim for k, v in given.items() if v is not None}
    if len(set(ranks.values())) > 1:  # JAX's check and class
        listed = ", ".join(f"{k} rank {r}" for k, r in ranks.items())
        raise TypeError(
            f"scaled_dot: all input tensors must have the same rank, got {listed}"
            f"{mlir.where_suffix()}"
        )
    if dimension_numbers is None:
        n = lhs_aval.ndim
        if n < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        batch = tuple(range(n - 2))
        dimension_numbers = (((n - 1,), (n - 2,)), (batch, batch))
    (lc, rc), _ = _dims(dimension_numbers)
    for side, operand, scale, contracting in (
        ("lhs", lhs_aval, lhs_scale, lc),
        ("rhs", rhs_aval, rhs_scale, rc),
    ):
        _check_block_size(side, operand.shape, scale, contracting)
    if lhs_scale is None:
        lhs_scale = _unit_scale(lhs_aval.shape, lc)
    if rhs_scale is None:
        rhs_scale = _unit_scale(rhs_aval.shape, rc)
    out_dtype = ml_dtypes.bfloat16 if preferred_element_type is None else preferred_element_type
    out_dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(out_dtype, "scaled_dot"))
    bf16 = np.dtype(ml_dtypes.bfloat16)

    def scaled(x, scale, shape, contracting):
        scale = convert_element_type(_scale_to(scale, shape, contracting), bf16)
        return mul(convert_element_type(x, bf16), scale)

    try:
        lhs_scaled = scaled(lhs, lhs_scale, lhs_aval.shape, lc)
        rhs_scaled = scaled(rhs, rhs_scale, rhs_aval.shape, rc)
    except TypeError as err:
        raise TypeError(
            f"scaled_dot: scales do not fit the operands: {err}{mlir.where_suffix()}"
        ) from None
    return dot_general(lhs_scaled, rhs_scaled, dimension_numbers, preferred_element_type=out_dtype)


__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general", "scaled_dot"]
