"""Findings of the seed-2002 comparison fuzz (`fuzz_runner --seed 2002 --compare-jax`), one row
each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or exception
class), and (id, call, value, dtype, weak type) where the result's type is the finding.
"""

from __future__ import annotations

import pytest

import stablax
import stablax.numpy as jnp
from tests.reliability.reproducer_checks import check_finding, check_result_type

_FINDINGS = [
    # polydiv by a zero polynomial: 0 * inf = NaN in the quotient and the remainder, as NumPy.
    (
        "polydiv zero by zero",
        lambda: [jnp.isnan(r) for r in jnp.polydiv(jnp.array([0.0]), jnp.array([0.0]))],
        [[True], [True]],
    ),
    (
        "polydiv by zero remainder",
        lambda: jnp.isnan(jnp.polydiv(jnp.array([1.0, 2.0]), jnp.array([0.0]))[1]),
        [True, True],
    ),
    (
        "polydiv bool zeros",
        lambda: [jnp.isnan(r) for r in jnp.polydiv(jnp.array([False]), jnp.array([False]))],
        [[True], [True]],
    ),
    (
        "polydiv bool exact",
        lambda: jnp.polydiv(jnp.array([True, False]), jnp.array([True])),
        ([1.0, 0.0], [0.0, 0.0]),
    ),
    # var/std with N - ddof <= 0: NaN, as JAX (not NumPy's division by zero, inf).
    (
        "std where, mean, correction past the count",
        lambda: jnp.isnan(
            jnp.std(
                jnp.array([False, True]),
                axis=0,
                dtype="bfloat16",
                where=jnp.array([False, True]),
                mean=jnp.array([0.0683855339884758]),
                correction=4,
            )
        ),
        True,
    ),
    ("var ddof past the count", lambda: jnp.isnan(jnp.var(jnp.array([1.0, 2.0]), ddof=3)), True),
    # fftfreq/rfftfreq check d as JAX's d * n fails: None a TypeError, a string a ValueError.
    ("rfftfreq d None", lambda: jnp.fft.rfftfreq(0, d=None, dtype=jnp.uint32), TypeError),
    ("fftfreq d None", lambda: jnp.fft.fftfreq(4, d=None), TypeError),
    ("rfftfreq d string", lambda: jnp.fft.rfftfreq(4, d="a"), ValueError),
    ("fftfreq d bytes", lambda: jnp.fft.fftfreq(4, d=b"a"), ValueError),
    # top_k checks the axis against the operand's rank (0 for None or a string) first, as JAX.
    ("top_k of None", lambda: stablax.lax.top_k(None, 0, axis=0), ValueError),
    ("top_k of a string", lambda: stablax.lax.top_k("a", 2**63), ValueError),
    # A string axis is a named axis to JAX: no named prod/any/all, an unbound name for sum.
    (
        "prod named axis",
        lambda: jnp.prod(jnp.ones(()), axis="a", keepdims=True),
        NotImplementedError,
    ),
    ("all named axis tuple", lambda: jnp.all(jnp.ones(2), axis=(0, "a")), NotImplementedError),
    ("sum named axis", lambda: jnp.sum(jnp.ones(2), axis="a"), NameError),
    # roll refuses a float shift as NumPy (JAX truncates it: rule roll-float-shift).
    ("roll float shift", lambda: jnp.roll(jnp.zeros(4, "uint16"), 1.5), TypeError),
    # ihfft checks its one axis before the array (JAX's order); None is refused naming it.
    ("ihfft of None, axis ()", lambda: jnp.fft.ihfft(None, axis=()), ValueError),
    ("ihfft of None", lambda: jnp.fft.ihfft(None, axis=-2), TypeError),
    # fill_diagonal checks both arguments are arrays before the shapes, as JAX.
    ("fill_diagonal bytes val", lambda: jnp.fill_diagonal(False, b"ab", inplace=False), TypeError),
    (
        "fill_diagonal None val",
        lambda: jnp.fill_diagonal(jnp.zeros((2, 0, 1), "int16"), None, inplace=False),
        TypeError,
    ),
    # pad checks a traced pad_width's shape before refusing it as traced, as JAX.
    (
        "pad traced pad_width of a bad shape",
        lambda: stablax.grad(lambda v: jnp.sum(jnp.pad(jnp.ones((2, 2)), v)))(jnp.zeros((1, 1, 1))),
        ValueError,
    ),
    (
        "pad traced empty pad_width",
        lambda: stablax.grad(lambda v: jnp.sum(jnp.pad(jnp.ones(4), v)))(jnp.zeros(0)),
        ValueError,
    ),
    (
        "pad traced pad_width of a good shape",
        lambda: stablax.jit(lambda v: jnp.pad(jnp.ones(4), v))(jnp.zeros(2, "int32")),
        TypeError,
    ),
    # rfftn checks s's signs before the axes, as JAX.
    (
        "rfftn zero length before a bad axes",
        lambda: jnp.fft.rfftn(jnp.float32(1), s=(5, 0, 1), axes=1 + 2j),
        ValueError,
    ),
    # polyadd checks the broadcast before refusing bool, as JAX's scatter-add.
    (
        "polyadd bool, unbroadcastable shorter",
        lambda: jnp.polyadd(jnp.zeros((1, 5, 4), bool), jnp.ones(4, bool)),
        ValueError,
    ),
    # interp with bfloat16 xp interpolates (JAX's np.finfo fails: rule interp-narrow-xp-finfo).
    (
        "interp bfloat16 xp",
        lambda: jnp.interp(0.5, jnp.array([0.0, 1.0], "bfloat16"), jnp.array([0.0, 1.0])),
        0.5,
    ),
    # pad checks the mode before the widths' signs, as JAX.
    (
        "pad unknown mode before negative widths",
        lambda: jnp.pad(jnp.zeros(2, "int8"), jnp.array([3, -5], "int8"), mode="clip"),
        ValueError,
    ),
    ("pad negative widths", lambda: jnp.pad(jnp.zeros(2), (1, -1)), ValueError),
]

_TYPES = [
    # ihfft of float8 in float32 (JAX refuses it: rule rfft-narrow-float-input).
    (
        "ihfft of float8",
        lambda: jnp.fft.ihfft(jnp.ones(2, "float8_e5m2")),
        [1 + 0j, 0j],
        "complex64",
        False,
    ),
    # hypot keeps the legs' promoted weak type only for a rank-0 result, as JAX.
    (
        "hypot int32 scalar leg and a Python float under vmap is weak",
        lambda: stablax.vmap(lambda x: jnp.hypot(x, 1.0))(jnp.zeros(0, "int32")),
        [],
        "float32",
        True,
    ),
    (
        "hypot int32 scalar and a Python float",
        lambda: jnp.hypot(jnp.array(3), 4.0),
        5.0,
        "float32",
        True,
    ),
    (
        "hypot int32 vector and a Python float is strong",
        lambda: jnp.hypot(jnp.array([3, 0]), 4.0),
        [5.0, 4.0],
        "float32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2002_g_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_g_finding(name, call, expected):
    check_finding(call, expected)
