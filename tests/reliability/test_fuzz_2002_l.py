"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`) in setxor1d,
put and signbit, one row each, with JAX 0.10.2's answer as the expected outcome (NumPy's where
JAX refuses): (id, call, expected value or exception class), and (id, call, value, dtype, weak
type) where the result's type is the finding.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, check_result_type, under_x64

_DUPLICATES = np.array([-1, 2, 0, 4, 1, 2], dtype="int8")
_FLOAT8 = np.array([1.125, -2.75, -0.0, 0.0], dtype=ml_dtypes.float8_e4m3fn)

_FINDINGS = [
    # setxor1d with assume_unique: the values that occur once in both arrays together, as NumPy
    # and JAX, so a value repeated within one array is dropped (stablax ignored the flag).
    (
        "setxor1d assume_unique drops repeats",
        lambda: jnp.setxor1d(_DUPLICATES.reshape(3, 2), np.int8(-2), assume_unique=True),
        [-2, -1, 0, 1, 4],
    ),
    (
        "setxor1d assume_unique with size",
        lambda: jnp.setxor1d(_DUPLICATES, np.int8(-2), assume_unique=True, size=7),
        [-2, -1, 0, 1, 4, -2, -2],
    ),
    (
        "setxor1d without assume_unique keeps one of each",
        lambda: jnp.setxor1d(_DUPLICATES, np.int8(-2)),
        [-2, -1, 0, 1, 2, 4],
    ),
    # With size and nothing found, JAX pads with zeros (not with a dropped value).
    (
        "setxor1d nothing found pads zeros",
        lambda: jnp.setxor1d(np.uint16(5), np.uint16(5), assume_unique=True, size=4),
        [0, 0, 0, 0],
    ),
    (
        "setxor1d nothing found, jit",
        lambda: stablax.jit(lambda a, b: jnp.setxor1d(a, b, size=2))(
            jnp.asarray(-0.0), jnp.zeros(3, "uint32")
        ),
        [0.0, 0.0],
    ),
    # The padding is the minimum found, as JAX's min: NaN when a NaN is found.
    (
        "setxor1d padding NaN",
        lambda: jnp.isnan(jnp.setxor1d(jnp.array([1.0, np.nan]), jnp.array([2.0]), size=5)),
        [False, False, True, True, True],
    ),
    # put: JAX's order is empty arguments (a returned), the mode, then the indices' type;
    # mode='fill' is not one of put's modes.
    (
        "put mode fill",
        lambda: jnp.put(jnp.zeros(5, "uint16"), jnp.arange(5), np.nan, mode="fill", inplace=False),
        ValueError,
    ),
    (
        "put mode fill before complex indices",
        lambda: jnp.put(
            jnp.zeros(4, "int32"), jnp.ones(4, "complex64"), 1, mode="fill", inplace=False
        ),
        ValueError,
    ),
    (
        "put mode fill before bool indices",
        lambda: jnp.put(jnp.zeros(1, "int8"), jnp.ones(1, bool), 1.0, mode="fill", inplace=False),
        ValueError,
    ),
    (
        "put mode raise before indices",
        lambda: jnp.put(jnp.zeros(3), jnp.ones(1, "complex64"), 1.0, mode="raise", inplace=False),
        NotImplementedError,
    ),
    (
        "put empty indices returns a",
        lambda: jnp.put(jnp.arange(3), jnp.zeros(0, "complex64"), 5, mode="fill", inplace=False),
        [0, 1, 2],
    ),
    # signbit of narrow floats: the sign bit, as np.signbit on ml_dtypes (JAX refuses them: rule
    # signbit-narrow-float); float4 bitcast to int8 gave a wrong shape, float8_e8m0fnu has no sign.
    ("signbit float8", lambda: jnp.signbit(_FLOAT8), [False, True, True, False]),
    (
        "signbit float8 under vmap",
        lambda: stablax.vmap(jnp.signbit)(_FLOAT8.reshape(1, 4)),
        [[False, True, True, False]],
    ),
    (
        "signbit float4 pair",
        lambda: jnp.signbit(np.array([-1.0, 1.0], dtype=ml_dtypes.float4_e2m1fn)),
        [True, False],
    ),
    (
        "signbit float8_e8m0fnu",
        lambda: jnp.signbit(np.array([1.0, 0.5], dtype=ml_dtypes.float8_e8m0fnu)),
        [False, False],
    ),
]

_TYPES = [
    # setxor1d with size: JAX's padded result is strongly typed.
    (
        "setxor1d size weak inputs",
        under_x64(lambda: jnp.setxor1d(0.0, 1.0, size=3)),
        [0.0, 1.0, 0.0],
        "float64",
        False,
    ),
    # Without size, the promoted weak type survives, an empty result included.
    ("setxor1d empty weak", under_x64(lambda: jnp.setxor1d(0.0, 0.0)), [], "float64", True),
    ("setxor1d weak", under_x64(lambda: jnp.setxor1d(0.0, 1.0)), [0.0, 1.0], "float64", True),
]


def test_setxor1d_size_nan_padding_is_strong():
    with stablax.enable_x64():  # uint16 and a Python NaN promote to a weak float64
        out = jnp.setxor1d(np.uint16(5), np.nan, assume_unique=True, size=4)
        assert (str(out.dtype), out.weak_type) == ("float64", False)
        assert np.asarray(jnp.isnan(out)).tolist() == [False, True, True, True]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_l_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_l_finding(name, call, expected):
    check_finding(call, expected)
