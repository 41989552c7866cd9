"""Op records for argmax/argmin (ties and NaNs included) and the monoid `lax.reduce`."""

from __future__ import annotations

import numpy as np

from stablax import lax
from tests.op_record import BF16, BOOL, F16, F32, F64, I32, I64, U8, OpRecord


def ties_and_nans(rng, shape, dtype):
    """Few distinct values, so ties are common; floats also get NaN, -inf and both zeros.

    Complex values get ties in the real part but no NaN (JAX's complex max/min do not promise
    NumPy's NaN propagation).
    """
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.integers(-2, 3, shape) + 1j * rng.integers(-2, 3, shape)).astype(dtype)
    if dtype == BOOL:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 4, shape).astype(dtype)
    choices = np.array([-1.0, 0.0, -0.0, 1.0, 2.0, np.nan, -np.inf], np.float64)
    return rng.choice(choices, shape).astype(dtype)


def separated(rng, shape, dtype):
    """Distinct values at least 0.25 apart, in random order: orderings survive the small
    perturbations of finite differences (sort, max, cummax are smooth there)."""
    size = int(np.prod(shape, dtype=np.int64))
    return ((rng.permutation(size) - size / 2) * 0.25).reshape(shape).astype(dtype)


ARG_SHAPES = [((5,),), ((3, 4),), ((2, 3, 4),)]
ARG_DTYPES = (F32, F16, BF16, I32, U8, BOOL)


def _last(x):
    return x.ndim - 1


RECORDS = [
    OpRecord(
        "argmax_axis0",
        lambda x: lax.argmax(x, 0, np.int32),
        lambda x: np.argmax(x, 0),
        ARG_SHAPES,
        ARG_DTYPES,
        ties_and_nans,
        exact=True,
        differentiable=False,
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "argmax_last",
        lambda x: lax.argmax(x, _last(x), np.int32),
        lambda x: np.argmax(x, -1),
        ARG_SHAPES,
        (F32, BF16, BOOL),
        ties_and_nans,
        exact=True,
        differentiable=False,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "argmin_axis0",
        lambda x: lax.argmin(x, 0, np.int32),
        lambda x: np.argmin(x, 0),
        ARG_SHAPES,
        ARG_DTYPES,
        ties_and_nans,
        exact=True,
        differentiable=False,
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "argmin_last",
        lambda x: lax.argmin(x, _last(x), np.int32),
        lambda x: np.argmin(x, -1),
        ARG_SHAPES,
        (F32, I32),
        ties_and_nans,
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "argmax_uint8_index",
        lambda x: lax.argmax(x, 0, np.uint8),
        lambda x: np.argmax(x, 0).astype(np.uint8),
        ARG_SHAPES[:2],
        (F32, I32),
        ties_and_nans,
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "argmin_int64_index",
        lambda x: lax.argmin(x, 0, np.int64),
        lambda x: np.argmin(x, 0).astype(np.int64),
        ARG_SHAPES[:2],
        (),
        ties_and_nans,
        exact=True,
        differentiable=False,
        x64_dtypes=(F64, I64),
    ),
    OpRecord(
        "reduce_add_identity",
        lambda x: lax.reduce(x, 0, lax.add, (0,)),
        lambda x: np.sum(x, 0),
        [((5,),), ((3, 4),)],
        (F32, I32),
        linear=True,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "reduce_add_init",  # an init that is not the identity has the operand's dtype, as JAX
        lambda x: lax.reduce(x, np.array(10, x.dtype), lax.add, (0, 1)),
        lambda x: np.sum(x, (0, 1)) + 10,
        [((3, 4),), ((2, 3, 2),)],
        (F32, I32),
    ),
    OpRecord(
        "reduce_max_init",
        lambda x: lax.reduce(x, 0.5, lax.max, (1,)),
        lambda x: np.maximum(np.max(x, 1), 0.5),
        [((3, 4),), ((2, 3, 2),)],
        (F32, F16),
        separated,
    ),
    OpRecord(
        "reduce_mul",
        lambda x: lax.reduce(x, 1, lax.mul, (0,)),
        lambda x: np.prod(x, 0),
        [((3,),), ((3, 4),)],
        (F32, I32),
    ),
    OpRecord(
        "reduce_or",
        lambda x: lax.reduce(x, False, lax.bitwise_or, (1,)),
        lambda x: np.any(x, 1),
        [((3, 4),), ((2, 0),)],
        (BOOL,),
        exact=True,
        differentiable=False,
    ),
]
