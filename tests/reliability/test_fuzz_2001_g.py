"""Findings of the seed-2001 comparison fuzz (`fuzz_runner --seed 2001 --compare-jax`) in
rounding, polynomials, deletion, set operations, creation and indexing, one row each, with
JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception class),
and (id, call, value, dtype, weak type) where the result's type is the finding.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type


def _f8(values):
    return jnp.asarray(np.array(values, dtype="float8_e4m3fn"))


def _full_like_weak_complex():
    """A weak x takes NumPy's cast of the fill, with NumPy's (and JAX's) ComplexWarning."""
    with pytest.warns(np.exceptions.ComplexWarning):
        return lax.full_like(1.0, 1j)


_FINDINGS = [
    # round: 10**decimals past the dtype's range was inf, and inf/inf NaN; JAX returns the
    # input unchanged there, and scales float16 in float32.
    ("round float8 decimals=3", lambda: jnp.round(_f8([3.5, 1.5, 0.375]), 3), [3.5, 1.5, 0.375]),
    (
        "round float8 decimals=3 under jit",
        lambda: stablax.jit(lambda x: jnp.round(x, decimals=3))(_f8([4.0, 1.125])),
        [4.0, 1.125],
    ),
    ("round float8 decimals=2", lambda: jnp.round(_f8([3.5, 0.375]), 2), [3.25, 0.375]),
    (
        "round float16 decimals=5",
        lambda: jnp.round(jnp.array([3.5, 0.375], "float16"), 5),
        [3.5, 0.375],
    ),
    # polymul: an empty polynomial is the zero polynomial.
    (
        "polymul empty first",
        lambda: jnp.polymul(jnp.zeros(0, "float32"), jnp.array([0], "int16")),
        [0.0],
    ),
    ("polymul both empty", lambda: jnp.polymul(jnp.zeros(0), jnp.zeros(0, "int16")), [0.0]),
    ("polymul empty second", lambda: jnp.polymul(jnp.array([1.0, 2]), jnp.zeros(0)), [0.0, 0.0]),
    # delete with assume_unique_indices: JAX's gather path, n - len(obj) entries kept.
    (
        "delete repeated negative unique indices",
        lambda: jnp.delete(jnp.arange(10), jnp.array([-3, -1, -3, -1]), assume_unique_indices=True),
        [0, 1, 2, 3, 4, 5],
    ),
    (
        "delete unique indices shape",
        lambda: (
            jnp.delete(
                jnp.zeros((5, 3, 2), "int32"),
                jnp.array([-3, -1, -3, -1], "int16"),
                assume_unique_indices=True,
            ).shape
        ),
        (26,),
    ),
    (
        "delete traced unique indices under vmap",
        lambda: stablax.vmap(lambda x, i: jnp.delete(x, i, assume_unique_indices=True))(
            jnp.arange(6).reshape(2, 3), jnp.array([[1], [2]], "int8")
        ),
        [[0, 2], [3, 4]],
    ),
    (
        "delete empty traced indices under vmap",
        lambda: (
            stablax.vmap(lambda x, i: jnp.delete(x, i, assume_unique_indices=True))(
                jnp.zeros((2, 3, 5, 4), "int32"), jnp.zeros((2, 0), "int8")
            ).shape
        ),
        (2, 60),
    ),
    (
        "delete list obj: the axis first",
        lambda: jnp.delete(-1j, [[1, 2], [3, 4]], axis=2, assume_unique_indices=True),
        ValueError,
    ),
    ("delete list obj", lambda: jnp.delete(jnp.ones(3), [1]), TypeError),
    # unique with size=0: the empty result is filled whole, so fill_value must broadcast to it.
    (
        "unique_counts size=0 fill_value of higher rank",
        lambda: jnp.unique_counts(
            jnp.arange(6.0).reshape(2, 3), size=0, fill_value=jnp.ones((1, 1))
        ),
        ValueError,
    ),
    (
        "unique_counts size=0 fill_value that fits",
        lambda: jnp.unique_counts(jnp.arange(6.0).reshape(2, 3), size=0, fill_value=jnp.ones(1)),
        ([], []),
    ),
    (
        "unique_inverse size=0 keeps the inverse",
        lambda: jnp.unique_inverse(jnp.arange(4.0), size=0, fill_value=2.0),
        ([], [0, 1, 2, 3]),
    ),
    # full_like: a Python complex converts only to complex and bool, as Python's int()/float().
    (
        "full_like complex into uint8 under jit",
        lambda: stablax.jit(lambda x: lax.full_like(x, 0.5 + 0j, shape=()))(jnp.zeros((), "uint8")),
        TypeError,
    ),
    ("full_like complex into float32", lambda: lax.full_like(jnp.zeros(2), 1j), TypeError),
    ("full complex into bool", lambda: lax.full((), 0.5 + 0j, "bool"), True),
    ("full_like weak x takes NumPy's cast", lambda: _full_like_weak_complex(), 0.0),
    # put_along_axis and indexing take int4 indices.
    (
        "put_along_axis int4 under jit",
        lambda: stablax.jit(lambda a, i, v: jnp.put_along_axis(a, i, v, -1, inplace=False))(
            jnp.array([-5, 2, 3], "float32"), jnp.array([1, -1], "int4"), jnp.array([7.0, 8])
        ),
        [-5.0, 7.0, 8.0],
    ),
    ("index by uint4", lambda: jnp.arange(5.0)[jnp.array([1, 3], "uint4")], [1.0, 3.0]),
    # histogram's edges (linspace): an infinite end stays infinite, not NaN.
    (
        "histogram -inf under vmap",
        lambda: stablax.vmap(jnp.histogram)(jnp.array([[-1.1640625, -np.inf]], "bfloat16")),
        ([[0.0] * 9 + [2.0]], [[-np.inf] * 10 + [-1.1640625]]),
    ),
    ("linspace from -inf", lambda: jnp.linspace(-np.inf, 1.0, 5), [-np.inf] * 4 + [1.0]),
    ("linspace from inf", lambda: jnp.linspace(np.inf, 1.0, 3), [np.inf, np.inf, 1.0]),
    ("linspace floors ints", lambda: jnp.linspace(-5, 0, 4, dtype=int), [-5, -4, -2, 0]),
    (
        "linspace one sample's step is NaN",
        lambda: bool(jnp.isnan(jnp.linspace(0.0, 1.0, 1, retstep=True)[1])),
        True,
    ),
    (
        "linspace: num before stop",
        lambda: stablax.jit(lambda: jnp.linspace(0, None, num=-(2**63)))(),
        ValueError,
    ),
    # concatenate: the shapes and the axis before the dtype.
    (
        "concatenate 0-d before dtype",
        lambda: jnp.concatenate([jnp.array(1), jnp.array(2)], dtype=object()),
        ValueError,
    ),
    (
        "concatenate axis before dtype",
        lambda: jnp.concatenate([jnp.ones(1), jnp.ones(1)], axis=3, dtype=object()),
        ValueError,
    ),
    # interp: JAX's binary search picks the segment, also where xp is not sorted.
    (
        "interp unsorted xp",
        lambda: jnp.interp(
            jnp.array([2, -2], "int8"),
            jnp.array([-2, -4, 3, 2], "int8"),
            jnp.array([4, 2, 0, -3], "int8"),
            left=4,
            right=False,
        ),
        [0.2857142686843872, 1.4285714626312256],
    ),
    # mask_indices, diag_indices_from, polyfit: JAX's classes, in JAX's order.
    ("mask_indices of None", lambda: jnp.mask_indices(6, lambda *a: None, k=-1), TypeError),
    ("diag_indices_from str", lambda: jnp.diag_indices_from("a"), TypeError),
    ("diag_indices_from None", lambda: jnp.diag_indices_from(None), TypeError),
    (
        "polyfit 2-D x before uint4",
        lambda: jnp.polyfit(jnp.zeros((0, 0), "uint4"), jnp.array(-1.0), 1, cov=1e30),
        TypeError,
    ),
    (
        "polyfit 0-d y before uint4",
        lambda: jnp.polyfit(jnp.zeros(2, "uint4"), jnp.array(-1.0), 1),
        TypeError,
    ),
]

_TYPES = [
    (
        "round float8 keeps its type",
        lambda: jnp.round(_f8([1.5]), 3),
        [1.5],
        "float8_e4m3fn",
        False,
    ),
    (
        "polymul empty promotes to inexact",
        lambda: jnp.polymul(jnp.zeros(0, "int32"), jnp.zeros(0, "int16")),
        [0.0],
        "float32",
        False,
    ),
    (
        "interp takes x's and fp's type together",
        lambda: jnp.interp(jnp.array([0.5]), jnp.array([0.0, 1]), jnp.array([4, 0], "bfloat16")),
        [2.0],
        "float32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_g_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_g_finding(name, call, expected):
    check_finding(call, expected)
