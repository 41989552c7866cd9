"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`), one row
each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception
class).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, under_x64

_SINGULAR_ROWS = np.array([4, 7, 0, 5, 4, 7, 5, 4, 0, 3, 6, 5, 3, 0, 1, 2], "uint64").reshape(4, 4)
_INF_RHS = np.array([0.378, -1.045, np.inf, 1.0], "float32").reshape(4, 1)

_FINDINGS = [
    # eye's k, and trace's offset (JAX builds trace on eye), must be a scalar integer: a float,
    # complex or non-scalar one is JAX's ValueError; what is not array-like stays a TypeError.
    ("eye float k", lambda: jnp.eye(5, k=1.5, dtype="int8"), ValueError),
    ("eye float array k", lambda: jnp.eye(3, k=np.array(1.0)), ValueError),
    ("eye vector k", lambda: jnp.eye(3, k=np.array([1])), ValueError),
    ("eye None k", lambda: jnp.eye(3, k=None), TypeError),
    ("eye bool k", lambda: jnp.eye(2, k=True), [[0.0, 1.0], [0.0, 0.0]]),
    ("eye numpy int k", lambda: jnp.eye(2, k=np.int8(-1)), [[0.0, 0.0], [1.0, 0.0]]),
    ("trace float offset", lambda: jnp.trace(jnp.ones((2, 2)), offset=1.5), ValueError),
    ("trace bool offset", lambda: jnp.trace(jnp.ones((2, 2)), offset=True), ValueError),
    ("trace string offset", lambda: jnp.trace(jnp.ones((2, 2)), offset="a"), TypeError),
    ("trace same axes before offset", lambda: jnp.trace(jnp.ones((2, 2)), 1.5, 0, 0), ValueError),
    (
        "linalg.trace float offset under vmap",
        lambda: stablax.vmap(lambda x: jnp.linalg.trace(x, offset=1.5))(
            jnp.ones((0, 2, 2, 0, 1), "uint16")
        ),
        ValueError,
    ),
    ("linalg.trace integer offset", lambda: jnp.linalg.trace(jnp.eye(3) + 1, offset=-1), 2.0),
    # matrix_norm of order 1 or inf of empty matrices is 0 (JAX's initial=0 for the max).
    (
        "matrix_norm ord 1 of empty columns",
        lambda: stablax.jit(lambda x: jnp.linalg.matrix_norm(x, keepdims=True, ord=1))(
            jnp.zeros((5, 2, 0), "int32")
        ),
        [[[0.0]]] * 5,
    ),
    ("matrix_norm ord inf of no rows", lambda: jnp.linalg.norm(jnp.zeros((0, 3)), np.inf), 0.0),
    (
        "matrix_norm ord -1 of no columns",
        lambda: jnp.linalg.norm(jnp.zeros((2, 0)), -1),
        ValueError,
    ),
    # tensordot checks preferred_element_type before the axes, as JAX.
    (
        "tensordot bad preferred type before bad axes",
        lambda: jnp.linalg.tensordot(
            jnp.ones((3, 5), bool), jnp.ones(5, bool), axes=(0, 1), preferred_element_type="foo"
        ),
        TypeError,
    ),
    # solve permutes b's rows by a gather: an inf in b stays an inf where JAX and NumPy keep it
    # (a one-hot product made 0 * inf = NaN of every element).
    (
        "solve with an infinite right-hand side",
        under_x64(
            lambda: [
                jnp.isinf(jnp.linalg.solve(_SINGULAR_ROWS, _INF_RHS)).ravel(),
                jnp.isnan(jnp.linalg.solve(_SINGULAR_ROWS, _INF_RHS)).ravel(),
            ]
        ),
        ([False, False, False, True], [True, True, True, False]),
    ),
    # fftfreq/rfftfreq check the dtype before building the n samples, as JAX.
    ("fftfreq bad dtype of a huge n", lambda: jnp.fft.fftfreq(2**63, dtype=3), TypeError),
    ("rfftfreq bad dtype of a huge n", lambda: jnp.fft.rfftfreq(2**63, dtype="foo"), TypeError),
    # einsum matches the subscripts with the operands' shapes (opt_einsum's reading) before any
    # operand becomes an array, as JAX.
    (
        "einsum operand count before a huge int",
        lambda: stablax.jit(lambda: jnp.einsum("i,i->", 2**63, preferred_element_type=jnp.int64))(),
        ValueError,
    ),
    (
        "einsum operand count before a string",
        lambda: jnp.einsum("ijk->kji", jnp.ones(1), "a"),
        ValueError,
    ),
    ("einsum None operand", lambda: jnp.einsum("bogus", jnp.ones(1), None), ValueError),
    ("einsum of no operands", lambda: jnp.einsum(None, out=None), ValueError),
    ("einsum still contracts", lambda: jnp.einsum("i,->", jnp.arange(3.0), 2.0), 6.0),
    # histogramdd of samples with no coordinates (N, 0): NumPy's and JAX's ValueError.
    ("histogramdd of (0, 0)", lambda: jnp.histogramdd(jnp.zeros((0, 0), "complex64")), ValueError),
    ("histogramdd of (2, 0)", lambda: jnp.histogramdd(np.zeros((2, 0), "complex64")), ValueError),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_i_finding(name, call, expected):
    check_finding(call, expected)
