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


# --- cumulative ops: derivatives by one associative scan over (value, tangent) pairs ----------

_WEIGHTS6 = np.arange(1.0, 7.0, dtype=np.float32)


@pytest.mark.parametrize(
    "op, reverse, x, expected",  # expected: recorded from jax 0.10.2, ties and zeros included
    [
        ("cummax", False, [1, 3, 3, 2, 5, 5], [1, 5.5, 3.5, 0, 8, 3]),
        ("cummin", True, [1, 3, 3, 2, 5, 5], [1, 0, 0, 9, 2.5, 8.5]),
        ("cumprod", False, [2, 0, 3, 4, 0.5], [1, 178, 0, 0, 0]),
        ("cumprod", True, [2, 0, 3, 4, 0.5], [0, 24, 6, 6.5, 57]),
        (
            "cumlogsumexp",
            False,
            [-np.inf, 0.5, -np.inf, 2.0, 1.0],
            [1, 6.430924, 0, 6.4129558, 1.1561193],
        ),
    ],
)
def test_cumulative_grads_match_jax_at_ties_zeros_and_infinities(op, reverse, x, expected):
    import stablax

    fn = getattr(stablax.lax, op)
    weights = jnp.asarray(_WEIGHTS6[: len(x)])
    grad = stablax.grad(lambda v: (fn(v, reverse=reverse) * weights).sum())
    np.testing.assert_allclose(np.asarray(grad(jnp.asarray(x, np.float32))), expected, rtol=1e-6)


@pytest.mark.parametrize("op", ["cumprod", "cummax", "cumlogsumexp"])
def test_cumulative_derivatives_stay_small_on_long_axes(op):
    # Stacking every window made grad(cumprod) over 1024 elements take 31 s and n^3 memory.
    import stablax

    fn = getattr(stablax.lax, op)
    x = jnp.ones((2, 1024))
    lowered = stablax.jit(stablax.grad(lambda v: fn(v, axis=1).sum())).lower(x)
    assert lowered.as_text().count("stablehlo.slice") < 200
    # Distinct values 0.05 apart, so finite differences never reorder a running max.
    small = jnp.asarray(np.random.default_rng(0).permutation(128).reshape(2, 64) / 20 - 3.0)
    small = 1.0 + (small + 1.4) / 10 if op == "cumprod" else small  # factors in [0.84, 1.16]
    check_grads(lambda v: fn(v, axis=1), (small,), order=1, modes=("fwd", "rev"))
