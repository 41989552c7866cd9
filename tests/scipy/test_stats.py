"""stablax.scipy.stats against scipy.stats through one case table (distribution, function,
arguments), in float32 and float64; then mode, rankdata, sem and gaussian_kde."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.stats as ss

import stablax
import stablax.numpy as jnp
from stablax import random
from stablax.scipy import stats
from stablax.test_util import check_grads

A = np.array
X = A([-2.0, -0.5, 0.3, 1.7, 4.0])  # points on the real line
P = A([0.01, 0.2, 0.5, 0.8, 0.99])  # probabilities
POS = A([0.05, 0.5, 1.3, 3.0, 8.0])  # points on the half line
UNIT = A([0.02, 0.2, 0.5, 0.75, 0.97])  # points in (0, 1)
K = A([0.0, 1.0, 2.0, 5.0, 9.0])  # counts

# (distribution, [functions], arguments): each function of the list is one case.
TABLE = [
    ("bernoulli", ["logpmf", "pmf"], (A([0.0, 1, 1, 0, 2]), 0.3)),
    ("bernoulli", ["cdf"], (A([-1.0, 0, 0.5, 1, 3]), 0.3)),
    ("bernoulli", ["ppf"], (P, 0.3)),
    ("beta", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (UNIT, 2.5, 0.7)),
    ("beta", ["logpdf", "cdf", "sf"], (A([0.5, 1.5, 2.0, 2.9, 3.5]), 3.0, 2.0, 0.4, 2.5)),
    ("betabinom", ["logpmf", "pmf"], (K, 10.0, 2.5, 1.5)),
    ("binom", ["logpmf", "pmf"], (K, 9.0, 0.35)),
    ("binom", ["logpmf"], (K, 9.0, 0.35, 1.0)),
    ("cauchy", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (X, 0.5, 2.0)),
    ("cauchy", ["ppf", "isf"], (P, 0.5, 2.0)),
    ("chi2", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (POS, 3.0)),
    ("chi2", ["logpdf", "cdf"], (POS, 2.5, 0.02, 1.5)),
    # Points exact in binary, so they sum to 1 in float32 too (SciPy checks the simplex).
    (
        "dirichlet",
        ["logpdf", "pdf"],
        (A([[0.25, 0.5], [0.25, 0.125], [0.5, 0.375]]), A([1.5, 2.0, 3.0])),
    ),
    ("expon", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (POS, 0.1, 2.0)),
    ("expon", ["ppf"], (P, 0.1, 2.0)),
    ("gamma", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (POS, 2.5)),
    ("gamma", ["logpdf", "cdf", "sf"], (POS, 0.7, 0.01, 3.0)),
    ("gennorm", ["logpdf", "pdf", "cdf"], (X, 1.5)),
    ("geom", ["logpmf", "pmf"], (A([1.0, 2, 3, 6, 10]), 0.3)),
    ("gumbel_l", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (X, 0.5, 1.5)),
    ("gumbel_l", ["ppf"], (P, 0.5, 1.5)),
    ("gumbel_r", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (X, 0.5, 1.5)),
    ("gumbel_r", ["ppf"], (P, 0.5, 1.5)),
    ("laplace", ["logpdf", "pdf", "cdf"], (X, 0.5, 1.5)),
    ("logistic", ["logpdf", "pdf", "cdf", "sf"], (X, 0.5, 1.5)),
    ("logistic", ["ppf", "isf"], (P, 0.5, 1.5)),
    ("multinomial", ["logpmf", "pmf"], (A([2, 3, 5]), 10, A([0.25, 0.25, 0.5]))),
    (
        "multivariate_normal",
        ["logpdf", "pdf"],
        (A([[0.5, -1.0], [2.0, 0.3]]), A([0.2, -0.1]), A([[2.0, 0.3], [0.3, 0.5]])),
    ),
    ("multivariate_normal", ["logpdf"], (A([0.5, -1.0, 2.0]), A([0.2, -0.1, 0.0]), 1.7)),
    ("nbinom", ["logpmf", "pmf"], (K, 3.5, 0.4)),
    ("norm", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"], (X, 0.5, 1.5)),
    ("norm", ["logcdf", "logsf"], (A([-40.0, -10.0, 0.0, 10.0, 40.0]),)),
    ("norm", ["ppf", "isf"], (P, 0.5, 1.5)),
    (
        "pareto",
        ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"],
        (A([0.5, 1.0, 1.5, 3.0, 10.0]), 2.5),
    ),
    ("pareto", ["ppf"], (P, 2.5, 0.1, 2.0)),
    ("poisson", ["logpmf", "pmf", "cdf"], (K, 3.5)),
    ("poisson", ["entropy"], (A([0.5, 3.5, 12.0, 50.0, 300.0]),)),
    ("t", ["logpdf", "pdf"], (X, 4.5, 0.5, 1.5)),
    (
        "truncnorm",
        ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"],
        (A([-0.5, 0.0, 0.5, 1.0, 1.9]), -1.0, 2.0),
    ),
    ("truncnorm", ["logpdf", "logcdf", "logsf"], (A([5.5, 6.0, 7.0, 8.0, 9.0]), 5.0, 10.0)),
    ("uniform", ["logpdf", "pdf", "cdf"], (A([-1.0, 0.5, 1.0, 2.5, 4.0]), 0.5, 3.0)),
    ("uniform", ["ppf"], (P, 0.5, 3.0)),
    ("vonmises", ["logpdf", "pdf"], (A([-3.0, -1.0, 0.0, 0.5, 3.0]), 2.5)),
    ("wrapcauchy", ["logpdf", "pdf"], (A([0.1, 1.0, 3.0, 4.0, 6.2]), 0.4)),
]
CASES = [(dist, fn, args) for dist, fns, args in TABLE for fn in fns]
INTEGER_ARGS = {"multinomial": (0, 1)}  # positional arguments passed as integers
# (float32, float64) relative tolerances where the formula is JAX's approximation: the entropy
# above mu = 100 is Stirling's series to 1/(12 mu).
RTOL = {("poisson", "entropy"): (2e-5, 2e-7)}


CASE_IDS = [f"{dist}.{fn}-{i}" for i, (dist, fn, _) in enumerate(CASES)]


def _cast(dist, args, dtype):
    ints = INTEGER_ARGS.get(dist, ())
    return [np.asarray(a).astype(np.int32 if i in ints else dtype) for i, a in enumerate(args)]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_scipy(case, dtype, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    dist, fn, args = case
    ours = getattr(getattr(stats, dist), fn)
    theirs = getattr(getattr(ss, dist), fn)
    cast = _cast(dist, args, dtype)
    got = np.asarray(ours(*(jnp.asarray(a) for a in cast)))
    assert got.dtype == np.dtype(dtype)
    with np.errstate(all="ignore"):
        want = np.asarray(
            theirs(*(a.astype(np.float64) if a.dtype != np.int32 else a for a in cast))
        )
    rtol = RTOL.get((dist, fn), (2e-5, 1e-11))[dtype == "float64"]
    # log(cdf) and log(sf) near 0 inherit the absolute rounding of a probability near 1.
    eps = np.finfo(dtype).eps
    atol = 2 * eps if fn in ("logcdf", "logsf") else np.finfo(dtype).tiny
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_every_listed_function_has_a_case():
    covered = {(d, f) for d, f, _ in CASES}
    for dist in stats.__all__:
        module = getattr(stats, dist)
        if not isinstance(module, type(stats)):
            continue
        for name in module.__all__:
            assert (dist, name) in covered, f"{dist}.{name} has no case"


def test_public_modules_reexport_the_implementation():
    for dist, name in (("norm", "logpdf"), ("beta", "cdf"), ("poisson", "logpmf")):
        private = importlib.import_module(f"stablax._src.scipy.stats.{dist}")
        assert getattr(getattr(stats, dist), name) is getattr(private, name)


def test_support_edges_and_invalid_parameters():
    assert float(stats.expon.logpdf(-1.0)) == -np.inf
    assert float(stats.beta.logpdf(1.5, 2.0, 3.0)) == -np.inf
    assert np.isnan(float(stats.beta.logpdf(0.5, -1.0, 3.0)))
    assert float(stats.poisson.logpmf(2.5, 3.0)) == -np.inf
    assert float(stats.binom.logpmf(11.0, 10.0, 0.5)) == -np.inf
    assert float(stats.uniform.cdf(np.nan)) == 0.0  # JAX's select falls through to 0
    assert np.isnan(float(stats.gumbel_r.logpdf(0.0, 0.0, -1.0)))
    assert np.isnan(float(stats.truncnorm.logpdf(0.0, 1.0, 0.5)))
    assert np.isnan(float(stats.expon.ppf(1.5)))
    assert stats.norm.ppf(np.float32(0.3)).dtype == np.float32


def test_gradients(x64):
    check_grads(lambda x: stats.norm.logcdf(x, 0.3, 1.2), (-2.0,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x, a: stats.gamma.logpdf(x, a), (1.3, 2.2), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: stats.t.logpdf(x, 3.0), (0.7,), order=1, modes=("fwd", "rev"))


def test_vmap_matches_loop():
    x = A([-1.0, 0.0, 2.0], np.float32)
    scale = A([0.5, 1.0, 2.0], np.float32)
    batched = np.asarray(stablax.vmap(stats.norm.logpdf, in_axes=(0, None, 0))(x, 0.3, scale))
    looped = np.array([float(stats.norm.logpdf(x[i], 0.3, scale[i])) for i in range(3)])
    np.testing.assert_allclose(batched, looped, rtol=1e-6)
    points = A([[0.5, -1.0], [2.0, 0.3], [0.0, 0.0]], np.float32)
    cov = A([[2.0, 0.3], [0.3, 0.5]], np.float32)
    batched = np.asarray(
        stablax.vmap(lambda p: stats.multivariate_normal.logpdf(p, np.zeros(2), cov))(points)
    )
    np.testing.assert_allclose(
        batched, ss.multivariate_normal.logpdf(points, np.zeros(2), cov), rtol=1e-5
    )


def test_mode():
    data = A([[1, 2, 2, 7], [3, 3, 1, 7], [1, 2, 1, 5]])
    for axis, keepdims in ((0, False), (1, True), (None, False), (None, True)):
        got = stats.mode(data, axis=axis, keepdims=keepdims)
        want = ss.mode(data, axis=axis, keepdims=keepdims)
        np.testing.assert_array_equal(np.asarray(got.mode), want.mode)
        np.testing.assert_array_equal(np.asarray(got.count), want.count)
    nan_mode = stats.mode(A([1.0, 2.0, 2.0, np.nan, np.nan, np.nan]))
    assert np.isnan(float(nan_mode.mode)) and int(nan_mode.count) == 3
    with pytest.raises(NotImplementedError):
        stats.mode(data, nan_policy="omit")
    with pytest.raises(ValueError, match="Illegal nan_policy"):
        stats.mode(data, nan_policy="skip")


@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
def test_rankdata(method):
    data = A([[3.0, 1.0, 2.0, 2.0], [5.0, 5.0, 5.0, -1.0]])
    np.testing.assert_array_equal(
        np.asarray(stats.rankdata(data, method)), ss.rankdata(data, method)
    )
    np.testing.assert_array_equal(
        np.asarray(stats.rankdata(data, method, axis=1)), ss.rankdata(data, method, axis=1)
    )
    assert np.isnan(np.asarray(stats.rankdata(A([1.0, np.nan]), method))).all()


def test_rankdata_errors():
    with pytest.raises(ValueError, match="unknown method"):
        stats.rankdata(A([1.0]), "mean")


def test_sem(x64):
    data = np.random.default_rng(0).normal(size=(5, 4))
    np.testing.assert_allclose(np.asarray(stats.sem(data)), ss.sem(data), rtol=1e-12)
    np.testing.assert_allclose(
        float(stats.sem(data, axis=None, ddof=0)), ss.sem(data, axis=None, ddof=0), rtol=1e-12
    )
    data[1, 2] = np.nan
    np.testing.assert_allclose(
        np.asarray(stats.sem(data, nan_policy="omit")), ss.sem(data, nan_policy="omit"), rtol=1e-12
    )


def test_gaussian_kde(x64):
    rng = np.random.default_rng(3)
    data = rng.normal(size=(2, 30))
    weights = rng.uniform(0.5, 1.5, size=30)
    points = rng.normal(size=(2, 4))
    for kwargs in ({}, {"bw_method": "silverman"}, {"bw_method": 0.4}, {"weights": weights}):
        ours, theirs = stats.gaussian_kde(data, **kwargs), ss.gaussian_kde(data, **kwargs)
        np.testing.assert_allclose(np.asarray(ours.covariance), theirs.covariance, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(ours(points)), theirs(points), rtol=1e-10)
        np.testing.assert_allclose(
            np.asarray(ours.logpdf(points)), theirs.logpdf(points), rtol=1e-10
        )
    kde = stats.gaussian_kde(data)
    reference = ss.gaussian_kde(data)
    mean, cov = A([0.1, -0.2]), A([[1.0, 0.2], [0.2, 0.5]])
    np.testing.assert_allclose(
        float(kde.integrate_gaussian(mean, cov)),
        reference.integrate_gaussian(mean, cov),
        rtol=1e-10,
    )
    other = stats.gaussian_kde(data[:, :10] + 1)
    np.testing.assert_allclose(
        float(kde.integrate_kde(other)),
        reference.integrate_kde(ss.gaussian_kde(data[:, :10] + 1)),
        rtol=1e-10,
    )
    one_d = stats.gaussian_kde(data[0])
    np.testing.assert_allclose(
        float(one_d.integrate_box_1d(-0.5, 1.0)),
        ss.gaussian_kde(data[0]).integrate_box_1d(-0.5, 1.0),
        rtol=1e-10,
    )
    samples = kde.resample(random.PRNGKey(0), (500,))
    assert samples.shape == (2, 500)
    assert abs(float(jnp.mean(samples[0])) - data[0].mean()) < 0.3
    leaves, tree = stablax.tree_util.tree_flatten(kde)
    rebuilt = stablax.tree_util.tree_unflatten(tree, leaves)
    np.testing.assert_allclose(np.asarray(rebuilt(points)), np.asarray(kde(points)))
    with pytest.raises(NotImplementedError):
        kde.integrate_box([0, 0], [1, 1])
    with pytest.raises(ValueError, match="dimension"):
        kde(np.ones((3, 2)))
