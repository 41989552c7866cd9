"""Op records for contractions: dot_general (batch and contracting dims, preferred type) and dot."""

from __future__ import annotations

import functools

import numpy as np

from stablax import lax
from tests.op_record import BF16, C64, C128, F16, F32, F64, I32, I64, OpRecord


def dot_general_reference(lhs, rhs, dimension_numbers, preferred=None):
    """NumPy's version: move batch, free, contracting dims into place and use einsum."""
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    lhs_sub = [None] * lhs.ndim
    rhs_sub = [None] * rhs.ndim
    for a, b in zip(lb, rb, strict=True):
        lhs_sub[a] = rhs_sub[b] = next(letters)
    for a, b in zip(lc, rc, strict=True):
        lhs_sub[a] = rhs_sub[b] = next(letters)
    for i in range(lhs.ndim):
        lhs_sub[i] = lhs_sub[i] or next(letters)
    for i in range(rhs.ndim):
        rhs_sub[i] = rhs_sub[i] or next(letters)
    out = [lhs_sub[a] for a in lb]
    out += [lhs_sub[i] for i in range(lhs.ndim) if i not in lc and i not in lb]
    out += [rhs_sub[i] for i in range(rhs.ndim) if i not in rc and i not in rb]
    spec = f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out)}"
    wide = {"f": np.float64, "i": np.int64, "u": np.uint64}.get(lhs.dtype.kind)
    result = np.einsum(spec, lhs.astype(wide) if wide else lhs, rhs.astype(wide) if wide else rhs)
    dtype = preferred or lhs.dtype
    return np.asarray(result).astype(dtype)


def _case(dims, preferred=None):
    return (
        functools.partial(
            lax.dot_general, dimension_numbers=dims, preferred_element_type=preferred
        ),
        functools.partial(dot_general_reference, dimension_numbers=dims, preferred=preferred),
    )


_MATMUL = (((1,), (0,)), ((), ()))
_BATCHED = (((2,), (1,)), ((0,), (0,)))
_OUTER = (((), ()), ((), ()))
_TWO_CONTRACT = (((0, 2), (2, 0)), ((), ()))
_BATCH_LAST = (((1,), (0,)), ((2,), (2,)))

RECORDS = [
    OpRecord(
        "dot_general_matmul",
        *_case(_MATMUL),
        [((3, 4), (4, 5)), ((1, 0), (0, 2))],
        (F32, F16, BF16, I32, C64),
        tol=1e-4,
        linear=True,
        x64_dtypes=(F64, I64, C128),
    ),
    OpRecord(
        "dot_general_batched",
        *_case(_BATCHED),
        [((2, 3, 4), (2, 4, 5))],
        (F32, I32),
        tol=1e-4,
        linear=True,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "dot_general_outer", *_case(_OUTER), [((3,), (4,)), ((2, 3), (2,))], (F32,), linear=True
    ),
    OpRecord(
        "dot_general_two_contracting",
        *_case(_TWO_CONTRACT),
        [((2, 3, 4), (4, 5, 2))],
        (F32,),
        tol=1e-4,
        linear=True,
    ),
    OpRecord(
        "dot_general_batch_last",
        *_case(_BATCH_LAST),
        [((3, 4, 2), (4, 5, 2))],
        (F32,),
        tol=1e-4,
        linear=True,
    ),
    OpRecord(
        "dot_general_preferred_f32",
        *_case(_MATMUL, np.dtype(np.float32)),
        [((3, 4), (4, 5))],
        (BF16, F16),
        tol=1e-2,
        linear=True,
    ),
    OpRecord(
        "dot_general_preferred_i32",
        *_case(_MATMUL, np.dtype(np.int32)),
        [((3, 4), (4, 5))],
        (np.dtype(np.int8),),
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "dot",
        lax.dot,
        np.dot,
        [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (4, 2))],
        (F32, I32),
        tol=1e-4,
        linear=True,
    ),
    OpRecord(
        "dot_highest",
        functools.partial(lax.dot, precision=lax.Precision.HIGHEST),
        np.dot,
        [((3, 4), (4, 2))],
        (F32,),
        tol=1e-5,
        linear=True,
    ),
]
