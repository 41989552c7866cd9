"""Complex elementary functions at infinities, NaNs and signed zeros against NumPy (C99 Annex G),
except where the Array API standard specifies otherwise or leaves a sign unspecified."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import stablax.numpy as jnp

_VALUES = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, math.inf, -math.inf, math.nan]
_GRID = np.array([complex(a, b) for a, b in itertools.product(_VALUES, _VALUES)])

_INF, _NAN = math.inf, math.nan
# (function, input, expected) where NumPy's value is not the standard's (a list, not a dict:
# complex keys with signed zeros or NaNs would collide).
_STANDARD = [
    # expm1: the Array API's special cases (NumPy computes exp(z) - 1 naively).
    ("expm1", complex(-0.0, 0.0), complex(0.0, 0.0)),
    ("expm1", complex(-0.0, -0.0), complex(0.0, -0.0)),
    ("expm1", complex(_INF, 0.0), complex(_INF, 0.0)),
    ("expm1", complex(_INF, -0.0), complex(_INF, -0.0)),
    ("expm1", complex(_INF, _INF), complex(_INF, _NAN)),
    ("expm1", complex(_INF, -_INF), complex(_INF, _NAN)),
    ("expm1", complex(_INF, _NAN), complex(_INF, _NAN)),
    ("expm1", complex(-_INF, _INF), complex(-1.0, 0.0)),
    ("expm1", complex(-_INF, -_INF), complex(-1.0, -0.0)),
    ("expm1", complex(-_INF, _NAN), complex(-1.0, 0.0)),
    ("expm1", complex(_NAN, 0.0), complex(_NAN, 0.0)),
    ("expm1", complex(_NAN, -0.0), complex(_NAN, -0.0)),
    # tanh(+-inf + ib) = +-1 + 0j with b's sign (the standard; C99 has 0 sin(2b)).
    ("tanh", complex(_INF, 2.5), complex(1.0, 0.0)),
    ("tanh", complex(_INF, -2.5), complex(1.0, -0.0)),
    ("tanh", complex(-_INF, 2.5), complex(-1.0, 0.0)),
    ("tanh", complex(-_INF, -2.5), complex(-1.0, -0.0)),
]
# (function, input) whose real or imaginary sign the standard leaves unspecified.
_UNSPECIFIED_SIGN = [
    ("sinh", complex(-_INF, _INF)),
    ("sinh", complex(-_INF, -_INF)),
    ("sinh", complex(-_INF, _NAN)),
    ("cosh", complex(0.0, -_INF)),
    ("cosh", complex(-0.0, _INF)),
    ("cosh", complex(-0.0, _NAN)),
]
_FUNCTIONS = [
    "exp", "expm1", "log", "log1p", "sqrt", "sinh", "cosh", "tanh",
    "arccos", "arccosh", "arcsinh", "arctanh", "log2", "log10",
]  # fmt: skip


def _key(z: complex) -> tuple[str, str]:
    # Signed zeros and NaNs compare equal (or unequal) as dict keys; their reprs do not.
    return repr(float(z.real)), repr(float(z.imag))


def _same(x: float, y: float, sign: bool) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isfinite(x) and x != 0:
        return math.isclose(x, y, rel_tol=1e-12)
    if not sign:
        return abs(x) == abs(y)
    return x == y and math.copysign(1, x) == math.copysign(1, y)


@pytest.mark.parametrize("name", _FUNCTIONS)
def test_special_values_follow_c99_and_the_array_api(name, x64):
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(_GRID)
    got = np.asarray(getattr(jnp, name)(jnp.asarray(_GRID)))
    wrong = []
    standard = {(f, _key(z)): v for f, z, v in _STANDARD}
    unspecified = {(f, _key(z)) for f, z in _UNSPECIFIED_SIGN}
    for z, want, have in zip(_GRID, expected, got, strict=True):
        want = standard.get((name, _key(z)), want)
        sign = (name, _key(z)) not in unspecified
        if not (_same(want.real, have.real, sign) and _same(want.imag, have.imag, sign)):
            wrong.append(f"{name}({z}) = {have}, expected {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", ["exp", "sqrt", "log", "tanh", "arccosh"])
def test_special_values_in_complex64(name):
    finite = np.array([complex(a, b) for a, b in itertools.product([0.5, -2.0], [1.0, -0.0])])
    special = np.array([complex(_INF, _NAN), complex(-_INF, _INF), complex(_NAN, _INF)])
    z = np.concatenate([finite, special]).astype(np.complex64)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(z)
    got = np.asarray(getattr(jnp, name)(jnp.asarray(z)))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got[:4], expected[:4], rtol=1e-6)
    np.testing.assert_array_equal(np.isnan(got[4:]), np.isnan(expected[4:]))
    np.testing.assert_array_equal(np.isinf(got[4:]), np.isinf(expected[4:]))


def test_floor_divide_with_one_infinite_operand_follows_the_array_api():
    x = jnp.array([np.inf, -np.inf, np.inf, 1.0, -1.0, 1.0, 3.0])
    y = jnp.array([2.0, 2.0, -2.0, -np.inf, np.inf, np.inf, 2.0])
    out = np.asarray(jnp.floor_divide(x, y))
    np.testing.assert_array_equal(out, [np.inf, -np.inf, -np.inf, -0.0, -0.0, 0.0, 1.0])
    assert list(np.signbit(out[3:6])) == [True, True, False]


@pytest.mark.parametrize(
    "name, expected",  # JAX 0.10.2's values (NumPy's too): each part over the real log(base)
    [("log10", [complex(_INF, 1.3643764), complex(_INF, 0.0)]),
     ("log2", [complex(_INF, 4.53236), complex(_INF, 0.0)])],
)  # fmt: skip
def test_log_of_a_base_at_infinities(name, expected):
    z = jnp.array([complex(-_INF, 0.0), complex(_INF, 1.0)], jnp.complex64)
    out = np.asarray(getattr(jnp, name)(z))
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(out.real, [_INF, _INF])
    np.testing.assert_allclose(out.imag, np.imag(expected), rtol=1e-6)
