"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --compare-jax`) in jnp.repeat,
jnp.ix_, jnp.fromfunction, jnp.logspace, jnp.mask_indices, jnp.var, jnp.ldexp and jnp.lcm, one
row each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or
exception class), and (id, call, value, dtype, weak type) where the result's type is the finding.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type, under_x64

_FINDINGS = [
    # repeat: bool counts are 0 or 1; total_repeat_length is checked only where it is used (JAX
    # returns an empty axis as it is, and checks a scalar `a`'s counts first); one traced count
    # kept in an array of shape (1, 1) broadcasts to every element.
    ("repeat scalar by False", lambda: stablax.jit(lambda: jnp.repeat(1.5, False, axis=-1))(), []),
    (
        "repeat by bool array counts",
        lambda: jnp.repeat(jnp.ones((3, 1, 1), bool), np.ones((1, 1, 1), bool)),
        [True, True, True],
    ),
    (
        "repeat empty with a str total_repeat_length",
        lambda: (
            jnp.repeat(
                jnp.zeros((2, 0), "uint32"), jnp.zeros((2, 0), "uint32"), total_repeat_length="2"
            ).shape
        ),
        [0],
    ),
    (
        "repeat scalar by two counts, bad axis and total_repeat_length",
        lambda: jnp.repeat(1.5, jnp.array([3, 4]), axis=2, total_repeat_length="2"),
        ValueError,
    ),
    (
        "repeat by one traced count of shape (1, 1)",
        lambda: stablax.jit(lambda a, r: jnp.repeat(a, r, total_repeat_length=2))(
            jnp.ones((2, 1, 2, 1), "complex64"), jnp.array([[False]])
        ),
        [1 + 0j, 1 + 0j],
    ),
    # ix_ checks that every argument is an array before any shape (JAX's TypeError).
    (
        "ix_ of a 4-D array and a str",
        lambda: jnp.ix_(jnp.zeros((1, 0, 1, 2), "bfloat16"), jnp.zeros((1, 0), "int32"), "a"),
        TypeError,
    ),
    # fromfunction(jnp.sum, 4-D shape) passes a traced axis and `out`: the axis must be static,
    # checked before `out` as JAX's (ConcretizationTypeError).
    (
        "fromfunction of sum: traced axis before out",
        lambda: jnp.fromfunction(jnp.sum, (2, 0, 2, 2), dtype=jnp.int32),
        stablax.errors.ConcretizationTypeError,
    ),
    # logspace with equal ends: every exponent is the end exactly, as NumPy, so a negative base
    # gives -1 throughout (JAX 0.10.2: NaN where its linspace blend rounds off 5).
    (
        "logspace equal ends, negative base",
        lambda: jnp.logspace(5, 5, endpoint=False, base=-1.0),
        [-1.0] * 50,
    ),
    ("linspace equal ends exact", lambda: jnp.linspace(5.0, 5.0, 50, endpoint=False), [5.0] * 50),
    # logspace's base is checked after linspace's num (JAX's ValueError).
    (
        "logspace negative num, None base",
        lambda: stablax.jit(lambda: jnp.logspace(-1, -1, num=-1, base=None, dtype=jnp.int64))(),
        ValueError,
    ),
    # mask_indices hands mask_func JAX's float ones: lax.add of them and an int k is refused.
    ("mask_indices with lax.add", lambda: jnp.mask_indices(0, lax.add, size=0), TypeError),
    # var with N < ddof: the value is NumPy's (a constant), so the gradient is 0 as JAX's.
    (
        "grad of var with correction above N",
        lambda: stablax.grad(
            lambda v: jnp.var(v, mean=jnp.array([-1.28125], "bfloat16"), correction=6).sum()
        )(jnp.array([-1.28125], "bfloat16")),
        [0.0],
    ),
    (
        "grad of std with ddof above N",
        lambda: stablax.grad(lambda v: jnp.std(v, ddof=3).sum())(jnp.array([1.0, 2.0])),
        [0.0, 0.0],
    ),
    # ldexp: arguments checked array-like first (JAX's TypeError); a constant exponent under jit
    # is not folded into one overflowing power of two; a wide unsigned count does not wrap.
    ("ldexp of None", lambda: jnp.ldexp(0.5, None), TypeError),
    (
        "ldexp of zero by a big constant uint32 under jit",
        lambda: stablax.jit(lambda x: jnp.ldexp(x, np.uint32(1714430489)))(jnp.zeros(2)),
        [0.0, 0.0],
    ),
    (
        "ldexp by a constant 200 under jit",
        lambda: stablax.jit(lambda x: jnp.ldexp(x, np.int32(200)))(jnp.array([2.0**-126])),
        [2.0**74],
    ),
    ("ldexp by a uint32 above int32", lambda: jnp.ldexp(1.0, np.uint32(3000000000)), np.inf),
    # lcm/gcd run Euclid in a while loop, as JAX: the unrolled chain of selects sent XLA's
    # algebraic simplifier round in circles (its stderr) for a constant operand.
    (
        "lcm with a constant operand lowers to a loop",
        lambda: (
            "stablehlo.while"
            in stablax.jit(lambda x: jnp.lcm(x, np.array([1], "int32")))
            .lower(jnp.ones(3, "int32"))
            .as_text()
        ),
        True,
    ),
]

_TYPES = [
    (
        "repeat scalar by False is weak",
        lambda: stablax.jit(lambda: jnp.repeat(1.5, False))(),
        [],
        "float32",
        True,
    ),
    # ix_ of an empty index: NumPy's and JAX's integer index type, whatever the input's dtype.
    (
        "ix_ of empty complex",
        lambda: jnp.ix_(jnp.zeros(0, "complex64"))[0],
        [],
        "int32",
        False,
    ),
    (
        "ix_ of empty uint16 under jit, x64",
        under_x64(lambda: stablax.jit(jnp.ix_)(jnp.zeros(0, "uint16"))[0]),
        [],
        "int64",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_e_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_e_finding(name, call, expected):
    check_finding(call, expected)
