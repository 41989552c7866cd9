"""Op records for indexing by runtime values: dynamic_slice/update, gather, scatter.

Index arguments are drawn partly out of bounds (negative and past the end) so that clamping,
filling and dropping are exercised; the NumPy references spell the semantics out with loops.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from stablax import lax
from tests.op_record import BF16, BOOL, C64, F16, F32, F64, I8, I32, I64, U8, OpRecord, standard

DATA = (F32, F16, BF16, I32, I8, U8, BOOL, C64)
SOME = (F32, I32)
GD = lax.GatherDimensionNumbers
SD = lax.ScatterDimensionNumbers


def indices_in(lo, hi, dtype=None):
    """A generator of integer indices in [lo, hi)."""
    return lambda rng, shape, dt: rng.integers(lo, hi, shape).astype(dtype or dt)


def constant(*values):
    return lambda rng, shape, dt: np.asarray(values, dt).reshape(shape)


def spread(offset):
    """Distinct floats k/2 + offset: operand (offset 0) and updates (0.25) never nearly tie, so
    scatter_min/max are differentiable at the point even with wide finite-difference steps."""

    def draw(rng, shape, dt):
        if np.dtype(dt).kind in "biu":
            return standard(rng, shape, dt)
        n = int(np.prod(shape))
        return (rng.permutation(4 * n + 4)[:n] / 2 - n + offset).reshape(shape).astype(dt)

    return draw


def unique_rows(hi):
    """Distinct index vectors in [-2, hi + 2), so that scatter-replace has a defined result."""

    def draw(rng, shape, dt):
        points = list(itertools.product(range(-2, hi + 2), repeat=shape[-1]))
        chosen = rng.choice(len(points), int(np.prod(shape[:-1])), replace=False)
        return np.asarray([points[i] for i in chosen], dt).reshape(shape)

    return draw


# --- references ------------------------------------------------------------------------------


def _wrap_clamp(start, size, dim):
    start = int(start)
    start = start + dim if start < 0 else start
    return min(max(start, 0), dim - size)


def np_dynamic_slice(x, starts, sizes):
    return x[
        tuple(
            slice(s, s + n)
            for s, n in ((_wrap_clamp(s, n, d), n) for s, n, d in zip(starts, sizes, x.shape))
        )
    ]


def np_dynamic_update_slice(x, update, starts):
    out = x.copy()
    starts = [_wrap_clamp(s, n, d) for s, n, d in zip(starts, update.shape, x.shape)]
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


def _starts(operand, vector, batch, index_map, operand_batching, indices_batching):
    start = [0] * operand.ndim
    for k, d in enumerate(index_map):
        start[d] = int(vector[k])
    for d, b in zip(operand_batching, indices_batching):
        start[d] = batch[b]
    return start


def np_gather(operand, indices, dn, slice_sizes, mode="clip", fill=None):
    """StableHLO gather, one index vector at a time; mode 'clip' or 'fill'."""
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    window = [slice_sizes[d] for d in range(operand.ndim) if d not in dropped]
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    batch_dims = [d for d in range(out_rank) if d not in dn.offset_dims]
    shape = [0] * out_rank
    for d, n in zip(dn.offset_dims, window):
        shape[d] = n
    for d, n in zip(batch_dims, indices.shape[:-1]):
        shape[d] = n
    out = np.empty(shape, operand.dtype)
    for batch in np.ndindex(*indices.shape[:-1]):
        start = _starts(
            operand,
            indices[batch],
            batch,
            dn.start_index_map,
            dn.operand_batching_dims,
            dn.start_indices_batching_dims,
        )
        fits = all(0 <= start[d] <= operand.shape[d] - slice_sizes[d] for d in range(operand.ndim))
        start = [min(max(s, 0), n - k) for s, n, k in zip(start, operand.shape, slice_sizes)]
        values = operand[tuple(slice(s, s + k) for s, k in zip(start, slice_sizes))]
        values = values.reshape(window)
        if mode == "fill" and not fits:
            values = np.full(window, fill, operand.dtype)
        position = [slice(None)] * out_rank
        for d, b in zip(batch_dims, batch):
            position[d] = b
        out[tuple(position)] = values
    return out


def np_scatter(operand, indices, updates, dn, combine, mode="drop"):
    """StableHLO scatter, one update window at a time; mode 'drop' or 'clip'."""
    out = operand.copy()
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    windows = iter(updates.shape[d] for d in dn.update_window_dims)
    sizes = [1 if d in dropped else next(windows) for d in range(operand.ndim)]
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    for batch in np.ndindex(*indices.shape[:-1]):
        start = _starts(
            operand,
            indices[batch],
            batch,
            dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims,
            dn.scatter_indices_batching_dims,
        )
        if mode == "clip":
            start = [min(max(s, 0), n - k) for s, n, k in zip(start, operand.shape, sizes)]
        if not all(0 <= s <= n - k for s, n, k in zip(start, operand.shape, sizes)):
            continue
        position = [slice(None)] * updates.ndim
        for d, b in zip(scatter_dims, batch):
            position[d] = b
        region = tuple(slice(s, s + k) for s, k in zip(start, sizes))
        out[region] = combine(out[region], updates[tuple(position)].reshape(sizes))
    return out


def default_fill(dtype):
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return True
    if dtype.kind in "iu":
        return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max
    return np.nan


COMBINE = {
    "scatter": lambda a, u: u,
    "scatter_add": lambda a, u: a + u,
    "scatter_sub": lambda a, u: a - u,
    "scatter_mul": lambda a, u: a * u,
    "scatter_min": np.minimum,
    "scatter_max": np.maximum,
}

# --- gather cases: (name, operand shape, indices shape, dimension numbers, slice sizes) -------

GATHERS = [
    ("rows", (5, 3), (4, 1), GD((1,), (0,), (0,)), (1, 3)),
    ("rows_offset_first", (5, 3), (4, 1), GD((0,), (0,), (0,)), (1, 3)),
    ("points", (4, 5), (3, 2), GD((), (0, 1), (0, 1)), (1, 1)),
    ("windows", (6, 4), (2, 3, 1), GD((2, 3), (), (0,)), (2, 3)),
    ("swapped_map", (3, 4, 5), (2, 2), GD((1,), (0, 2), (2, 0)), (1, 4, 1)),
    ("batching", (2, 5, 3), (2, 4, 1), GD((2,), (1,), (1,), (0,), (0,)), (1, 1, 3)),
    ("scalar_index", (6,), (1,), GD((0,), (), (0,)), (3,)),
]


def _gather_records():
    # Every dtype on the first geometry, two on the others. bfloat16 is left out of "fill": the
    # test's assert_array_equal does not see two bfloat16 NaNs as equal. The NaN fill of "fill"
    # defeats finite differences; gather_fill_value checks that mode's derivatives.
    records = []
    for n, (name, shape, index_shape, dn, sizes) in enumerate(GATHERS):
        shapes = [(shape, index_shape)]
        for mode in ("clip", "fill"):
            dts = SOME if n else tuple(d for d in DATA if mode == "clip" or d != BF16)
            records.append(
                OpRecord(
                    f"gather_{name}_{mode}",
                    lambda x, i, dn=dn, s=sizes, m=mode: lax.gather(x, i, dn, s, mode=m),
                    lambda x, i, dn=dn, s=sizes, m=mode: np_gather(
                        x, i, dn, s, m, default_fill(x.dtype)
                    ),
                    shapes,
                    dts,
                    (standard, indices_in(-3, max(shape) + 3)),
                    exact=True,
                    linear=True,
                    differentiable=mode == "clip",
                    arg_dtypes=lambda dt: (dt, I32),
                    x64_dtypes=() if n else (F64, I64),
                )
            )
        records.append(
            OpRecord(
                f"gather_{name}_promise_in_bounds",
                lambda x, i, dn=dn, s=sizes: lax.gather(x, i, dn, s),
                lambda x, i, dn=dn, s=sizes: np_gather(x, i, dn, s),
                shapes,
                (F32,),
                (standard, indices_in(0, 1)),
                exact=True,
                linear=True,
                arg_dtypes=lambda dt: (dt, I32),
            )
        )
    return records


_, ROWS, _, ROWS_DN, ROWS_SIZES = GATHERS[0]

GATHER_EXTRA = [
    OpRecord(
        "gather_fill_value",
        lambda x, i: lax.gather(x, i, ROWS_DN, ROWS_SIZES, mode="fill", fill_value=-7),
        lambda x, i: np_gather(x, i, ROWS_DN, ROWS_SIZES, "fill", -7),
        [(ROWS, (6, 1))],
        (F32, I8),
        (standard, constant(-1, 0, 4, 5, -9, 100)),
        exact=True,
        arg_dtypes=lambda dt: (dt, I32),
    ),
    OpRecord(
        "gather_small_index_dtypes",
        lambda x, i: lax.gather(x, i, ROWS_DN, ROWS_SIZES, mode="fill"),
        lambda x, i: np_gather(x, i, ROWS_DN, ROWS_SIZES, "fill", default_fill(x.dtype)),
        [(ROWS, (5, 1))],
        (I8, U8),
        (standard, indices_in(-3, 8)),
        exact=True,
        linear=True,
        arg_dtypes=lambda dt: (F32, dt),
    ),
    OpRecord(
        "gather_clip_int64_indices",
        lambda x, i: lax.gather(x, i, ROWS_DN, ROWS_SIZES, mode="clip"),
        lambda x, i: np_gather(x, i, ROWS_DN, ROWS_SIZES),
        [(ROWS, (5, 1))],
        (),
        (standard, constant(-(2**40), 2, 2**40, 4, 5)),
        exact=True,
        linear=True,
        arg_dtypes=lambda dt: (F64, I64),
        x64_dtypes=(I64,),
    ),
    OpRecord(
        "index_take",
        lambda x, i, j: lax.index_take(x, (i, j), (2, 0)),
        lambda x, i, j: x[j, :, i],
        [((3, 4, 5), (6,), (6,))],
        (F32, I32, BOOL),
        (standard, indices_in(0, 5, I32), indices_in(0, 3, I32)),
        exact=True,
        linear=True,
        arg_dtypes=lambda dt: (dt, I32, I32),
    ),
]

# --- scatter cases: (name, operand shape, indices shape, updates shape, dimension numbers) ------

SCATTERS = [
    ("rows", (5, 3), (4, 1), (4, 3), SD((1,), (0,), (0,))),
    ("points", (4, 5), (3, 2), (3,), SD((), (0, 1), (0, 1))),
    ("windows", (6, 4), (2, 1), (2, 2, 3), SD((1, 2), (), (0,))),
    ("swapped_map", (3, 4, 5), (2, 2), (4, 2), SD((0,), (0, 2), (2, 0))),
    ("batching", (2, 5, 3), (2, 4, 1), (2, 4, 3), SD((2,), (1,), (1,), (0,), (0,))),
]

# op -> (dtypes on the first geometry, dtypes on the others, exact)
SCATTER_DTYPES = {
    "scatter": (DATA, (F32, BOOL), True),
    "scatter_add": ((F32, F16, BF16, I32, U8, C64), SOME, False),
    "scatter_sub": ((F32, I32, U8), (), False),
    "scatter_mul": ((F32, I32), (), False),
    "scatter_min": ((F32, BF16, I32, U8), (I32,), True),
    "scatter_max": ((F32, I32, I8), (F32,), True),
}


# Distinct windows for scatter-replace (a defined result) and scatter_mul (unique_indices=True):
# index values per case and mode (out-of-bounds ones are dropped, or clamped onto positions no
# other window uses).
REPLACE_INDICES = {
    "rows": {"drop": (-1, 4, 0, 9), "clip": (-3, 2, 9, 3)},
    "points": {"drop": (0, 0, 3, 4, 4, 0), "clip": (-1, -1, 3, 9, 1, 2)},
    "windows": {"drop": (0, 5), "clip": (-2, 9)},
    "swapped_map": {"drop": (1, 0, 5, 2), "clip": (-1, -1, 9, 9)},
    "batching": {"drop": (0, 1, 2, 7, 4, 3, 9, 0), "clip": (0, 1, 2, 9, -4, 1, 2, 3)},
}


def _scatter_records():
    records = []
    for (n, (name, shape, index_shape, update_shape, dn)), (
        op,
        (first, rest, exact),
    ), mode in itertools.product(enumerate(SCATTERS), SCATTER_DTYPES.items(), ("drop", "clip")):
        if n and not rest:
            continue
        # Replace needs distinct windows; so does scatter_mul to be differentiable in its updates.
        unique = op in ("scatter", "scatter_mul")
        extremal = op in ("scatter_min", "scatter_max")
        if unique:
            draw = constant(*REPLACE_INDICES[name][mode])
        else:
            draw = indices_in(-3, max(shape) + 3)
        fun = functools.partial(getattr(lax, op), mode=mode, unique_indices=unique)
        records.append(
            OpRecord(
                f"{op}_{name}_{mode}",
                lambda x, i, u, f=fun, dn=dn: f(x, i, u, dn),
                lambda x, i, u, c=COMBINE[op], dn=dn, m=mode: np_scatter(x, i, u, dn, c, m),
                [(shape, index_shape, update_shape)],
                rest if n else first,
                (spread(0), draw, spread(0.25)) if extremal else (standard, draw, standard),
                exact=exact,
                linear=op in ("scatter", "scatter_add", "scatter_sub"),
                arg_dtypes=lambda dt: (dt, I32, dt),
                x64_dtypes=() if n else (F64, I64),
            )
        )
    return records


SCATTER_EXTRA = [
    OpRecord(
        "scatter_add_duplicates",
        lambda x, i, u: lax.scatter_add(x, i, u, SCATTERS[0][4]),
        lambda x, i, u: np_scatter(x, i, u, SCATTERS[0][4], COMBINE["scatter_add"]),
        [((5, 3), (6, 1), (6, 3))],
        (I32, F32),
        (standard, constant(1, 1, 4, 1, 5, -1), standard),
        linear=True,
        arg_dtypes=lambda dt: (dt, I32, dt),
    ),
    OpRecord(
        "scatter_default_mode_drops",
        lambda x, i, u: lax.scatter(x, i, u, SCATTERS[0][4]),
        lambda x, i, u: np_scatter(x, i, u, SCATTERS[0][4], COMBINE["scatter"]),
        [((5, 3), (4, 1), (4, 3))],
        (F32, BOOL),
        (standard, constant(-1, 5, 2, 100), standard),
        exact=True,
        linear=True,
        arg_dtypes=lambda dt: (dt, I8, dt),
    ),
    OpRecord(
        "scatter_apply",
        lambda x, i: lax.scatter_apply(x, i, lambda v: v * 2, SCATTERS[0][4], update_shape=(4, 3)),
        lambda x, i: np.where(
            np_scatter(
                np.zeros(x.shape, bool),
                i,
                np.ones((4, 3), bool),
                SCATTERS[0][4],
                COMBINE["scatter"],
            ),
            x * 2,
            x,
        ),
        [((5, 3), (4, 1))],
        (F32, I32),
        (standard, indices_in(-2, 7)),
        exact=True,
        arg_dtypes=lambda dt: (dt, I32),
    ),
]

# --- dynamic slices -----------------------------------------------------------------------------

INDEX = (standard, indices_in(-7, 8), indices_in(-7, 8))
dynamic = functools.partial(OpRecord, exact=True, arg_dtypes=lambda dt: (dt, I32, I32))

DYNAMIC = [
    dynamic(
        "dynamic_slice",
        lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)),
        lambda x, i, j: np_dynamic_slice(x, (i, j), (2, 3)),
        [((4, 5), (), ())],
        DATA,
        INDEX,
        linear=True,
        x64_dtypes=(F64, I64),
    ),
    dynamic(
        "dynamic_slice_far_out",
        lambda x, i, j: lax.dynamic_slice(x, (i, j), (1, 2)),
        lambda x, i, j: np_dynamic_slice(x, (i, j), (1, 2)),
        [((3, 4), (), ())],
        (F32,),
        (standard, constant(-100), constant(2**30)),
        linear=True,
    ),
    OpRecord(
        "dynamic_slice_index_dtypes",
        lambda x, i: lax.dynamic_slice(x, (i, -1), (2, 2)),
        lambda x, i: np_dynamic_slice(x, (i, -1), (2, 2)),
        [((4, 5), ())],
        (I8, U8),
        (standard, indices_in(-7, 8)),
        exact=True,
        linear=True,
        arg_dtypes=lambda dt: (F32, dt),
    ),
    OpRecord(
        "dynamic_slice_no_negative",
        lambda x, i: lax.dynamic_slice(x, (i,), (2,), allow_negative_indices=False),
        lambda x, i: x[max(0, min(int(i), 3)) :][:2],
        [((5,), ())],
        (F32,),
        (standard, indices_in(-4, 7)),
        exact=True,
        linear=True,
        arg_dtypes=lambda dt: (dt, I32),
    ),
    OpRecord(
        "dynamic_slice_static",
        lambda x: lax.dynamic_slice(x, (-1, 7), (2, 2)),
        lambda x: np_dynamic_slice(x, (-1, 7), (2, 2)),
        [((4, 5),)],
        (F32, I32, BOOL),
        exact=True,
        linear=True,
    ),
    OpRecord(
        "dynamic_slice_array_indices",
        lambda x, s: lax.dynamic_slice(x, s, (2, 1)),
        lambda x, s: np_dynamic_slice(x, s, (2, 1)),
        [((4, 5), (2,))],
        (F32, I32),
        (standard, indices_in(-6, 7)),
        exact=True,
        linear=True,
        arg_dtypes=lambda dt: (dt, I32),
    ),
    dynamic(
        "dynamic_update_slice",
        lambda x, u, i: lax.dynamic_update_slice(x, u, (i, -2)),
        lambda x, u, i: np_dynamic_update_slice(x, u, (i, -2)),
        [((4, 5), (2, 3), ())],
        DATA,
        (standard, standard, indices_in(-7, 8)),
        linear=True,
        arg_dtypes=lambda dt: (dt, dt, I32),
        x64_dtypes=(F64, I64),
    ),
    dynamic(
        "dynamic_slice_in_dim",
        lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=-1),
        lambda x, i: np_dynamic_slice(x, (0, i), (x.shape[0], 2)),
        [((3, 5), ())],
        (F32, BF16, I32, BOOL),
        (standard, indices_in(-7, 8)),
        linear=True,
        arg_dtypes=lambda dt: (dt, I32),
    ),
    dynamic(
        "dynamic_index_in_dim",
        lambda x, i: lax.dynamic_index_in_dim(x, i, 1, keepdims=False),
        lambda x, i: np_dynamic_slice(x, (0, i), (x.shape[0], 1))[:, 0],
        [((3, 5), ())],
        (F32, I32, BOOL),
        (standard, indices_in(-7, 8)),
        linear=True,
        arg_dtypes=lambda dt: (dt, I32),
    ),
    dynamic(
        "dynamic_update_slice_in_dim",
        lambda x, u, i: lax.dynamic_update_slice_in_dim(x, u, i, 0),
        lambda x, u, i: np_dynamic_update_slice(x, u, (i, 0)),
        [((5, 2), (2, 2), ())],
        (F32, I32, BOOL),
        (standard, standard, indices_in(-7, 8)),
        linear=True,
        arg_dtypes=lambda dt: (dt, dt, I32),
    ),
    dynamic(
        "dynamic_update_index_in_dim",
        lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 1),
        lambda x, u, i: np_dynamic_update_slice(x, u[:, None], (0, i)),
        [((3, 4), (3,), ())],
        (F32, BF16, I32, BOOL),
        (standard, standard, indices_in(-5, 6)),
        linear=True,
        arg_dtypes=lambda dt: (dt, dt, I32),
    ),
]

RECORDS = [*_gather_records(), *GATHER_EXTRA, *_scatter_records(), *SCATTER_EXTRA, *DYNAMIC]
