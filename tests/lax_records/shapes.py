"""Op records for static data movement: reshape family, pad, slices, transpose, concatenate, ..."""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from stablax import lax
from tests.op_record import (
    BF16,
    BOOL,
    C64,
    C128,
    F16,
    F32,
    F64,
    I8,
    I32,
    I64,
    U8,
    OpRecord,
)

DATA = (F32, F16, BF16, I32, I8, U8, BOOL, C64)  # dtypes a data-movement op must carry
SOME = (F32, BF16, I32, BOOL)
X64_DATA = (F64, I64, C128)
move = functools.partial(OpRecord, exact=True, linear=True)


def _np_pad(x, value, config):
    """Reference pad: interior first, then edges (negative edges crop)."""
    for axis, (lo, hi, interior) in enumerate(config):
        n = x.shape[axis]
        spread = list(x.shape)
        spread[axis] = n + max(n - 1, 0) * interior
        y = np.full(spread, value, x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, interior + 1)
        y[tuple(index)] = x
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        y = np.pad(y, widths, constant_values=value)
        index[axis] = slice(max(-lo, 0), y.shape[axis] - max(-hi, 0))
        x = y[tuple(index)]
    return x


def _python_zero(dtype):
    """A Python zero of the dtype's kind (it adopts the operand's dtype, as in lax.add)."""
    return {"b": False, "i": 0, "u": 0, "c": 0j}.get(np.dtype(dtype).kind, 0.0)


def _squeezable(x):
    return tuple(i for i, d in enumerate(x.shape) if d == 1)


def _via(dtype):
    """Round trip through a narrower float: what reduce_precision to its format must give."""
    return lambda x: x.astype(np.float32).astype(dtype).astype(x.dtype)


PAD_CONFIGS = [
    ((5,), [(1, 2, 1)]),
    ((2, 3), [(-1, 2, 1), (0, -2, 0)]),
    ((3, 4), [(0, 0, 2), (2, -1, 1)]),
    ((0, 2), [(1, 1, 3), (0, 0, 0)]),
    ((), []),
]

