"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`), one row
each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception
class), and (id, call, value, dtype, weak type) where the result's type is the finding.
"""

from __future__ import annotations

import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, check_result_type

_INT16 = jnp.array([3], "int16"), jnp.array([1, 2], "int16")

_FINDINGS = [
    # extract/compress with one selectable slice: JAX's where widens it to the fill's rows and
    # keeps the first, so a (2,) fill serves as its first entry.
    (
        "extract size 0 fill of two rows",
        lambda: jnp.extract(*_INT16, size=0, fill_value=jnp.array([7, 9], "uint32")),
        [],
    ),
    (
        "extract size 1 fill of two rows",
        lambda: jnp.extract(*_INT16, size=1, fill_value=jnp.array([7, 9], "uint32")),
        [1],
    ),
    (
        "extract nothing selected fill of two rows",
        lambda: jnp.extract(
            jnp.array([0], "int16"), _INT16[1], size=1, fill_value=jnp.array([7, 9], "uint32")
        ),
        [7],
    ),
    (
        "compress rows fill of two rows",
        lambda: jnp.compress(
            jnp.array([False]), jnp.ones((1, 2)), axis=0, size=1, fill_value=jnp.eye(2) + 4
        ),
        [[5.0, 4.0]],
    ),
    (
        "extract fill of more axes than the slices",  # rule compress-fill-value-of-more-axes
        lambda: jnp.extract(
            jnp.ones((1, 1)), jnp.ones((3, 3)), size=0, fill_value=jnp.ones((1, 1))
        ),
        ValueError,
    ),
    # compress compares size with the axis before it takes it as an integer, as JAX.
    (
        "extract float size past the axis",
        lambda: jnp.extract(-1, jnp.ones((5, 3, 1), "uint16"), size=1.5),
        ValueError,
    ),
    ("extract negative float size", lambda: jnp.extract(-1, jnp.ones(3), size=-0.5), ValueError),
    (
        "extract float size within the axis",
        lambda: jnp.extract(-1, jnp.ones(3), size=0.5),
        TypeError,
    ),
    (
        "jit extract float size past the axis",
        lambda: stablax.jit(lambda a: jnp.extract(-1, a, size=1.5))(jnp.ones((5, 3, 5), "uint16")),
        ValueError,
    ),
    # *_like of a str with a dtype: the str is a scalar whose shape () alone matters.
    (
        "empty_like of a str with dtype and shape",
        lambda: jnp.empty_like("a", dtype="float32", shape=(3, 2, 2)),
        [[[0.0, 0.0], [0.0, 0.0]]] * 3,
    ),
    ("zeros_like of a str with dtype", lambda: jnp.zeros_like("a", dtype="int8"), 0),
    ("full_like of a str with dtype", lambda: jnp.full_like("ab", 3, "int8", (2,)), [3, 3]),
    ("ones_like of a str without dtype", lambda: jnp.ones_like("a"), TypeError),
    # histogramdd checks in JAX's order: the weights' shape, the ranges, then the bins (a str's
    # characters, as JAX's list(bins)).
    (
        "histogram2d str bins",
        lambda: jnp.histogram2d(jnp.ones(3), jnp.ones(3), bins="a"),
        ValueError,
    ),
    (
        "histogram2d grad str bins",
        lambda: stablax.grad(lambda y: jnp.histogram2d(jnp.ones(3), y, bins="a")[0].sum())(
            jnp.ones(3)
        ),
        ValueError,
    ),
    (
        "histogram2d scalar weights before a 0-d range",
        lambda: jnp.histogram2d(
            jnp.ones(1, bool), jnp.ones(1, bool), range=jnp.array(3, "int8"), weights=0
        ),
        ValueError,
    ),
    (
        "vmap histogram2d scalar weights",
        lambda: stablax.vmap(
            lambda x, y: jnp.histogram2d(x, y, range=jnp.array(3, "int8"), weights=0)[0]
        )(jnp.ones((0, 1), bool), jnp.ones((0, 1), bool)),
        ValueError,
    ),
    (
        "histogramdd weights before the sample's rank",
        lambda: jnp.histogramdd(jnp.ones(3), weights=jnp.ones(2)),
        ValueError,
    ),
    (
        "histogramdd ranges before the bins",
        lambda: jnp.histogramdd(jnp.ones((3, 2)), bins=[3], range=[(0, 1)]),
        ValueError,
    ),
]

_TYPES = [
    (
        "extract size 0 fill of two rows keeps the int16",
        lambda: jnp.extract(*_INT16, size=0, fill_value=jnp.array([7, 9], "uint32")),
        [],
        "int16",
        False,
    ),
    (
        "empty_like of a str keeps the dtype, strong",
        lambda: jnp.empty_like("a", dtype="int16"),
        0,
        "int16",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_o_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_o_finding(name, call, expected):
    check_finding(call, expected)
