"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`) in the
linalg ops fixed on fx-f, one row each, with JAX 0.10.2's answer as the expected outcome:
(id, call, expected value or exception class), and (id, call, value, dtype, weak type) where the
result's type is the finding. The SVD of a matrix holding inf, which hung in LAPACK (in JAX as
well), runs in a subprocess under a timeout so that a regression fails instead of hanging.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type

# gesdd and gesvd never return on this float32 matrix (found under vmap, shape (1, 4, 4, 4)).
_HANGING_MATRIX = [
    [-np.inf, -2.1413943767547607, 2.838181495666504, 0.0],
    [0.4464299976825714, 0.0, 0.5, -2.366424083709717],
    [-np.inf, np.inf, 0.181770458817482, -2.3384385108947754],
    [0.43915197253227234, 1.1633974313735962, 0.22305887937545776, 0.625270664691925],
]

_FINDINGS = [
    # qr of an empty float16/bfloat16 matrix: no LAPACK call, so any float dtype, as JAX.
    (
        "qr empty float16 under jit",
        lambda: [
            list(a.shape)
            for a in stablax.jit(lambda: lax.linalg.qr(np.zeros((0, 2, 2, 1, 2, 0), "float16")))()
        ],
        [[0, 2, 2, 1, 2, 2], [0, 2, 2, 1, 2, 0]],
    ),
    (
        "qr empty float16 is the identity",
        lambda: lax.linalg.qr(np.zeros((2, 0), "float16"))[0],
        [[1.0, 0.0], [0.0, 1.0]],
    ),
    (
        "qr empty bfloat16 pivoting",
        lambda: lax.linalg.qr(jnp.zeros((0, 3), "bfloat16"), pivoting=True)[2],
        [0, 0, 0],
    ),
    # cholesky symmetrizes with JAX's array arithmetic: the sum wraps in uint8 (160 + 160 = 64).
    (
        "cholesky uint8 symmetrizes in uint8",
        lambda: lax.linalg.cholesky(np.array([[[160]]], "uint8")),
        [[[np.sqrt(np.float32(32)).item()]]],
    ),
    (
        "cholesky bool symmetrizes with OR",
        lambda: lax.linalg.cholesky(np.array([[True, True], [False, True]]))[0, 0],
        np.sqrt(np.float32(0.5)).item(),
    ),
    # svd: with full_matrices, a non-sequence subset_by_index is JAX's first error.
    (
        "svd int subset_by_index with full_matrices",
        lambda: jnp.linalg.svd(jnp.zeros((3, 2, 2)), subset_by_index=2**63),
        ValueError,
    ),
    (
        "svd int subset_by_index under grad",
        lambda: stablax.grad(lambda v: jnp.linalg.svd(v, subset_by_index=2**63)[1].sum())(
            jnp.zeros((3, 2, 2))
        ),
        ValueError,
    ),
    # svd(hermitian=True): equal singular values in JAX's order (ascending sort, reversed).
    (
        "svd hermitian zero matrix U",
        lambda: stablax.jit(lambda x: jnp.linalg.svd(x, hermitian=True))(jnp.zeros((3, 2, 2)))[0],
        [[[0.0, 1.0], [1.0, 0.0]]] * 3,
    ),
    # lu_pivots_to_permutation: a negative pivot counts from the end; past the end, the swap
    # reads the last entry and drops its write.
    (
        "lu_pivots_to_permutation negative pivot",
        lambda: lax.linalg.lu_pivots_to_permutation(jnp.array([-2], "int32"), 5),
        [3, 1, 2, 0, 4],
    ),
    (
        "lu_pivots_to_permutation pivot past the end",
        lambda: lax.linalg.lu_pivots_to_permutation(jnp.array([9], "int32"), 5),
        [4, 1, 2, 3, 4],
    ),
    # ormqr: operands are read before the flags; a str operand, an array flag: TypeError.
    (
        "ormqr str taus, array transpose",
        lambda: stablax.jit(
            lambda a, c: lax.linalg.ormqr(a, "a", c, transpose=jnp.array([3, 0, -2]))
        )(jnp.array([3.0, -4.0, 2.0]), jnp.array(-1.0)),
        TypeError,
    ),
    (
        "ormqr array transpose",
        lambda: lax.linalg.ormqr(jnp.eye(3), jnp.ones(3), jnp.ones((3, 3)), transpose=np.array(1)),
        TypeError,
    ),
    # conv_general_dilated_local checks the precision before the shapes.
    (
        "conv_general_dilated_local bogus precision before shapes",
        lambda: lax.conv_general_dilated_local(
            jnp.array([-3, -4, 1]),
            jnp.array([1, 5, 4], "uint16"),
            (3,),
            "SAME",
            (3,),
            lhs_dilation=(3,),
            precision="bogus",
        ),
        ValueError,
    ),
]

_TYPES = [
    (
        "cholesky of bool is weak",
        lambda: stablax.jit(lax.linalg.cholesky)(jnp.array([[[True]], [[True]]])),
        [[[np.sqrt(np.float32(0.5)).item()]]] * 2,
        "float32",
        True,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_f_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_f_finding(name, call, expected):
    check_finding(call, expected)


_NON_FINITE_SVD = f"""
import numpy as np
import stablax, stablax.numpy as jnp
inf = np.inf
x = np.array({_HANGING_MATRIX!r}, np.float32)
u, s, vh = stablax.vmap(lambda m: jnp.linalg.svd(m, subset_by_index=None))(x[None])
both = np.stack([np.array([[1.0, np.nan], [0.0, 1.0]]), np.eye(2)]).astype(np.float32)
vals = jnp.linalg.svdvals(both)
assert all(np.isnan(np.asarray(a)).all() for a in (u, s, vh)), (u, s, vh)
assert np.isnan(np.asarray(vals[0])).all() and np.allclose(np.asarray(vals[1]), 1.0), vals
assert np.isnan(np.asarray(jnp.linalg.pinv(x))).all()
assert np.isnan(np.asarray(jnp.linalg.norm(x, 2)))
print("ok")
"""


def test_svd_of_a_non_finite_matrix_is_nan_promptly():
    """LAPACK's SVD can loop forever on inf entries; stablax must return NaN instead."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*sys.path, env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _NON_FINITE_SVD],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_svdvals_grad_of_finite_input_unchanged():
    """The non-finite guard leaves the derivative of a finite SVD alone: d sum(s) = U V^H."""
    a = np.random.RandomState(0).randn(3, 3).astype(np.float32)
    left, _, right = np.linalg.svd(a)
    np.testing.assert_allclose(
        np.asarray(stablax.grad(lambda m: jnp.linalg.svdvals(m).sum())(a)), left @ right, atol=1e-5
    )
