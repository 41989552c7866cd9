"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`), batch m,
one row each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or
exception class), and (id, call, value, dtype, weak type) where the result's type is the finding.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type, under_x64

_BRANCHES = [lambda x: x, lambda x: x + 1]

_FINDINGS = [
    # approx_min_k/approx_max_k check k against the axis's size before its type, as JAX.
    (
        "approx_min_k float k past an empty axis",
        lambda: lax.approx_min_k(jnp.zeros((2, 0), "float32"), 1.5),
        ValueError,
    ),
    ("approx_min_k float k in range", lambda: lax.approx_min_k(jnp.zeros(6), 1.5), TypeError),
    ("approx_max_k negative float k", lambda: lax.approx_max_k(jnp.zeros(6), -0.5), ValueError),
    (
        "approx_min_k size before dtype",
        lambda: lax.approx_min_k(jnp.zeros(2, "int8"), 3),
        ValueError,
    ),
    ("approx_min_k dtype", lambda: lax.approx_min_k(jnp.zeros(2, "int8"), 1), ValueError),
    # A Python int index wraps into int32 as NumPy's astype (JAX's convert_element_type), so
    # switch goes on to call the branches; an index past 64 bits is an OverflowError.
    ("switch index -2**63", lambda: lax.switch(-(2**63), _BRANCHES, jnp.float32(1)), 1.0),
    ("switch index 2**31 - 1", lambda: lax.switch(2**31 - 1, _BRANCHES, jnp.float32(1)), 2.0),
    ("switch index 2**31 wraps", lambda: lax.switch(2**31, _BRANCHES, jnp.float32(1)), 1.0),
    (
        "switch index -2**63, jit",
        lambda: stablax.jit(lambda x: lax.switch(-(2**63), _BRANCHES, x))(jnp.float32(1)),
        1.0,
    ),
    (
        "switch index -2**63, a branch of the wrong arity",
        lambda: lax.switch(-(2**63), [lax.add, lax.add], jnp.ones(2), jnp.ones(2), jnp.ones(3)),
        TypeError,
    ),
    ("switch index 2**64", lambda: lax.switch(2**64, _BRANCHES, jnp.float32(1)), OverflowError),
    ("convert 2**64 - 1 to int32", lambda: lax.convert_element_type(2**64 - 1, np.int32), -1),
    ("convert 2**64 to int32", lambda: lax.convert_element_type(2**64, np.int32), OverflowError),
    (
        "convert 2**100 to float32",
        lambda: lax.convert_element_type(2**100, np.float32),
        float(np.float32(2**100)),
    ),
    # stablax counts scan steps in int32 and refuses more (rule scan-length-beyond-int32).
    (
        "fori_loop of 2**63 - 2 steps",
        under_x64(
            lambda: stablax.jit(lambda x: lax.fori_loop(-(2**63), -2, lambda i, v: v + 1, x))(
                jnp.zeros((3, 2), "int16")
            )
        ),
        OverflowError,
    ),
    (
        "scan of 2**31 steps",
        lambda: lax.scan(lambda c, _: (c + 1, None), jnp.int32(0), None, length=2**31),
        OverflowError,
    ),
    (
        "scan of 2**31 - 1 steps traces",
        lambda: (
            stablax.make_jaxpr(
                lambda c: lax.scan(lambda c, _: (c + 1, None), c, None, length=2**31 - 1)[0]
            )(jnp.int32(0))
            is not None
        ),
        True,
    ),
    # schur hashes its static parameters first, as JAX's bind: TypeError before the shape.
    (
        "schur list sort_eig_vals, not square",
        lambda: lax.linalg.schur(jnp.ones((4, 1)), sort_eig_vals=[[1.0]]),
        TypeError,
    ),
    (
        "schur list sort_eig_vals, square",
        lambda: lax.linalg.schur(jnp.ones((1, 1)), sort_eig_vals=[[1.0]]),
        TypeError,
    ),
    (
        "schur array select_callable",
        lambda: lax.linalg.schur(jnp.ones((2, 2)), select_callable=jnp.ones(2)),
        TypeError,
    ),
    (
        "schur True sort_eig_vals",
        lambda: lax.linalg.schur(jnp.ones((2, 2)), sort_eig_vals=True),
        NotImplementedError,
    ),
    # map with fewer elements than batch_size (none included) vmaps f once over all of xs.
    (
        "map none over no elements",
        lambda: lax.map(lambda x: None, jnp.zeros(0), batch_size=3),
        None,
    ),
    (
        "map pair over no elements",
        lambda: lax.map(lambda x: (x, 2 * x), jnp.zeros((0, 3)), batch_size=2),
        ([], []),
    ),
    (
        "map fewer than a batch",
        lambda: lax.map(lambda x: x + 1, jnp.arange(3), batch_size=5),
        [1, 2, 3],
    ),
    (
        "map batches and a remainder",
        lambda: lax.map(lambda x: x * 2, jnp.arange(5), batch_size=2),
        [0, 2, 4, 6, 8],
    ),
]

_TYPES = [
    (
        "convert -2**63 to int32",
        lambda: lax.convert_element_type(-(2**63), np.int32),
        0,
        "int32",
        False,
    ),
    (
        "map jit over no bool elements",
        under_x64(
            lambda: stablax.jit(lambda x: lax.map(lambda *a: a[-1] + 1, x, batch_size=2))(
                jnp.zeros(0, bool)
            )
        ),
        [],
        "int64",
        True,
    ),
    (
        "map jit sum over no elements",
        lambda: stablax.jit(lambda x: lax.map(jnp.sum, x, batch_size=6))(
            jnp.zeros((0, 2, 1, 1, 2, 0), "int16")
        ),
        [],
        "int32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_m_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_m_finding(name, call, expected):
    check_finding(call, expected)
