"""Reductions, statistics, running totals, signal helpers, polynomials and windows of
stablax.numpy against NumPy, eagerly and under jit; derivatives and batching of a set of them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp
from stablax.test_util import check_grads


def _f32(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _i32(seed, *shape):
    return np.random.default_rng(seed).integers(-5, 6, shape).astype(np.int32)


def _with_nans(seed, *shape):
    x = _f32(seed, *shape)
    x[np.random.default_rng(seed + 100).random(shape) < 0.3] = np.nan
    return x


_X = _f32(0, 3, 4, 5)
_NAN = _with_nans(1, 3, 4, 5)
_NAN[1, 2, :] = np.nan  # one lane entirely NaN
_Q = np.array([0.0, 0.1, 0.5, 0.77, 1.0], np.float32)
_METHODS = ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf"]

# (id, function of a numpy-like module and arrays, arrays, tolerance)
CASES = [
    ("sum-where", lambda m, x: m.sum(x, axis=1, where=x > 0), [_X], 1e-5),
    ("sum-initial", lambda m, x: m.sum(x, axis=(0, 2), initial=2.0, keepdims=True), [_X], 1e-5),
    ("prod-where", lambda m, x: m.prod(x, axis=-1, where=x > 0, initial=1.5), [_X], 1e-5),
    ("max-where", lambda m, x: m.max(x, axis=1, where=x < 0.5, initial=-9.0), [_X], 0),
    ("min-initial", lambda m, x: m.min(x, initial=-0.5), [_X], 0),
    ("max-int", lambda m, x: m.max(x, axis=0, keepdims=True), [_i32(2, 3, 4)], 0),
    ("mean-where", lambda m, x: m.mean(x, axis=2, where=x > -0.5), [_X], 1e-5),
    ("var-where", lambda m, x: m.var(x, axis=0, where=x > -0.5, ddof=1), [_X], 1e-5),
    ("std-correction", lambda m, x: m.std(x, axis=-1, correction=1), [_X], 1e-5),
    ("var-complex", lambda m, x: m.var(x + 1j * x[::-1]), [_f32(3, 6).astype(np.complex64)], 1e-5),
    ("mean-f16", lambda m, x: m.mean(x, axis=0), [_f32(4, 64, 3).astype(np.float16)], 2e-3),
    ("any-where", lambda m, x: m.any(x > 1, axis=1, where=x < 1.5), [_X], 0),
    ("all-keepdims", lambda m, x: m.all(x > -3, axis=(1, 2), keepdims=True), [_X], 0),
    ("argmax", lambda m, x: m.argmax(x), [_X], 0),
    ("argmax-axis", lambda m, x: m.argmax(x, axis=1, keepdims=True), [_X], 0),
    ("argmin-axis", lambda m, x: m.argmin(x, axis=-1), [_i32(5, 4, 6)], 0),
    ("argmax-nan", lambda m, x: m.argmax(x, axis=-1), [_NAN], 0),
    ("ptp", lambda m, x: m.ptp(x, axis=(0, 1)), [_X], 0),
    ("ptp-int", lambda m, x: m.ptp(x, axis=1, keepdims=True), [_i32(6, 3, 4)], 0),
    ("count_nonzero", lambda m, x: m.count_nonzero(x, axis=0), [_i32(7, 3, 4)], 0),
    ("count_nonzero-all", lambda m, x: m.count_nonzero(x), [_i32(8, 3, 4)], 0),
    ("nansum", lambda m, x: m.nansum(x, axis=2), [_NAN], 1e-5),
    ("nanprod", lambda m, x: m.nanprod(x, axis=0), [_NAN], 1e-5),
    ("nanmax", lambda m, x: m.nanmax(x, axis=2), [_NAN], 0),
    ("nanmin", lambda m, x: m.nanmin(x, axis=(0, 2)), [_NAN], 0),
    ("nanmean", lambda m, x: m.nanmean(x, axis=-1), [_NAN], 1e-5),
    ("nanvar", lambda m, x: m.nanvar(x, axis=1, ddof=1), [_NAN], 1e-5),
    ("nanstd", lambda m, x: m.nanstd(x, axis=2, keepdims=True), [_NAN], 1e-5),
    ("nanargmax", lambda m, x: m.nanargmax(x, axis=1), [_NAN], 0),
    ("nanargmin", lambda m, x: m.nanargmin(x), [_NAN], 0),
    ("median", lambda m, x: m.median(x, axis=1), [_X], 1e-6),
    ("median-all", lambda m, x: m.median(x), [_X], 1e-6),
    ("median-int", lambda m, x: m.median(x, axis=0, keepdims=True), [_i32(9, 5, 3)], 1e-6),
    ("median-nan", lambda m, x: m.median(x, axis=2), [_NAN], 1e-6),
    ("nanmedian", lambda m, x: m.nanmedian(x, axis=2), [_NAN], 1e-6),
    # q is an array: jnp (like JAX) refuses a list there.
    (
        "percentile",
        lambda m, x: m.percentile(x, np.array([10.0, 50.0, 95.0]), axis=(0, 2)),
        [_X],
        1e-5,
    ),
    ("nanpercentile", lambda m, x: m.nanpercentile(x, 40.0, axis=0), [_NAN], 1e-5),
    ("nanquantile", lambda m, x: m.nanquantile(x, _Q, axis=1, keepdims=True), [_NAN], 1e-5),
    *[
        (
            f"quantile-{method}",
            lambda m, x, method=method: m.quantile(x, _Q, axis=-1, method=method),
            [_X],
            1e-5,
        )
        for method in _METHODS
    ],
    ("average", lambda m, x: m.average(x, axis=1), [_X], 1e-5),
    (
        "average-weights",
        lambda m, x, w: m.average(x, axis=1, weights=w),
        [_X, _f32(10, 4) ** 2],
        1e-5,
    ),
    (
        "average-returned",
        lambda m, x, w: m.average(x, weights=w, returned=True),
        [_X, np.abs(_X) + 0.1],
        1e-5,
    ),
    ("cov", lambda m, x: m.cov(x), [_f32(11, 3, 7)], 1e-5),
    (
        "cov-rowvar-ddof",
        lambda m, x, y: m.cov(x, y, rowvar=False, ddof=0),
        [_f32(12, 7, 2), _f32(13, 7)],
        1e-5,
    ),
    (
        "cov-weights",
        lambda m, x, f, a: m.cov(x, fweights=f, aweights=a),
        [_f32(14, 2, 5), np.array([1, 2, 1, 3, 1]), np.abs(_f32(15, 5)) + 0.1],
        1e-5,
    ),
    ("cov-1d", lambda m, x: m.cov(x), [_f32(16, 6)], 1e-5),
    ("corrcoef", lambda m, x: m.corrcoef(x), [_f32(17, 4, 6)], 1e-5),
    ("cumsum", lambda m, x: m.cumsum(x, axis=1), [_X], 1e-5),
    ("cumsum-flat", lambda m, x: m.cumsum(x), [_i32(18, 3, 4)], 0),
    ("cumprod", lambda m, x: m.cumprod(x, axis=-1), [_X], 1e-5),
    ("cumsum-bool", lambda m, x: m.cumsum(x > 0, axis=0), [_X], 0),
    ("nancumsum", lambda m, x: m.nancumsum(x, axis=2), [_NAN], 1e-5),
    ("nancumprod", lambda m, x: m.nancumprod(x, axis=0), [_NAN], 1e-5),
    ("cumulative_sum", lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True), [_X], 1e-5),
    ("cumulative_prod", lambda m, x: m.cumulative_prod(x), [_f32(19, 6)], 1e-5),
    ("diff", lambda m, x: m.diff(x), [_X], 1e-6),
    ("diff-n2-axis0", lambda m, x: m.diff(x, n=2, axis=0), [_X], 1e-6),
    ("diff-prepend", lambda m, x: m.diff(x, axis=1, prepend=0.5, append=x[:, :1]), [_X], 1e-6),
    ("diff-bool", lambda m, x: m.diff(x > 0), [_X], 0),
    (
        "ediff1d",
        lambda m, x: m.ediff1d(x, to_begin=np.array([7, 8]), to_end=-1),
        [_i32(20, 3, 4)],
        0,
    ),
    ("gradient", lambda m, x: m.gradient(x), [_X], 1e-5),
    ("gradient-spacing", lambda m, x: m.gradient(x, 0.5, axis=1), [_X], 1e-5),
    (
        "gradient-coords",
        lambda m, x: m.gradient(x, np.array([0.0, 0.5, 2, 3.5]), axis=1),
        [_X],
        1e-5,
    ),
    ("trapezoid", lambda m, y: m.trapezoid(y), [_X], 1e-5),
    ("trapezoid-x", lambda m, y: m.trapezoid(y, np.array([0.0, 1, 3, 4]), axis=1), [_X], 1e-5),
    ("trapezoid-dx", lambda m, y: m.trapezoid(y, dx=0.25, axis=0), [_X], 1e-5),
    ("unwrap", lambda m, p: m.unwrap(p), [np.mod(np.cumsum(_f32(21, 30) * 3), 2 * np.pi)], 1e-4),
    ("unwrap-period", lambda m, p: m.unwrap(p, period=4, axis=0), [_f32(22, 9, 2) * 5], 1e-4),
    ("convolve", lambda m, a, v: m.convolve(a, v), [_f32(23, 7), _f32(24, 3)], 1e-5),
    (
        "convolve-same-swap",
        lambda m, a, v: m.convolve(a, v, "same"),
        [_f32(25, 3), _f32(26, 6)],
        1e-5,
    ),
    ("correlate", lambda m, a, v: m.correlate(a, v), [_f32(27, 7), _f32(28, 3)], 1e-5),
    (
        "correlate-full-complex",
        lambda m, a, v: m.correlate(a, v, "full"),
        [
            (_f32(29, 4) + 1j * _f32(30, 4)).astype(np.complex64),
            (_f32(31, 6) - 1j * _f32(32, 6)).astype(np.complex64),
        ],
        1e-5,
    ),
    (
        "interp",
        lambda m, x, xp, fp: m.interp(x, xp, fp),
        [_f32(33, 12) * 3, np.array([-2.0, -1, 0.5, 1, 2.5]), _f32(34, 5)],
        1e-5,
    ),
    (
        "interp-left-right",
        lambda m, x, xp, fp: m.interp(x, xp, fp, left=-7.0, right=7.0),
        [_f32(35, 3, 4) * 3, np.array([-2.0, -1, 0.5, 1, 2.5]), _f32(36, 5)],
        1e-5,
    ),
    (
        "interp-period",
        lambda m, x, xp, fp: m.interp(x, xp, fp, period=360),
        [
            np.array([-180.0, -170, -185, 185, -10, -5, 0, 365]),
            np.array([190.0, -190, 350, -350]),
            np.array([5.0, 10, 3, 4]),
        ],
        1e-5,
    ),
    ("select", lambda m, x: m.select([x < -0.5, x > 0.5], [x, x * 10], default=-1), [_X], 0),
    ("polyval", lambda m, p, x: m.polyval(p, x), [_f32(37, 5), _f32(38, 3, 2)], 1e-5),
    ("polyadd", lambda m, a, b: m.polyadd(a, b), [_f32(39, 5), _f32(40, 3)], 1e-6),
    ("polysub", lambda m, a, b: m.polysub(a, b), [_f32(41, 2), _f32(42, 4)], 1e-6),
    ("polymul", lambda m, a, b: m.polymul(a, b), [_f32(43, 4), _f32(44, 3)], 1e-5),
    ("polyder", lambda m, p: m.polyder(p, 2), [_f32(45, 6)], 1e-5),
    ("polyint", lambda m, p: m.polyint(p, 2, np.array([1.0, -2.0])), [_f32(46, 4)], 1e-5),
    ("poly", lambda m, r: m.poly(r), [_f32(47, 4)], 1e-5),
    ("vander", lambda m, x: m.vander(x, 4), [_i32(48, 5)], 0),
    ("vander-increasing", lambda m, x: m.vander(x, increasing=True), [_f32(49, 4)], 1e-5),
    ("polyfit", lambda m, x, y: m.polyfit(x, y, 2), [np.linspace(0, 1, 12), _f32(50, 12)], 1e-3),
]
_PARAMS = [pytest.param(fn, args, tol, id=name) for name, fn, args, tol in CASES]


def _check(got, want, tol):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, tol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want.astype(got.dtype), rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("fn, args, tol", _PARAMS)
def test_against_numpy(fn, args, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(np, *args)
        arrays = [jnp.asarray(a) for a in args]
        _check(fn(jnp, *arrays), want, tol)
        _check(stablax.jit(lambda *xs: fn(jnp, *xs))(*arrays), want, tol)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("size", [0, 1, 2, 7, 10])
def test_windows(name, size):
    _check(getattr(jnp, name)(size), getattr(np, name)(size), 1e-6)


@pytest.mark.parametrize("size, beta", [(0, 1.0), (1, 2.0), (6, 0.0), (9, 5.5)])
def test_kaiser(size, beta):
    _check(jnp.kaiser(size, beta), np.kaiser(size, beta), 1e-6)


def test_roots_and_polyfit_extras():
    _check(
        np.sort_complex(np.asarray(jnp.roots(jnp.array([0.0, 1, -6, 11, -6])))),
        np.array([1, 2, 3], np.complex64),
        1e-4,
    )
    x, y = np.linspace(0, 1, 10), np.sin(3 * np.linspace(0, 1, 10))
    coefficients, covariance = jnp.polyfit(x, y, 2, cov=True)
    want_c, want_cov = np.polyfit(x, y, 2, cov=True)
    _check(coefficients, want_c, 1e-3)
    _check(covariance, want_cov, 1e-3)
    quotient, remainder = jnp.polydiv(jnp.array([1.0, -3, 2, 5]), jnp.array([1.0, -1]))
    want_q, want_r = np.polydiv([1.0, -3, 2, 5], [1.0, -1])
    _check(quotient, want_q, 1e-6)
    _check(remainder[-1:], want_r, 1e-6)  # JAX keeps the remainder's leading zeros


def test_reduction_errors():
    with pytest.raises(ValueError, match="initial"):
        jnp.max(jnp.ones(3), where=jnp.ones(3, bool))
    with pytest.raises(ValueError, match="zero-size"):
        jnp.min(jnp.ones((0, 2)), axis=0)
    with pytest.raises(ValueError, match="empty"):
        jnp.argmax(jnp.ones(0))
    with pytest.raises(ValueError, match="method"):
        jnp.quantile(jnp.ones(3), 0.5, method="hazen")
    with pytest.raises(ValueError, match="rank 2"):
        jnp.cumulative_sum(jnp.ones((2, 2)))
    with pytest.raises(NotImplementedError, match="out"):
        jnp.sum(jnp.ones(2), out=jnp.ones(()))


@settings(max_examples=20, deadline=None)
@given(
    st.integers(1, 9),
    # float32 q without subnormals: XLA:CPU flushes them to zero (as JAX does), NumPy does not.
    st.lists(st.floats(0, 1, width=32, allow_subnormal=False), min_size=1, max_size=4),
    st.sampled_from(_METHODS),
)
def test_quantile_hypothesis(n, qs, method):
    a = np.random.default_rng(n).standard_normal((2, n)).astype(np.float64)
    q = np.asarray(qs)
    got = jnp.quantile(a.astype(np.float32), q.astype(np.float32), axis=1, method=method)
    want = np.quantile(a.astype(np.float32), q.astype(np.float32), axis=1, method=method)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


# Derivatives (x64: central differences need the precision).
GRAD_CASES = [
    ("median", lambda x: jnp.median(x, axis=1)),
    ("percentile", lambda x: jnp.percentile(x, 30.0, axis=0)),
    ("nanmean", lambda x: jnp.nanmean(x, axis=1)),
    ("logaddexp", lambda x: jnp.logaddexp(x, x[::-1] * 0.5)),
    ("hypot", lambda x: jnp.hypot(x, 2.0)),
    ("cumsum", lambda x: jnp.cumsum(x, axis=1)),
    ("cumprod", lambda x: jnp.cumprod(x, axis=0)),
    ("convolve", lambda x: jnp.convolve(x[0], x[1, :2])),
    ("interp", lambda x: jnp.interp(x[0] * 0.5, jnp.arange(4.0) - 1.5, x[1])),
    ("polyval", lambda x: jnp.polyval(x[0], x[1])),
    ("average", lambda x: jnp.average(x, axis=0, weights=jnp.abs(x) + 1.0)),
    ("sinc", lambda x: jnp.sinc(x)),
    ("i0", lambda x: jnp.i0(x * 6)),
    ("cov", lambda x: jnp.cov(x)),
    ("var-where", lambda x: jnp.var(x, axis=1, where=x > -1.0)),
    ("trapezoid", lambda x: jnp.trapezoid(x, axis=0)),
    ("gradient", lambda x: jnp.gradient(x, axis=1)),
]


@pytest.mark.parametrize("fn", [c[1] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_grads(x64, fn):
    x = np.random.default_rng(0).standard_normal((3, 4))
    check_grads(fn, (x,), order=1, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


def test_sinc_second_derivative_at_zero():
    value = stablax.grad(stablax.grad(jnp.sinc))(0.0)
    np.testing.assert_allclose(float(value), -(np.pi**2) / 3, rtol=1e-5)


VMAP_CASES = [
    ("median", lambda x: jnp.median(x, axis=0)),
    ("quantile", lambda x: jnp.quantile(x, jnp.array([0.2, 0.9]))),
    ("nanmax", lambda x: jnp.nanmax(jnp.where(x > 1, jnp.nan, x), axis=1)),
    ("argmax", lambda x: jnp.argmax(x, axis=1)),
    ("cumsum", lambda x: jnp.cumsum(x)),
    ("convolve", lambda x: jnp.convolve(x[0], x[1, :2], "same")),
    ("interp", lambda x: jnp.interp(x[0], jnp.arange(4.0) - 1.5, x[1])),
    ("cov", lambda x: jnp.cov(x)),
    ("logaddexp", lambda x: jnp.logaddexp(x, 0.5)),
    ("frexp", lambda x: jnp.frexp(x)),
    ("gcd", lambda x: jnp.gcd(jnp.round(x * 9).astype(jnp.int32), 12)),
    ("polyval", lambda x: jnp.polyval(x[0], x[1])),
    ("diff", lambda x: jnp.diff(x, prepend=0.0)),
]


@pytest.mark.parametrize("fn", [c[1] for c in VMAP_CASES], ids=[c[0] for c in VMAP_CASES])
def test_vmap_matches_loop(fn):
    xs = np.random.default_rng(1).standard_normal((3, 2, 4)).astype(np.float32)
    got = stablax.vmap(fn)(jnp.asarray(xs))
    loop = [fn(jnp.asarray(x)) for x in xs]
    if isinstance(got, tuple):
        for i, part in enumerate(got):
            _check(part, np.stack([np.asarray(p[i]) for p in loop]), 1e-6)
    else:
        _check(got, np.stack([np.asarray(p) for p in loop]), 1e-6)


def test_methods():
    x = jnp.asarray(_X)
    _check(x.argmax(axis=1), _X.argmax(axis=1), 0)
    _check(x.argmin(), _X.argmin(), 0)
    _check(x.ptp(axis=0), np.ptp(_X, axis=0), 0)
    _check(x.cumsum(axis=2), _X.cumsum(axis=2), 1e-5)
    _check(x.cumprod(), _X.cumprod(), 1e-5)
    _check(x.sum(where=x > 0), _X.sum(where=_X > 0), 1e-5)


def test_float64_under_x64(x64):
    x = np.random.default_rng(3).standard_normal((4, 5))
    assert jnp.median(x).dtype == np.float64
    np.testing.assert_allclose(
        np.asarray(jnp.quantile(x, 0.3, axis=1)), np.quantile(x, 0.3, axis=1), rtol=1e-12
    )
    np.testing.assert_allclose(np.asarray(jnp.i0(x * 20)), np.i0(x * 20), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jnp.cov(x)), np.cov(x), rtol=1e-12)


@pytest.mark.parametrize("size", [7, 100, 4099])
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_arg_extrema_pick_the_first_nan_and_the_first_tie(size, fn):
    """Several NaNs and many ties at sizes where XLA may vectorise the reduction: NumPy's index,
    eagerly, under jit and along a vmapped axis."""
    rng = np.random.default_rng(size)
    x = np.round(rng.random((6, size)) * 3).astype(np.float32)  # few values: ties everywhere
    for row, count in enumerate([0, 1, 2, 5, size // 3, size]):
        x[row, rng.choice(size, count, replace=False)] = np.nan
    expected = getattr(np, fn)(x, axis=1)
    ours = getattr(jnp, fn)
    np.testing.assert_array_equal(ours(x, axis=1), expected)
    np.testing.assert_array_equal(stablax.jit(ours, static_argnames="axis")(x, axis=1), expected)
    np.testing.assert_array_equal(stablax.vmap(ours)(x), expected)


_X4 = np.arange(4.0, dtype=np.float32)


@pytest.mark.parametrize(
    "name, axis, expected",  # JAX 0.10.2's values: a 0-d integer array is an axis, as an int
    [
        ("sum", np.array(0), 6.0),
        ("sum", (np.array(0),), 6.0),
        ("mean", jnp.array(0), 1.5),
        ("var", np.array(0), 1.25),
        ("std", np.array(0), 1.118034),
        ("max", np.array(0), 3.0),
        ("prod", np.int64(0), 0.0),
        ("ptp", np.array(0), 3.0),
        ("average", np.array(0), 1.5),
        ("argmax", np.array(0), 3),
        ("nanargmin", jnp.array(0), 0),
        ("count_nonzero", np.array(0), 3),
    ],
)
def test_reductions_take_a_zero_dimensional_integer_array_axis(name, axis, expected):
    _check(getattr(jnp, name)(_X4, axis=axis), expected, 1e-6)


def test_flip_roll_and_cumulative_sum_take_a_zero_dimensional_axis():
    x = jnp.arange(6.0).reshape(2, 3)  # JAX 0.10.2's values for axis=np.array(1)
    _check(jnp.flip(x, axis=np.array(1)), [[2.0, 1, 0], [5, 4, 3]], 0)
    _check(jnp.roll(x, 1, axis=jnp.array(1)), [[2.0, 0, 1], [5, 3, 4]], 0)
    _check(jnp.cumulative_sum(x, axis=np.array(1)), [[0.0, 1, 3], [3, 7, 12]], 0)


@pytest.mark.parametrize(
    "make, expected",  # JAX 0.10.2's values: ddof and correction are operands, traced under jit
    [
        (lambda: stablax.jit(lambda c: jnp.var(jnp.arange(5.0), ddof=c))(1), 2.5),
        (lambda: stablax.jit(lambda c: jnp.std(jnp.arange(5.0), correction=c))(1), 1.5811388),
        (lambda: stablax.jit(lambda c: jnp.nanvar(jnp.arange(5.0), ddof=c))(1.5), 2.857143),
        (lambda: stablax.jit(lambda c: jnp.var(jnp.arange(5.0), ddof=c))(5), np.nan),
        (lambda: jnp.var(jnp.arange(5.0), ddof=np.array(2)), 3.3333333),
        (lambda: stablax.vmap(lambda c: jnp.var(jnp.arange(5.0), ddof=c))(jnp.array([0, 1])),
         [2.0, 2.5]),
        (lambda: stablax.grad(lambda c: jnp.var(jnp.arange(6.0).reshape(2, 3), ddof=c))(1.0),
         0.7),
        (lambda: jnp.var(jnp.arange(6.0).reshape(2, 3), axis=1, ddof=jnp.array([0, 1])),
         [0.6666667, 1.0]),
        (lambda: stablax.jit(
            lambda c: jnp.var(jnp.arange(5), ddof=c, dtype=jnp.int32))(1), 2.0),
    ],
)  # fmt: skip
def test_variance_ddof_is_an_operand(make, expected):
    _check(make(), expected, 1e-6)


def test_variance_array_ddof_of_another_rank_is_refused():
    # JAX 0.10.2 refuses an array ddof of another rank than the result (TypeError from its lax
    # division; NumPy refuses any array ddof), and NumPy refuses None.
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    with pytest.raises(TypeError, match="ddof of shape"):
        jnp.var(x, axis=1, keepdims=True, ddof=np.array([0, 1]))
    _check(jnp.var(x, ddof=np.array([[1], [2]])), [[3.5], [4.375]], 1e-6)  # JAX's value
    with pytest.raises(TypeError, match="ddof must be a number, got None"):
        jnp.var(x, ddof=None)


@pytest.mark.parametrize("name", ["std", "nanstd", "var", "nanvar"])
def test_variance_refuses_a_real_dtype_for_complex_values_first(name):
    # JAX 0.10.2 raises ValueError for all four (std checks for an inexact dtype first; the
    # others, nanstd included, refuse a real dtype for complex values before nanstd's TypeError
    # for an integer dtype); a real input keeps nanstd's TypeError.
    z = np.array([-1j, 2.0], np.complex64)
    for dtype in ("uint16", "float32"):
        with pytest.raises(ValueError, match="variance of complex values|must be inexact"):
            stablax.jit(lambda a, d=dtype: getattr(jnp, name)(a, dtype=d, ddof=1))(z)
    with pytest.raises(TypeError, match="dtype must be inexact"):
        jnp.nanstd(np.array([1.0, 2.0], np.float32), dtype="uint16")


def test_kaiser_broadcasts_an_array_beta():
    # JAX 0.10.2: [[0.4386764, 1.0, 0.4386764]] for beta of shape (1, 1)
    _check(jnp.kaiser(3, np.array([[2.0]])), [[0.4386764, 1.0, 0.4386764]], 1e-5)
    _check(
        stablax.jit(lambda b: jnp.kaiser(3, b))(np.array([[2.0]])), np.kaiser(3, 2.0)[None], 1e-5
    )


def test_polymul_trims_only_longer_polynomials_so_single_coefficients_trace():
    # JAX 0.10.2 trims leading zeros only when a polynomial has more than one coefficient, so
    # jit of single coefficients gives [0.] here; longer ones need concrete values in both.
    def f(a, b):
        return jnp.polymul(a, b, trim_leading_zeros=True)

    one, zero = np.array([4], np.uint8), np.array([0], np.uint8)
    _check(stablax.jit(f)(one, zero), [0.0], 0)
    _check(f(np.array([0, 4], np.uint8), one), [16.0], 0)
    with pytest.raises(stablax.errors.ConcretizationTypeError):
        stablax.jit(f)(np.array([0, 4], np.uint8), one)


@pytest.mark.parametrize("jit", [False, True])
def test_diff_checks_the_axis_before_a_list_prepend_or_append(jit):
    # JAX 0.10.2's order: the axis (ValueError), then prepend/append refused as lists (TypeError)
    x = np.ones((1, 5), np.float32)

    def call(**kwargs):
        f = lambda a: jnp.diff(a, **kwargs)  # noqa: E731
        return (stablax.jit(f) if jit else f)(x)

    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        call(axis=2, prepend=[4])
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        call(axis=2, append=[4])
    with pytest.raises(TypeError, match="got <class 'list'> at position 0"):
        call(axis=1, prepend=[4])
    _check(call(axis=1, prepend=np.array([[4.0]])), [[-3.0, 0, 0, 0, 0]], 0)
