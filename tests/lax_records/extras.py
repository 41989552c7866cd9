"""Op records for lax conveniences and newer ops: split, stack, unstack, tile, batch_matmul,
broadcast_like, mulhi, betainc, approx_max_k/min_k, optimization_barrier."""

from __future__ import annotations

import functools

import numpy as np
import scipy.special

from stablax import lax
from tests.op_record import BF16, BOOL, C64, F16, F32, F64, I8, I32, I64, U8, U32, OpRecord

DATA = (F32, F16, BF16, I32, I8, U8, BOOL, C64)
move = functools.partial(OpRecord, exact=True, linear=True)


def _mulhi_reference(x, y):
    bits = x.dtype.itemsize * 8
    wide = np.int64 if x.dtype.kind == "i" else np.uint64
    return ((x.astype(wide) * y.astype(wide)) >> np.asarray(bits, wide)).astype(x.dtype)


def _full_range(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=np.int64, endpoint=True).astype(dtype)


def _beta_parameter(rng, shape, dtype):
    return rng.uniform(0.5, 6.0, shape).astype(dtype)


def _probability(rng, shape, dtype):
    return rng.uniform(0.02, 0.98, shape).astype(dtype)


def _distinct(rng, shape, dtype):
    # Distinct values, so that the selected entries (and their gradients) are unambiguous.
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(dtype) / 3


RECORDS = [
    move(
        "split",
        lambda x: lax.split(x, (1, 2, 0), axis=1)[1],
        lambda x: x[:, 1:3],
        [((2, 3),), ((4, 3),)],
        DATA,
        x64_dtypes=(F64, I64),
    ),
    move(
        "stack",
        lambda x, y: lax.stack([x, y], axis=1),
        lambda x, y: np.stack([x, y], axis=1),
        [((3,), (3,)), ((2, 3), (2, 3))],
        DATA,
    ),
    move(
        "unstack",
        lambda x: lax.unstack(x, axis=1)[-1],
        lambda x: x[:, -1],
        [((2, 3),), ((4, 1, 2),)],
        DATA,
    ),
    move(
        "tile",
        lambda x: lax.tile(x, (2, 3)),
        lambda x: np.tile(x, (2, 3)),
        [((2, 3),), ((1, 0),)],
        DATA,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "batch_matmul",
        lax.batch_matmul,
        np.matmul,
        [((2, 3, 4), (2, 4, 5)), ((3, 1, 2), (3, 2, 2))],
        (F32, I32, C64),
        tol=1e-4,
        linear=True,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "broadcast_like",
        lax.broadcast_like,
        lambda x, y: np.broadcast_to(x, y.shape),
        [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (3,))],
        (F32, I32, BOOL),
        exact=True,
    ),
    OpRecord(
        "mulhi",
        lax.mulhi,
        _mulhi_reference,
        [((5,), (5,)), ((2, 3), (2, 3))],
        (U32, I32, U8, I8),
        inputs=_full_range,
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "betainc",
        lax.betainc,
        scipy.special.betainc,
        [((6,), (6,), (6,)), ((2, 3), (2, 3), (2, 3))],
        (F32,),
        inputs=(_beta_parameter, _beta_parameter, _probability),
        tol=2e-5,
        differentiable=False,  # only in x (tests/lax/test_extras.py); a and b raise as in JAX
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "approx_max_k",
        lambda x: lax.approx_max_k(x, 2)[0],
        lambda x: -np.sort(-x, axis=-1)[..., :2],
        [((6,),), ((3, 5),)],
        (F32, BF16),
        inputs=_distinct,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "approx_min_k",
        lambda x: lax.approx_min_k(x, 3, reduction_dimension=0)[0],
        lambda x: np.sort(x, axis=0)[:3],
        [((4,),), ((5, 2),)],
        (F32,),
        inputs=_distinct,
    ),
    move(
        "optimization_barrier",
        lax.optimization_barrier,
        lambda x: x,
        [((3,),), ((2, 2),)],
        (F32, I32, BOOL),
    ),
]
