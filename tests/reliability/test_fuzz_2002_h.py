"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`), one row
each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception
class), and (id, call, value, dtype, weak type) where the result's type is the finding.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, check_result_type, under_x64

_E4M3 = "float8_e4m3fn"

_FINDINGS = [
    # nansum/nanprod check the dtype, then where's dtype, before the axis, as JAX.
    (
        "nansum uint8 where before a complex axis",
        lambda: jnp.nansum(jnp.zeros(5, "uint8"), axis=1 + 2j, where=jnp.ones((2, 2), "uint8")),
        ValueError,
    ),
    (
        "nanprod uint8 where before a complex axis",
        lambda: jnp.nanprod(jnp.ones(2), axis=1j, where=jnp.ones(2, "uint8")),
        ValueError,
    ),
    (
        "nansum object dtype before an out-of-bounds axis",
        lambda: jnp.nansum(jnp.zeros((), "complex64"), axis=-1, dtype=object()),
        TypeError,
    ),
    ("nansum bool where still sums", lambda: jnp.nansum(jnp.ones(3), where=jnp.ones(3, bool)), 3.0),
    # spacing of a type without infinity steps towards its largest value (NaN past it), as
    # ml_dtypes' np.spacing; JAX's signbit refuses 8-bit floats (rule spacing-float8-signbit).
    (
        "spacing float8_e4m3fn",
        lambda: jnp.spacing(jnp.array([1.0, -1.0, 0.0, 2.5], _E4M3)).astype("float32"),
        [0.125, -0.125, 0.001953125, 0.25],
    ),
    (
        "spacing float8_e4m3fn past the largest value",
        lambda: jnp.isnan(stablax.jit(jnp.spacing)(jnp.array([448.0, -448.0], _E4M3))),
        [True, True],
    ),
    # float16 spacing steps towards +inf for every x, as NumPy's and JAX's; -inf is NaN (NumPy).
    (
        "spacing float16 steps up",
        lambda: jnp.spacing(jnp.array([-1.0, 1.0, -3.5, -65504.0], "float16")),
        [0.00048828125, 0.0009765625, 0.001953125, 32.0],
    ),
    ("spacing float16 of -inf", lambda: jnp.isnan(jnp.spacing(jnp.float16(-np.inf))), True),
    # bincount takes int4 as an integer type and checks weights' shape before their dtype, as JAX.
    ("bincount int4 of rank 4", lambda: jnp.bincount(jnp.zeros((1, 1, 2, 0), "int4")), ValueError),
    ("bincount int4", lambda: jnp.bincount(jnp.array([1, 2], "int4"), length=3), [0, 1, 1]),
    (
        "bincount bool weights of another shape",
        lambda: jnp.bincount(jnp.ones(3, bool), weights=jnp.ones(1, bool), length=1),
        ValueError,
    ),
    (
        "bincount bool scalar weight under vmap",
        lambda: stablax.vmap(lambda x: jnp.bincount(x, weights=False, length=3))(
            jnp.zeros((1, 2), "uint32")
        ),
        ValueError,
    ),
    (
        "bincount bool weights of x's shape",
        lambda: jnp.bincount(jnp.ones(2, "int32"), weights=jnp.ones(2, bool), length=3),
        TypeError,
    ),
    # diff with n=0 returns the input before checking its rank or the axis, as JAX.
    (
        "diff n=0 of a scalar",
        under_x64(lambda: stablax.jit(jnp.diff, static_argnames="n")(np.uint8(7), n=0)),
        7,
    ),
    (
        "diff n=0 of a scalar, prepend and append ignored",
        lambda: jnp.diff(jnp.int32(3), n=0, axis=0, prepend=jnp.float32(1), append=1),
        3,
    ),
    ("diff n=0 out-of-bounds axis", lambda: jnp.diff(jnp.ones(2), n=0, axis=7), [1.0, 1.0]),
    ("diff float n", lambda: jnp.diff(jnp.ones(2), n=0.0), TypeError),
    ("diff n=1 of a scalar", lambda: jnp.diff(jnp.int32(3)), ValueError),
    # diff promotes prepend/append with the array before comparing shapes, as JAX's concatenate.
    (
        "diff float8 and float64 prepend of another shape",
        under_x64(
            lambda: jnp.diff(
                jnp.ones((1, 3), "float8_e5m2"), prepend=jnp.ones((2, 2, 2), "float64")
            )
        ),
        ValueError,
    ),
    (
        "diff prepend of another shape",
        lambda: jnp.diff(jnp.ones((1, 3)), prepend=jnp.ones((2, 2))),
        TypeError,
    ),
    # average reads the axis against a's rank (0 for None) before checking a, as JAX.
    ("average None, axis 1", lambda: jnp.average(None, axis=1), ValueError),
    ("average None", lambda: jnp.average(None), TypeError),
]

_TYPES = [
    # place keeps arr's dtype and weak type, as JAX's scatter.
    (
        "place into a Python int is weak",
        lambda: jnp.place(1, 1, jnp.array([5], "uint32"), inplace=False),
        5,
        "int32",
        True,
    ),
    (
        "place into a Python float is weak",
        lambda: jnp.place(1.0, True, jnp.array([5], "uint32"), inplace=False),
        5.0,
        "float32",
        True,
    ),
    (
        "place into an array is strong",
        lambda: jnp.place(jnp.zeros(2), jnp.ones(2), jnp.array([5], "uint32"), inplace=False),
        [5.0, 5.0],
        "float32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_h_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_h_finding(name, call, expected):
    check_finding(call, expected)
