"""Findings of the seed-2001 comparison fuzz in linear algebra, FFT, gather and precision
functions, one row each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected
value or exception class), and (id, call, value, dtype, weak type) where the result's type is
the finding.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.lax.linalg
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type, under_x64


def _conv_local_wrong_strides():
    # Four window strides for two spatial dimensions: the patches' check comes first, as JAX,
    # not the rank of the (here 1-D) kernel.
    return stablax.vmap(
        lambda x, k: lax.conv_general_dilated_local(x, k, (2, 2, 2, 1), "VALID", (1, 3), None, ())
    )(jnp.ones((1, 1, 2, 2, 2), "float16"), jnp.ones((1, 2), "float16"))


_FINDINGS = [
    # slogdet checks the array (and its shape) before method, as JAX.
    ("slogdet None, bad method", lambda: jnp.linalg.slogdet(None, method="bogus"), TypeError),
    ("slogdet 1-D, bad method", lambda: jnp.linalg.slogdet(jnp.ones(3), method="x"), ValueError),
    # qr: "full" is JAX's alias of "reduced", so a 0-d input fails on its rank.
    ("qr full of 0-d", lambda: jnp.linalg.qr(jnp.ones((), "complex64"), mode="full"), TypeError),
    ("qr full is reduced", lambda: jnp.linalg.qr(jnp.ones((3, 2)), mode="full")[0].shape, [3, 2]),
    ("qr bad mode", lambda: jnp.linalg.qr(jnp.ones((2, 2)), mode="bogus"), ValueError),
    # reduce_precision: the dtype before the int32 limit of the bit counts (met at lowering).
    (
        "reduce_precision int8, huge bits",
        lambda: stablax.jit(lambda x: lax.reduce_precision(x, 2**63, 2**63))(jnp.int8(2)),
        TypeError,
    ),
    (
        "reduce_precision int8, negative mantissa first",
        lambda: lax.reduce_precision(jnp.int8(2), 2**31, -1),
        ValueError,
    ),
    ("reduce_precision float, huge bits", lambda: lax.reduce_precision(1.0, 2**40, 2), ValueError),
    # index_take: 0-d index arrays (an iterated 1-D array) fail before axes is read.
    (
        "index_take 0-d indices, axes=True",
        lambda: stablax.jit(lambda i: lax.index_take(np.array([4, 0, 0], "uint16"), i, True))(
            jnp.array([-3, -2, -5])
        ),
        ValueError,
    ),
    (
        "index_take 1-D indices, axes=True",
        lambda: lax.index_take(np.array([4, 0, 0], "uint16"), (jnp.array([0, 1]),), True),
        TypeError,
    ),
    # lu_pivots_to_permutation compares a float size before it must be an integer.
    (
        "lu_pivots_to_permutation float size too small",
        lambda: stablax.vmap(lambda p: lax.linalg.lu_pivots_to_permutation(p, 1.5))(
            jnp.zeros((0, 2, 1, 4), "int8")
        ),
        ValueError,
    ),
    (
        "lu_pivots_to_permutation float size large enough",
        lambda: lax.linalg.lu_pivots_to_permutation(jnp.zeros(4, "int32"), 5.0),
        TypeError,
    ),
    # eig hashes implementation (a static parameter) before it checks x.
    (
        "eig unhashable implementation under vmap",
        lambda: stablax.vmap(lambda x: lax.linalg.eig(x, implementation=[1]))(jnp.ones((1, 2, 3))),
        TypeError,
    ),
    # triangular_solve of a 1-D a and a 0-d b: JAX's expand_dims at axis -2 fails.
    (
        "triangular_solve 1-D a, right side",
        lambda: lax.linalg.triangular_solve(jnp.ones(4, "complex64"), jnp.int8(-2), left_side=None),
        ValueError,
    ),
    (
        "triangular_solve 1-D a, left side",
        lambda: lax.linalg.triangular_solve(jnp.ones(4), jnp.ones(()), left_side=True),
        TypeError,
    ),
    (
        "conv_general_dilated_local strides before kernel rank",
        _conv_local_wrong_strides,
        ValueError,
    ),
    (
        "conv_general_dilated_local still works",
        lambda: (
            lax.conv_general_dilated_local(
                jnp.ones((1, 2, 4, 4)), jnp.ones((3, 8, 3, 3)), (1, 1), "VALID", (2, 2)
            ).shape
        ),
        [1, 3, 3, 3],
    ),
    # lstsq of empty bfloat16 matrices: an empty SVD needs no LAPACK, so any float dtype works.
    (
        "lstsq empty bfloat16 under vmap",
        under_x64(
            lambda: tuple(
                o.shape
                for o in stablax.vmap(lambda a, b: jnp.linalg.lstsq(a, b, numpy_resid=True))(
                    jnp.zeros((0, 1, 0), "uint64"), jnp.zeros((0, 1, 2), "bfloat16")
                )
            )
        ),
        ([0, 0, 2], [0, 2], [0], [0, 0]),
    ),
    (
        "svd empty bfloat16",
        lambda: lax.linalg.svd(jnp.zeros((1, 0), "bfloat16"))[0],
        [[1.0]],
    ),
    ("svd empty int32", lambda: lax.linalg.svd(jnp.zeros((2, 0), "int32")), TypeError),
]

_TYPES = [
    (
        "fft of a Python complex is strongly typed",
        under_x64(lambda: stablax.jit(lambda: lax.fft(0.5 + 0j, "FFT", ()))()),
        0.5 + 0j,
        "complex128",
        False,
    ),
    (
        "rfft of a Python float is strongly typed",
        lambda: lax.fft(0.5, "RFFT", ()),
        0.5,
        "float32",
        False,
    ),
    (
        "lstsq empty bfloat16",
        lambda: jnp.linalg.lstsq(jnp.zeros((1, 0), "bfloat16"), jnp.zeros((1, 2), "bfloat16"))[1],
        [0.0, 0.0],
        "bfloat16",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_h_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_h_finding(name, call, expected):
    check_finding(call, expected)
