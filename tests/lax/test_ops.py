"""Every lax op in the op-record table against NumPy, eagerly and under jit, on several dtypes."""

from __future__ import annotations

import zlib

import ml_dtypes
import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from tests.op_record import BF16, F16, all_records

RECORDS = all_records()


def _cases(x64: bool):
    for record in RECORDS:
        dts = record.x64_dtypes if x64 else record.dtypes
        for dtype in dts:
            for i, shapes in enumerate(record.shapes):
                yield pytest.param(
                    record, shapes, np.dtype(dtype), id=f"{record.name}-{np.dtype(dtype).name}-{i}"
                )


def _reference(record, args, dtype):
    # NumPy lacks math for half/bfloat16: compute in float32 and round, as XLA's CPU does.
    low = np.dtype(dtype) in (F16, BF16)
    ref_args = [a.astype(np.float32) if a.dtype in (F16, BF16) else a for a in args]
    with np.errstate(all="ignore"):
        out = record.reference(*ref_args)
    out = np.asarray(out)
    if low and out.dtype == np.float32:
        out = out.astype(dtype)
    return out


def _assert_close(actual, expected, record, dtype):
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if record.exact or actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected.astype(actual.dtype))
        return
    tol = record.tolerance(dtype)
    wide = np.complex128 if actual.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), rtol=tol, atol=tol)


def _run_case(record, shapes, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((record.name, shapes, dtype.name)).encode()))
    args = record.make_args(rng, shapes, dtype)
    expected = _reference(record, args, dtype)
    eager = record.fun(*[jnp.asarray(a) for a in args])
    _assert_close(eager, expected, record, dtype)
    jitted = jax.jit(record.fun)(*[jnp.asarray(a) for a in args])
    assert jitted.dtype == eager.dtype and jitted.shape == eager.shape
    _assert_close(jitted, np.asarray(eager).astype(expected.dtype), record, dtype)


@pytest.mark.parametrize("record,shapes,dtype", list(_cases(x64=False)))
def test_op_matches_numpy(record, shapes, dtype):
    _run_case(record, shapes, dtype)


@pytest.mark.parametrize("record,shapes,dtype", list(_cases(x64=True)))
def test_op_matches_numpy_x64(record, shapes, dtype, x64):
    _run_case(record, shapes, dtype)


def test_table_is_not_empty():
    assert len(RECORDS) > 50
    assert ml_dtypes.bfloat16 is not None