RECORDS = [
    move(
        "squeeze",
        lambda x: lax.squeeze(x, _squeezable(x)),
        np.squeeze,
        [((1,),), ((2, 1, 3),), ((1, 1),), ((1, 0, 1),)],
        DATA,
        x64_dtypes=X64_DATA,
    ),
    move(
        "squeeze_negative",
        lambda x: lax.squeeze(x, (-1, 0)),
        lambda x: x[0, ..., 0],
        [((1, 3, 1),), ((1, 1),)],
        (F32, I32),
    ),
    move(
        "expand_dims",
        lambda x: lax.expand_dims(x, (0, -1)),
        lambda x: np.expand_dims(x, (0, -1)),
        [((),), ((5,),), ((2, 3),)],
        DATA,
        x64_dtypes=X64_DATA,
    ),
    move(
        "expand_dims_middle",
        lambda x: lax.expand_dims(x, (1, 3)),
        lambda x: np.expand_dims(x, (1, 3)),
        [((2, 3),), ((4, 0),)],
        (F32, BOOL),
    ),
    move(
        "collapse",
        lambda x: lax.collapse(x, 1, 3),
        lambda x: x.reshape(x.shape[0], -1, *x.shape[3:]),
        [((2, 3, 4),), ((2, 3, 4, 5),)],
        SOME,
        x64_dtypes=X64_DATA,
    ),
    move(
        "collapse_negative",
        lambda x: lax.collapse(x, -2),
        lambda x: x.reshape(*x.shape[:-2], -1),
        [((2, 3),), ((2, 3, 4),)],
        (F32, I32),
    ),
    move(
        "broadcast_to_rank",
        lambda x: lax.broadcast_to_rank(x, 3),
        lambda x: x.reshape((1,) * max(3 - x.ndim, 0) + x.shape),
        [((),), ((4,),), ((2, 3, 4),), ((1, 2, 3, 4),)],
        (F32, I32, BOOL),
    ),
    *[
        move(
            f"pad_{i}",
            lambda x, v, c=config: lax.pad(x, v, c),
            lambda x, v, c=config: _np_pad(x, v, c),
            [(shape, ())],
            DATA if i < 2 else SOME,
            x64_dtypes=X64_DATA if i < 2 else (),
        )
        for i, (shape, config) in enumerate(PAD_CONFIGS)
    ],
    # A constant zero padding value keeps pad linear in its operand; a Python scalar adopts the
    # operand's dtype (float16, bfloat16, uint8 ...).
    move(
        "pad_python_zero",
        lambda x: lax.pad(x, _python_zero(x.dtype), [(2, -1, 1), (1, 0, 0)]),
        lambda x: _np_pad(x, 0, [(2, -1, 1), (1, 0, 0)]),
        [((3, 2),)],
        DATA,
    ),
    OpRecord(
        "pad_python_one",
        lambda x: lax.pad(x, 1.0, [(1, 1, 1)]),
        lambda x: _np_pad(x, 1.0, [(1, 1, 1)]),
        [((3,),)],
        (F32, F16, BF16),
        exact=True,
    ),
    move(
        "slice_in_dim",
        lambda x: lax.slice_in_dim(x, 1, None, 2, axis=-1),
        lambda x: x[..., 1::2],
        [((5,),), ((3, 4),)],
        DATA,
        x64_dtypes=X64_DATA,
    ),
    move(
        "slice_in_dim_negative",
        lambda x: lax.slice_in_dim(x, -3, -1),
        lambda x: x[-3:-1],
        [((5,),), ((4, 2),)],
        (F32, I32),
    ),
    move(
        "index_in_dim",
        lambda x: lax.index_in_dim(x, -1, axis=1),
        lambda x: x[:, -1:],
        [((2, 3),), ((4, 1, 2),)],
        DATA,
        x64_dtypes=X64_DATA,
    ),
    move(
        "index_in_dim_drop",
        lambda x: lax.index_in_dim(x, 1, keepdims=False),
        lambda x: x[1],
        [((3,),), ((2, 3),)],
        SOME,
    ),
    # JAX differentiates reduce_precision as a linear op (its tangent is rounded the same way);
    # finite differences cannot check a rounding function, hence not `differentiable` here.
    OpRecord(
        "reduce_precision_f16",
        lambda x: lax.reduce_precision(x, 5, 10),
        _via(F16),
        [((5,),), ((2, 3),)],
        (F32,),
        exact=True,
        linear=True,
        differentiable=False,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "reduce_precision_bf16",
        lambda x: lax.reduce_precision(x, 8, 7),
        _via(BF16),
        [((5,),), ((2, 3),)],
        (F32, F16),
        exact=True,
        linear=True,
        differentiable=False,
        x64_dtypes=(F64,),
    ),
    OpRecord(
        "reduce_precision_e5m2",
        lambda x: lax.reduce_precision(x, 5, 2),
        _via(np.dtype(ml_dtypes.float8_e5m2)),
        [((7,),)],
        (F32, F16, BF16),
        exact=True,
        linear=True,
        differentiable=False,
    ),
    # The older ops of this family.
    move(
        "reshape",
        lambda x: lax.reshape(x, (3, 2)),
        lambda x: x.reshape(3, 2),
        [((6,),), ((2, 3),)],
        SOME,
    ),
    move(
        "reshape_dimensions",
        lambda x: lax.reshape(x, (6,), (1, 0)),
        lambda x: x.T.reshape(6),
        [((2, 3),)],
        (F32, I32),
    ),
    move(
        "transpose",
        lambda x: lax.transpose(x, (2, 0, 1)),
        lambda x: np.transpose(x, (2, 0, 1)),
        [((2, 3, 4),), ((1, 0, 2),)],
        SOME,
    ),
    move("rev", lambda x: lax.rev(x, (0,)), lambda x: x[::-1], [((5,),), ((2, 3),)], SOME),
    move(
        "slice",
        lambda x: lax.slice(x, (1, 0), (3, 3), (1, 2)),
        lambda x: x[1:3, 0:3:2],
        [((3, 4),), ((4, 3),)],
        SOME,
    ),
    move(
        "concatenate",
        lambda x, y: lax.concatenate([x, y, x], 1),
        lambda x, y: np.concatenate([x, y, x], 1),
        [((2, 3), (2, 1)), ((1, 0), (1, 2))],
        SOME,
    ),
    move(
        "broadcast_in_dim",
        lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)),
        lambda x: np.broadcast_to(x[:, None, :], (2, 3, 4)),
        [((2, 4),), ((1, 1),)],
        SOME,
    ),
]
