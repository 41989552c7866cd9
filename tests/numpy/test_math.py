"""Elementwise math of stablax.numpy against NumPy, eagerly and under jit, with edge values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp

_EDGES = np.array([0.0, -0.0, 1.0, -1.5, 2.5, -3.5, 0.5, np.inf, -np.inf, np.nan], np.float32)
_EDGES_B = np.array([1.0, -2.0, 0.0, -0.0, np.inf, 3.0, np.nan, -np.inf, 0.5, 1.0], np.float32)


def _floats(seed, shape=(10,), dtype=np.float32, scale=3.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def _complex(seed, shape=(10,)):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def _ints(seed, shape=(10,), dtype=np.int32, low=-20, high=21):
    return np.random.default_rng(seed).integers(low, high, shape).astype(dtype)


# (id, stablax function, NumPy reference, argument values, tolerance)
CASES = [
    ("fabs", jnp.fabs, np.fabs, [_EDGES], 0),
    ("signbit", jnp.signbit, np.signbit, [_EDGES], 0),
    ("signbit-int", jnp.signbit, np.signbit, [_ints(0)], 0),
    ("copysign", jnp.copysign, np.copysign, [_EDGES, _EDGES_B[::-1]], 0),
    ("heaviside", jnp.heaviside, np.heaviside, [_EDGES, _EDGES_B], 0),
    ("isposinf", jnp.isposinf, np.isposinf, [_EDGES], 0),
    ("isneginf", jnp.isneginf, np.isneginf, [_EDGES], 0),
    ("isreal", jnp.isreal, np.isreal, [_complex(0) * (np.arange(10) % 2)], 0),
    ("iscomplex", jnp.iscomplex, np.iscomplex, [_complex(1) * (np.arange(10) % 2)], 0),
    ("angle", jnp.angle, np.angle, [_complex(2)], 1e-6),
    ("angle-real", jnp.angle, np.angle, [_EDGES[:-1]], 1e-6),
    (
        "angle-deg",
        lambda z: jnp.angle(z, deg=True),
        lambda z: np.angle(z, deg=True),
        [_complex(3)],
        1e-5,
    ),
    ("nan_to_num", jnp.nan_to_num, np.nan_to_num, [_EDGES], 0),
    (
        "nan_to_num-args",
        lambda x: jnp.nan_to_num(x, nan=7.0, posinf=9.0, neginf=-9.0),
        lambda x: np.nan_to_num(x, nan=7.0, posinf=9.0, neginf=-9.0),
        [_EDGES],
        0,
    ),
    (
        "nan_to_num-complex",
        jnp.nan_to_num,
        np.nan_to_num,
        [np.array([complex(np.nan, np.inf), 1 + 2j], np.complex64)],
        0,
    ),
    ("rint", jnp.rint, np.rint, [np.array([0.5, 1.5, 2.5, -0.5, -2.5, 3.7], np.float32)], 0),
    ("modf", jnp.modf, np.modf, [_EDGES], 0),
    ("frexp", jnp.frexp, np.frexp, [np.concatenate([_EDGES, _floats(4) * 1e5])], 0),
    ("frexp-subnormal", jnp.frexp, np.frexp, [np.array([3e-39, -1e-45], np.float32)], 0),
    ("frexp-f16", jnp.frexp, np.frexp, [_floats(5, dtype=np.float16)], 0),
    ("ldexp", jnp.ldexp, np.ldexp, [_EDGES, _ints(6, low=-10, high=10)], 0),
    (
        "ldexp-large",
        jnp.ldexp,
        np.ldexp,
        [np.full(4, 1.5, np.float32), np.array([-120, 127, 128, 300], np.int32)],
        0,
    ),
    ("spacing", jnp.spacing, np.spacing, [np.concatenate([_EDGES, _floats(7)])], 0),
    ("hypot", jnp.hypot, np.hypot, [_EDGES, _EDGES_B], 1e-6),
    (
        "hypot-big",
        jnp.hypot,
        np.hypot,
        [np.float32([3e30, 1e-30]), np.float32([4e30, 1e-30])],
        1e-6,
    ),
    (  # an infinite leg wins over a NaN one (fuzz seed 3812: stablax gave NaN)
        "hypot-nan-inf",
        jnp.hypot,
        np.hypot,
        [np.float32([np.nan, np.inf, -np.inf, np.nan]), np.float32([-np.inf, np.nan, 1, 2])],
        0,
    ),
    ("logaddexp", jnp.logaddexp, np.logaddexp, [_EDGES, _EDGES_B], 1e-6),
    ("logaddexp-wide", jnp.logaddexp, np.logaddexp, [_floats(8, scale=50), _floats(9)], 1e-6),
    ("logaddexp2", jnp.logaddexp2, np.logaddexp2, [_EDGES, _EDGES_B], 1e-6),
    ("deg2rad", jnp.deg2rad, np.deg2rad, [_EDGES], 1e-6),
    ("radians", jnp.radians, np.radians, [_ints(10)], 1e-6),
    ("rad2deg", jnp.rad2deg, np.rad2deg, [_EDGES], 1e-6),
    ("degrees", jnp.degrees, np.degrees, [_floats(11)], 1e-6),
    ("sinc", jnp.sinc, np.sinc, [np.concatenate([_EDGES, _floats(12)])], 1e-5),
    ("sinc-complex", jnp.sinc, np.sinc, [_complex(13)], 1e-5),
    ("i0", jnp.i0, scipy.special.i0, [np.concatenate([_EDGES[:7], _floats(14, scale=8)])], 2e-6),
    ("i0-large", jnp.i0, scipy.special.i0, [np.float32([14.9, 15.1, 30.0, -60.0])], 2e-6),
    ("float_power", jnp.float_power, np.float_power, [np.abs(_floats(15)), _floats(16)], 1e-5),
    ("fmax", jnp.fmax, np.fmax, [_EDGES, _EDGES_B], 0),
    ("fmin", jnp.fmin, np.fmin, [_EDGES, _EDGES_B], 0),
    ("fmax-int", jnp.fmax, np.fmax, [_ints(17), _ints(18)], 0),
    ("gcd", jnp.gcd, np.gcd, [_ints(19, low=-100, high=100), _ints(20, low=-100, high=100)], 0),
    (
        "gcd-worst",
        jnp.gcd,
        np.gcd,
        [np.int32([1836311903, 2**31 - 1, 0]), np.int32([1134903170, 2**30, 0])],
        0,
    ),
    (
        "gcd-uint8",
        jnp.gcd,
        np.gcd,
        [_ints(21, dtype=np.uint8, low=0, high=255), _ints(22, dtype=np.uint8, low=0, high=255)],
        0,
    ),
    ("lcm", jnp.lcm, np.lcm, [_ints(23), _ints(24)], 0),
    ("bitwise_count", jnp.bitwise_count, np.bitwise_count, [_ints(25, dtype=np.int8)], 0),
    (
        "bitwise_count-u16",
        jnp.bitwise_count,
        np.bitwise_count,
        [_ints(26, dtype=np.uint16, low=0, high=60000)],
        0,
    ),
    ("exp2-complex", jnp.exp2, np.exp2, [_complex(27)], 1e-5),
    ("square-bool", jnp.square, lambda x: np.square(x.astype(np.int32)), [_ints(28) > 0], 0),
    ("sign-uint", jnp.sign, np.sign, [_ints(29, dtype=np.uint8, low=0, high=3)], 0),
    (
        "fmod-bool",
        jnp.fmod,
        lambda x, y: np.fmod(x.astype(np.int32), y.astype(np.int32)),
        [np.array([True, False, True]), np.array([True, True, True])],
        0,
    ),
    ("isclose", jnp.isclose, np.isclose, [_EDGES, _EDGES_B], 0),
    (
        "isclose-nan",
        lambda a, b: jnp.isclose(a, b, equal_nan=True),
        lambda a, b: np.isclose(a, b, equal_nan=True),
        [_EDGES, _EDGES],
        0,
    ),
    (
        "isclose-tol",
        lambda a, b: jnp.isclose(a, b, rtol=0.1, atol=0.5),
        lambda a, b: np.isclose(a, b, rtol=0.1, atol=0.5),
        [_floats(30), _floats(31)],
        0,
    ),
    ("isclose-complex", jnp.isclose, np.isclose, [_complex(32), _complex(32) + 1e-7], 0),
    ("allclose", jnp.allclose, np.allclose, [_floats(33), _floats(33) * (1 + 1e-7)], 0),
    ("array_equal", jnp.array_equal, np.array_equal, [_ints(34), _ints(34)], 0),
    (
        "array_equal-nan",
        lambda a, b: jnp.array_equal(a, b, equal_nan=True),
        lambda a, b: np.array_equal(a, b, equal_nan=True),
        [_EDGES, _EDGES],
        0,
    ),
    ("array_equiv", jnp.array_equiv, np.array_equiv, [np.ones((2, 3)), np.ones(3)], 0),
    ("packbits", jnp.packbits, np.packbits, [_ints(35, (3, 11)) > 0], 0),
    (
        "packbits-axis",
        lambda a: jnp.packbits(a, axis=1, bitorder="little"),
        lambda a: np.packbits(a, axis=1, bitorder="little"),
        [_ints(36, (3, 11))],
        0,
    ),
    ("unpackbits", jnp.unpackbits, np.unpackbits, [_ints(37, (2, 3), np.uint8, 0, 256)], 0),
    (
        "unpackbits-count",
        lambda a: jnp.unpackbits(a, axis=0, count=-3, bitorder="little"),
        lambda a: np.unpackbits(a, axis=0, count=-3, bitorder="little"),
        [_ints(38, (2, 3), np.uint8, 0, 256)],
        0,
    ),
]
_PARAMS = [pytest.param(f, ref, args, tol, id=name) for name, f, ref, args, tol in CASES]


def _check(got, want, tol):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, tol)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "biu" or tol == 0:
        np.testing.assert_array_equal(
            got,
            want.astype(got.dtype) if want.dtype.kind == "f" and got.dtype.kind == "f" else want,
        )
    else:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("f, ref, args, tol", _PARAMS)
def test_against_numpy(f, ref, args, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ref(*args)
    _check(f(*[jnp.asarray(a) for a in args]), want, tol)
    _check(stablax.jit(f)(*[jnp.asarray(a) for a in args]), want, tol)


@settings(max_examples=25, deadline=None)
@given(
    # Backends may flush subnormal results to zero (XLA on CPU does), so stay clear of them.
    st.lists(
        st.floats(-1e6, 1e6, width=32).filter(lambda v: v == 0 or abs(v) > 1e-20),
        min_size=1,
        max_size=8,
    ),
    st.integers(-40, 40),
)
def test_frexp_ldexp_round_trip(values, exponent):
    x = np.asarray(values, np.float32)
    mantissa, exp = jnp.frexp(x)
    want_m, want_e = np.frexp(x)
    np.testing.assert_array_equal(np.asarray(mantissa), want_m)
    np.testing.assert_array_equal(np.asarray(exp), want_e)
    np.testing.assert_array_equal(np.asarray(jnp.ldexp(mantissa, exp)), x)
    np.testing.assert_array_equal(np.asarray(jnp.ldexp(x, exponent)), np.ldexp(x, exponent))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-(2**31) + 1, 2**31 - 1), min_size=2, max_size=6))
def test_gcd_lcm_int32(values):
    a = np.asarray(values, np.int32)
    b = a[::-1].copy()
    np.testing.assert_array_equal(np.asarray(jnp.gcd(a, b)), np.gcd(a, b))


def test_weak_scalars_stay_weak():
    assert jnp.hypot(3.0, 4.0).weak_type
    assert jnp.logaddexp(1, 2).weak_type
    assert not jnp.hypot(np.float32(3), 4.0).weak_type
    assert jnp.hypot(jnp.float16(3), 4.0).dtype == np.float16


def test_errors():
    with pytest.raises(ValueError, match="ldexp"):
        jnp.ldexp(1.0, 2.5)
    with pytest.raises(ValueError, match="gcd"):
        jnp.gcd(1.0, 2.0)
    with pytest.raises(ValueError, match="hypot"):
        jnp.hypot(1j, 2.0)
    with pytest.raises(TypeError, match="floor"):
        jnp.floor(jnp.ones(2, jnp.complex64))
    with pytest.raises(TypeError, match="fmod"):
        jnp.fmod(jnp.ones(2, jnp.complex64), 1.0)


@pytest.mark.parametrize(
    "kwargs, expected",  # JAX 0.10.2's (and NumPy's, where it broadcasts) values
    [
        ({"nan": [5.0]}, [5.0, 1.0, 3.4028235e38, -3.4028235e38]),
        ({"posinf": [7.0, 8.0, 9.0, 10.0]}, [0.0, 1.0, 9.0, -3.4028235e38]),
        ({"neginf": np.array([[1.0]])}, [[0.0, 1.0, 3.4028235e38, 1.0]]),
    ],
)
def test_nan_to_num_takes_array_like_fill_values(kwargs, expected):
    out = jnp.nan_to_num(jnp.array([np.nan, 1.0, np.inf, -np.inf]), **kwargs)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="nan_to_num"):  # JAX's class
        jnp.nan_to_num(jnp.array([np.nan]), nan=None)
