"""Every differentiable lax op from the op-record table under jvp and vjp.

JVP is checked against central finite differences, VJP against JVP through the inner-product
identity; second order (x64) for ops with smooth float64 cases.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import stablax.numpy as jnp
from stablax.test_util import check_grads
from tests.op_record import C64, C128, F32, F64, all_records

RECORDS = [r for r in all_records() if r.differentiable]
NON_SMOOTH = {"abs", "max", "min", "clamp", "select", "rem", "round", "sign"}


def _float_cases(x64: bool):
    for record in RECORDS:
        wanted = (F64, C128) if x64 else (F32, C64)
        dts = record.x64_dtypes if x64 else record.dtypes
        for dtype in dts:
            if np.dtype(dtype) not in wanted:
                continue
            for i, shapes in enumerate(record.shapes[:2]):
                if any(0 in s for s in shapes):
                    continue
                yield pytest.param(
                    record, shapes, np.dtype(dtype), id=f"{record.name}-{np.dtype(dtype).name}-{i}"
                )


def _args(record, shapes, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((record.name, shapes, dtype.name, "ad")).encode()))
    return [jnp.asarray(a) for a in record.make_args(rng, shapes, dtype)]


@pytest.mark.parametrize("record,shapes,dtype", list(_float_cases(x64=False)))
def test_grads_float32(record, shapes, dtype):
    args = _args(record, shapes, dtype)
    check_grads(record.fun, args, order=1, modes=("fwd", "rev"), atol=5e-2, rtol=5e-2)


@pytest.mark.parametrize("record,shapes,dtype", list(_float_cases(x64=True)))
def test_grads_float64(record, shapes, dtype, x64):
    args = _args(record, shapes, dtype)
    order = 1 if record.name in NON_SMOOTH else 2
    check_grads(record.fun, args, order=order, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)
