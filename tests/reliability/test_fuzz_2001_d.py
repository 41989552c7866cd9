"""Findings of the comparison fuzz with seed 2001 in linalg norms, dots, top_k, cumulative
reductions and slicing, one row each, with JAX 0.10.2's answer (or NumPy's, where JAX's is an
artefact) as the expected outcome: (id, call, expected value or exception class).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type

_FINDINGS = [
    # vector_norm of integers with ord 0 or p: NumPy's float norm (JAX's are artefacts).
    (
        "vector_norm int16 ord=3",
        lambda: float(jnp.linalg.vector_norm(jnp.array([3, 4], jnp.int16), ord=3)),
        pytest.approx(91.0 ** (1 / 3)),
    ),
    (
        "vector_norm bool ord=-1",
        lambda: jnp.linalg.vector_norm(jnp.array([True, False]), ord=-1),
        0.0,
    ),
    # top_k checks k's sign first, then the axis; complex operands are JAX's ValueError.
    ("top_k negative k, bad axis", lambda: lax.top_k(jnp.ones((5, 3)), -3, axis="a"), ValueError),
    ("top_k negative k, complex", lambda: lax.top_k(jnp.ones(4, jnp.complex64), -3), ValueError),
    ("top_k complex", lambda: lax.top_k(jnp.ones((5, 4), jnp.complex64), 2), ValueError),
    (
        "top_k traced k",
        lambda: stablax.jit(lambda k: lax.top_k(True, k))(np.int32(1)),
        stablax.errors.TracerBoolConversionError,
    ),
    ("top_k values", lambda: lax.top_k(jnp.array([1, 3, 2]), 2)[0], [3, 2]),
    # bessel_i1e of narrow floats: XLA cannot lower it; a TypeError, not a JaxRuntimeError.
    ("bessel_i1e float8", lambda: lax.bessel_i1e(jnp.ones(2, jnp.float8_e4m3fn)), TypeError),
    ("bessel_i1e float4", lambda: lax.bessel_i1e(jnp.ones(2, jnp.float4_e2m1fn)), TypeError),
    # Strings and bytes are no array operands: TypeError before the axis or bit checks.
    ("cumsum bytes", lambda: lax.cumsum(b"ab", axis=-1), TypeError),
    ("cumprod str", lambda: lax.cumprod("ab"), TypeError),
    ("reduce_precision bytes, bad bits", lambda: lax.reduce_precision(b"ab", 0, 3), TypeError),
    ("reduce_precision None, bad bits", lambda: lax.reduce_precision(None, 0, 3), TypeError),
    ("reduce_precision bad bits", lambda: lax.reduce_precision(1.0, 0, 3), ValueError),
    # dot_general: default dimension numbers read NumPy's shape; out_sharding is checked.
    ("dot None lhs", lambda: lax.dot(None, jnp.ones(3)), ValueError),
    ("dot_general None lhs", lambda: lax.dot_general(None, jnp.ones(3), None), ValueError),
    (
        "dot_general complex out_sharding",
        lambda: lax.dot_general(jnp.ones(4), jnp.ones(4), None, out_sharding=1 + 2j),
        TypeError,
    ),
    (
        "dot_general nan numbers and out_sharding",
        lambda: lax.dot_general(jnp.ones((2, 0)), jnp.ones((2, 0)), np.nan, out_sharding=np.nan),
        TypeError,
    ),
    (
        "tensordot complex out_sharding",
        lambda: jnp.linalg.tensordot(jnp.ones((3, 1)), jnp.ones((3, 1)), out_sharding=1 + 2j),
        TypeError,
    ),
    ("dot_general", lambda: lax.dot_general(jnp.ones(4), jnp.ones(4), None), 4.0),
    # scaled_dot: a scale's blocks along a contracting dim hold at least 2 entries.
    (
        "scaled_dot block of 1",
        lambda: lax.scaled_dot(
            jnp.ones((3, 3)), jnp.ones((3, 3)), lhs_scale=jnp.ones((3, 3), jnp.uint16)
        ),
        TypeError,
    ),
    # dynamic slices: a negative static start refused before the sizes and the update.
    (
        "dynamic_slice_in_dim negative start and size",
        lambda: lax.dynamic_slice_in_dim(
            jnp.ones((2, 2, 2)), -3, -3, axis=0, allow_negative_indices=False
        ),
        ValueError,
    ),
    (
        "dynamic_slice_in_dim negative start, size too big",
        lambda: lax.dynamic_slice_in_dim(jnp.ones((2, 2)), -1, 4, allow_negative_indices=False),
        ValueError,
    ),
    (
        "dynamic_slice_in_dim negative start allowed",
        lambda: lax.dynamic_slice_in_dim(jnp.arange(3), -1, 1),
        [2],
    ),
    (
        "dynamic_update_slice scalar update of a matrix",
        lambda: lax.dynamic_update_slice(jnp.ones((3, 0), jnp.uint32), -1, (1, 4)),
        TypeError,
    ),
    # cond of an empty batch of matrices: an empty result.
    ("cond empty matrix", lambda: jnp.linalg.cond(jnp.ones((2, 0))), ValueError),
    # Logical reductions take bool and 8- to 64-bit integers.
    ("reduce_and int4", lambda: lax.reduce_and(jnp.zeros((3, 3), jnp.int4), (1, 0)), TypeError),
    ("reduce_or uint4", lambda: lax.reduce_or(jnp.zeros((3, 3), jnp.uint4), (1,)), TypeError),
    ("reduce_and uint8", lambda: lax.reduce_and(jnp.full(3, 6, jnp.uint8), (0,)), 6),
    # pmax/pmin over a positional axis with axis_index_groups: JAX's ValueError.
    (
        "pmax int axis with groups",
        lambda: lax.pmax(jnp.ones(3), 2, axis_index_groups=2),
        ValueError,
    ),
    (
        "pmin int axis with groups",
        lambda: lax.pmin(jnp.ones(3), 0, axis_index_groups=[[0]]),
        ValueError,
    ),
]

_TYPES = [
    (
        "vector_norm complex64 ord=0",
        lambda: jnp.linalg.vector_norm(jnp.array([1, 0, 2], jnp.complex64), ord=0),
        2.0,
        "float32",
        False,
    ),
    (
        "vector_norm uint8 ord=0",
        lambda: jnp.linalg.vector_norm(jnp.array([1, 0, 2], jnp.uint8), ord=0),
        2.0,
        "float32",
        False,
    ),
    (
        "cond empty batch",
        lambda: jnp.linalg.cond(jnp.ones((2, 0, 2, 2), jnp.int8)),
        [[], []],
        "float32",
        False,
    ),
    (
        "bessel_i1e bfloat16",
        lambda: lax.bessel_i1e(jnp.zeros(1, jnp.bfloat16)),
        [0.0],
        "bfloat16",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_d_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_d_finding(name, call, expected):
    check_finding(call, expected)
