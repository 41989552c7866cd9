"""`stablax.ops`: segment reductions (`segment_sum`, `_prod`, `_max`, `_min`), as `jax.ops`.

Each is a scatter into an array of the reduction's identity, one row per segment; ids outside
`[0, num_segments)` (negative ones included) are dropped unless `mode` says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import dtypes, lax, runtime
from stablax._src.numpy import _reductions
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._creation import arange, full
from stablax._src.numpy._sorting import concrete_value


def _identity(combine: str, dtype: np.dtype) -> Any:
    if combine == "add":
        return 0
    if combine == "mul":
        return 1
    is_min = combine == "min"
    if dtype == np.bool_:
        return is_min
    if dtypes.issubdtype(dtype, np.integer):
        info = dtypes.iinfo(dtype)
        return info.max if is_min else info.min
    return float("inf") if is_min else float("-inf")


_REDUCERS = {
    "add": _reductions.sum,
    "mul": _reductions.prod,
    "max": _reductions.max,
    "min": _reductions.min,
}


def _segment_reduce(
    name: str,
    combine: str,
    data: Any,
    segment_ids: Any,
    num_segments: int | None,
    indices_are_sorted: bool,
    unique_indices: bool,
    bucket_size: int | None,
    mode: Any,
) -> Any:
    for value, what in ((data, "data"), (segment_ids, "segment_ids")):
        if isinstance(value, (list, tuple)):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got list for {what}")
    mode = lax.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data, segment_ids = asarray(data), asarray(segment_ids)
    if segment_ids.ndim != 1 or data.ndim < 1 or data.shape[0] != segment_ids.shape[0]:
        raise ValueError(
            f"{name}: segment_ids must be 1-D with one id per row of data, got data "
            f"{data.dtype}{list(data.shape)} and segment_ids {segment_ids.dtype}"
            f"{list(segment_ids.shape)}"
        )
    if num_segments is None:
        hint = f"Pass num_segments to {name} to use it under jit or vmap."
        ids = concrete_value(segment_ids, f"{name}() `num_segments` argument", hint)
        num_segments = int(ids.max()) + 1 if ids.size else 0
    num_segments = int(num_segments)
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    dtype = data.dtype
    identity = _identity(combine, dtype)
    options = dict(
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode=mode,
        wrap_negative_indices=False,
    )
    if bucket_size is None:
        out = full((num_segments, *data.shape[1:]), identity, dtype=dtype)
        return getattr(out.at[segment_ids], _METHODS[combine])(data, **options)
    # One row of partial results per bucket of `bucket_size` consecutive ids, reduced at the end:
    # shorter chains of sums or products are more accurate.
    num_buckets = -(-segment_ids.shape[0] // int(bucket_size))
    out = full((num_buckets, num_segments, *data.shape[1:]), identity, dtype=dtype)
    buckets = arange(segment_ids.shape[0]) // int(bucket_size)
    updated = getattr(out.at[buckets, segment_ids], _METHODS[combine])(data, **options)
    return _REDUCERS[combine](updated, axis=0).astype(dtype)


_METHODS = {"add": "add", "mul": "multiply", "max": "max", "min": "min"}


def _segment_reduction(name: str, combine: str, doc: str) -> Callable[..., Any]:
    """The public segment reduction `name`: a `combine` scatter, documented by `doc`."""

    def reduction(
        data: Any,
        segment_ids: Any,
        num_segments: int | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        bucket_size: int | None = None,
        mode: Any = None,
        *,
        out_sharding: Any = None,
    ) -> Any:
        runtime.check_sharding(out_sharding, f"ops.{name}")
        return _segment_reduce(
            name,
            combine,
            data,
            segment_ids,
            num_segments,
            indices_are_sorted,
            unique_indices,
            bucket_size,
            mode,
        )

    reduction.__name__ = reduction.__qualname__ = name
    reduction.__doc__ = doc
    return reduction


segment_sum = _segment_reduction(
    "segment_sum",
    "add",
    """Sums the rows of `data` that share a segment id.

    Args:
      data: an array; row `i` (along axis 0) belongs to segment `segment_ids[i]`.
      segment_ids: an integer vector, one id per row of `data`.
      num_segments: the number of segments (the output's first dimension). Needed under `jit`
        and `vmap`; by default `max(segment_ids) + 1`, which needs concrete ids.
      indices_are_sorted: whether `segment_ids` is sorted (a hint for XLA).
      unique_indices: whether no id repeats (a hint for XLA).
      bucket_size: if given, rows are summed in buckets of this many consecutive rows first,
        then the buckets' results are summed: more accurate for long segments.
      mode: a `lax.GatherScatterMode`; by default ids outside `[0, num_segments)` are dropped.
      out_sharding: None, or a sharding on stablax's one device.

    Returns:
      An array of shape `(num_segments, *data.shape[1:])`; an empty segment holds 0.
      Lowers to `stablehlo.scatter` with an add combiner (`jnp.zeros(...).at[ids].add(data)`).
    """,
)

segment_prod = _segment_reduction(
    "segment_prod",
    "mul",
    """Multiplies the rows of `data` that share a segment id (see `segment_sum` for the args).

    Returns:
      An array of shape `(num_segments, *data.shape[1:])`; an empty segment holds 1.

    `out_sharding`: None, or a sharding on stablax's one device.
    """,
)

segment_max = _segment_reduction(
    "segment_max",
    "max",
    """The maximum of the rows of `data` that share a segment id (see `segment_sum`).

    Returns:
      An array of shape `(num_segments, *data.shape[1:])`; an empty segment holds the dtype's
      lowest value (-inf for floats, False for bools).

    `out_sharding`: None, or a sharding on stablax's one device.
    """,
)

segment_min = _segment_reduction(
    "segment_min",
    "min",
    """The minimum of the rows of `data` that share a segment id (see `segment_sum`).

    Returns:
      An array of shape `(num_segments, *data.shape[1:])`; an empty segment holds the dtype's
      highest value (inf for floats, True for bools).

    `out_sharding`: None, or a sharding on stablax's one device.
    """,
)
