"""lax's filled arrays (full, full_like) beyond the op-record table: how a Python fill value is
cast to the requested dtype."""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax

BIG = 2**100


@pytest.mark.parametrize(
    "make, expected, dtype",  # JAX 0.10.2's results (x64 off)
    [
        (lambda: lax.full((2,), BIG, jnp.float32), 1.2676506e30, np.float32),
        (lambda: lax.full((2,), -BIG, jnp.complex64), -1.2676506e30, np.complex64),
        (lambda: lax.full((2,), BIG, jnp.float16), np.inf, np.float16),
        (lambda: lax.full((2,), BIG, jnp.bool_), True, np.bool_),
        (lambda: lax.full_like(jnp.ones(2), BIG), 1.2676506e30, np.float32),
        (lambda: jnp.full((2,), BIG, jnp.float32), 1.2676506e30, np.float32),
        (lambda: jnp.full_like(jnp.ones(2), BIG), 1.2676506e30, np.float32),
        (lambda: jax.jit(lambda: lax.full((2,), BIG, jnp.float32))(), 1.2676506e30, np.float32),
        (lambda: jnp.full((2,), 2**63, jnp.float32), 9.223372e18, np.float32),
        # An int that fits in 64 bits wraps as NumPy casts it, weakly typed without a dtype.
        (lambda: lax.full((2,), 2**31), -(2**31), np.int32),
        (lambda: jnp.full((2,), 2**40), 0, np.int32),
    ],
)
def test_full_casts_a_python_int_to_the_dtype(make, expected, dtype):
    with np.errstate(over="ignore"):
        out = make()
    assert out.dtype == dtype and out.shape == (2,)
    np.testing.assert_allclose(np.asarray(out).astype(np.complex128), expected, rtol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda: lax.full((2,), BIG, jnp.int32),
        lambda: lax.full((2,), BIG),
        lambda: lax.full_like(jnp.ones(2, jnp.int32), BIG),
        lambda: jnp.full((2,), BIG),
    ],
)
def test_full_of_an_int_beyond_the_integer_dtype_overflows(make):
    with pytest.raises(OverflowError, match="too large to convert"):  # JAX 0.10.2's class
        make()


@pytest.mark.parametrize(
    "fill, dtype, expected",  # JAX 0.10.2's values: XLA's saturating conversion, NaN to 0
    [
        (float("-inf"), np.int8, -128),  # fuzz seed 3811 (NumPy's cast gave 0)
        (float("inf"), np.uint8, 255),
        (float("nan"), np.int32, 0),
        (1e30, np.int32, 2**31 - 1),
        (-2.5, np.uint32, 0),
        (300.7, np.int8, 127),
    ],
)
def test_full_of_a_python_float_out_of_an_integer_range_saturates(fill, dtype, expected):
    np.testing.assert_array_equal(lax.full((2,), fill, dtype), [expected] * 2)
    out = jnp.full_like(jnp.zeros((3, 1), jnp.int8), fill, dtype=dtype, shape=(2,))
    np.testing.assert_array_equal(out, [expected] * 2)
