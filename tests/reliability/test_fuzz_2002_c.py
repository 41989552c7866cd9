"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --compare-jax`, report c) in set
operations, array creation, triangles, histograms, DLPack, take and the index helpers, one
row each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or
exception class).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding


def _with_complex_warning(fill_like):
    """A NumPy complex fill takes NumPy's cast, with NumPy's (and JAX's) ComplexWarning."""
    with pytest.warns(np.exceptions.ComplexWarning):
        return fill_like(jnp.int32(5), np.complex128(1 + 2j))


_FINDINGS = [
    # intersect1d: an empty array has no first index to search (a gather error before).
    (
        "intersect1d return_indices with an empty second array",
        lambda: jnp.intersect1d(jnp.array([1.0, 2.0, 3.0]), jnp.zeros(0), return_indices=True),
        ([], [], []),
    ),
    (
        "intersect1d return_indices, size, both empty, values",
        lambda: stablax.jit(lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=2)[0])(
            jnp.zeros(0, "int32"), jnp.zeros(0, "int32")
        ),
        [0, 0],
    ),
    # assume_unique: NumPy's and JAX's rule (the sorted values of both that equal their
    # successor), so inputs that are not unique give their repeats.
    (
        "intersect1d assume_unique with a repeat, size",
        lambda: jnp.intersect1d(
            jnp.zeros(0, "int32"), jnp.array([7, 7, 1, 2], "int32"), assume_unique=True, size=5
        ),
        [7, 7, 7, 7, 7],
    ),
    (
        "intersect1d assume_unique of repeats, no size",
        lambda: jnp.intersect1d(jnp.zeros(4, "int32"), jnp.zeros(0, "int32"), assume_unique=True),
        [0, 0, 0],
    ),
    (
        "intersect1d assume_unique, return_indices and fill_value",
        lambda: jnp.intersect1d(
            jnp.array([3, 1, 2]),
            jnp.array([2, 3, 5]),
            assume_unique=True,
            return_indices=True,
            size=4,
            fill_value=-1,
        ),
        ([2, 3, -1, -1], [2, 0, 3, 3], [0, 1, 3, 3]),
    ),
    (
        "intersect1d assume_unique of one value, size",
        lambda: jnp.intersect1d(jnp.array([3.0]), jnp.zeros(0), assume_unique=True, size=2),
        [3.0, 3.0],
    ),
    # tril (and tri) refuse a bool diagonal offset, as JAX's tri; triu computes k - 1.
    ("tril bool k", lambda: jnp.tril(jnp.ones((2, 2)), k=True), TypeError),
    ("tri bool k", lambda: jnp.tri(2, k=True), TypeError),
    ("triu numpy bool k", lambda: jnp.triu(jnp.ones((2, 2)), k=np.True_), [[0.0, 1.0], [0.0, 0.0]]),
    # asarray of None is JAX's ValueError (NumPy's cast made NaN, under jit too).
    (
        "asarray None with a dtype under jit",
        lambda: stablax.jit(lambda: jnp.asarray(None, dtype=jnp.float16))(),
        ValueError,
    ),
    ("asarray None in a list", lambda: jnp.asarray([1.0, None], dtype=jnp.float32), ValueError),
    ("array None", lambda: jnp.array(None, dtype=jnp.float32), ValueError),
    # asarray with copy=False asks for the device's platform before it looks at order.
    (
        "asarray bad device before order",
        lambda: jnp.asarray([1.0], order="C", copy=False, device=2**63),
        ValueError,
    ),
    (
        "asarray order with copy",
        lambda: jnp.asarray([1.0], order="C", device=2**63),
        NotImplementedError,
    ),
    # histogram's range goes through float(): an object is a TypeError.
    (
        "histogram_bin_edges object range",
        lambda: jnp.histogram_bin_edges(jnp.ones(3), range=object()),
        TypeError,
    ),
    (
        "histogram_bin_edges scalar range",
        lambda: jnp.histogram_bin_edges(jnp.ones(3), range=3),
        ValueError,
    ),
    # A NumPy complex scalar (a subclass of Python complex) fills with NumPy's cast, as JAX.
    (
        "full_like numpy complex into int",
        lambda: _with_complex_warning(jnp.full_like),
        1,
    ),
    (
        "lax.full_like numpy complex into int",
        lambda: _with_complex_warning(lax.full_like),
        1,
    ),
    (
        "lax.full_like python complex into int",
        lambda: lax.full_like(jnp.int32(5), 1 + 2j),
        TypeError,
    ),
    # DLPack between Arrays carries float8, as in JAX.
    (
        "from_dlpack float8 array",
        lambda: jnp.from_dlpack(jnp.array([1.0, 2.0], jnp.float8_e4m3fn), copy=False),
        [1.0, 2.0],
    ),
    # take's 'raise' mode is refused before the indices' dtype is checked.
    (
        "take raise mode before float indices",
        lambda: stablax.jit(
            lambda: jnp.take(1 + 2j, np.array([1.2, 2.4], "float32"), mode="raise")
        )(),
        NotImplementedError,
    ),
    # the *_indices_from helpers check for an array first, as JAX.
    ("triu_indices_from None", lambda: jnp.triu_indices_from(None, k=0), TypeError),
    ("tril_indices_from None", lambda: jnp.tril_indices_from(None), TypeError),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_c_finding(name, call, expected):
    check_finding(call, expected)
