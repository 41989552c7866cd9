"""Statistical sanity of every stablax.random sampler: Kolmogorov-Smirnov against scipy.stats
(or moments where scipy has no matching distribution), with fixed keys so results are
deterministic."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

from stablax import random

N = 4000
KEY = random.PRNGKey(1234)

# (sampler, scipy distribution whose CDF the samples must follow)
KS_CASES = {
    "uniform": (lambda k: random.uniform(k, (N,), minval=-1.0, maxval=3.0), st.uniform(-1, 4)),
    "normal": (lambda k: random.normal(k, (N,)), st.norm()),
    "truncated_normal": (
        lambda k: random.truncated_normal(k, -1.0, 2.0, (N,)),
        st.truncnorm(-1, 2),
    ),
    "exponential": (lambda k: random.exponential(k, (N,)), st.expon()),
    "laplace": (lambda k: random.laplace(k, (N,)), st.laplace()),
    "logistic": (lambda k: random.logistic(k, (N,)), st.logistic()),
    "cauchy": (lambda k: random.cauchy(k, (N,)), st.cauchy()),
    "gumbel": (lambda k: random.gumbel(k, (N,)), st.gumbel_r()),
    "pareto": (lambda k: random.pareto(k, 3.0, (N,)), st.pareto(3.0)),
    "lognormal": (lambda k: random.lognormal(k, 0.5, (N,)), st.lognorm(0.5)),
    "weibull_min": (lambda k: random.weibull_min(k, 2.0, 1.5, (N,)), st.weibull_min(1.5, scale=2)),
    "rayleigh": (lambda k: random.rayleigh(k, 2.0, (N,)), st.rayleigh(scale=2)),
    "wald": (lambda k: random.wald(k, 1.5, (N,)), st.invgauss(1.5)),
    "triangular": (lambda k: random.triangular(k, 0.0, 0.3, 1.0, (N,)), st.triang(0.3)),
    "maxwell": (lambda k: random.maxwell(k, (N,)), st.maxwell()),
    "gamma": (lambda k: random.gamma(k, 0.7, (N,)), st.gamma(0.7)),
    "beta": (lambda k: random.beta(k, 2.0, 3.0, (N,)), st.beta(2, 3)),
    "chisquare": (lambda k: random.chisquare(k, 3.0, (N,)), st.chi2(3)),
    "f": (lambda k: random.f(k, 4.0, 6.0, (N,)), st.f(4, 6)),
    "t": (lambda k: random.t(k, 5.0, (N,)), st.t(5)),
    "generalized_normal": (lambda k: random.generalized_normal(k, 1.5, (N,)), st.gennorm(1.5)),
}


@pytest.mark.parametrize("name", sorted(KS_CASES))
def test_kolmogorov_smirnov(name):
    sample, dist = KS_CASES[name]
    x = np.asarray(sample(KEY), np.float64)
    assert st.kstest(x, dist.cdf).pvalue > 1e-3


def _chi2_pvalue(counts: np.ndarray, probs: np.ndarray) -> float:
    return st.chisquare(counts, counts.sum() * probs / probs.sum()).pvalue


def test_discrete_distributions():
    k = np.asarray(random.randint(KEY, (N,), 0, 5))
    assert _chi2_pvalue(np.bincount(k, minlength=5), np.ones(5)) > 1e-3
    b = np.asarray(random.bernoulli(KEY, 0.3, (N,)))
    assert abs(b.mean() - 0.3) < 4 * np.sqrt(0.21 / N)
    r = np.asarray(random.rademacher(KEY, (N,)))
    assert set(np.unique(r)) == {-1, 1} and abs(r.mean()) < 4 / np.sqrt(N)
    g = np.asarray(random.geometric(KEY, 0.3, (N,)))
    assert g.min() >= 1 and abs(g.mean() - 1 / 0.3) < 4 * np.sqrt(0.7 / 0.09 / N)
    for lam in (3.0, 30.0):  # Knuth and rejection branches
        p = np.asarray(random.poisson(KEY, lam, (N,)))
        values = np.arange(p.max() + 1)
        assert _chi2_pvalue(np.bincount(p), st.poisson(lam).pmf(values)) > 1e-4
    for n, q in ((10, 0.3), (100, 0.6)):  # inversion and BTRS branches
        x = np.asarray(random.binomial(KEY, n, q, (N,))).astype(int)
        assert (
            _chi2_pvalue(np.bincount(x, minlength=n + 1), st.binom(n, q).pmf(np.arange(n + 1)))
            > 1e-4
        )


def test_choices_and_permutations():
    logits = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    c = np.asarray(random.categorical(KEY, logits, shape=(N,)))
    assert _chi2_pvalue(np.bincount(c, minlength=4), np.exp(logits)) > 1e-3
    p = np.array([0.1, 0.2, 0.3, 0.2, 0.2])
    ch = np.asarray(random.choice(KEY, 5, (N,), p=p))
    assert _chi2_pvalue(np.bincount(ch, minlength=5), p) > 1e-3
    no_rep = np.asarray(random.choice(KEY, 10, (10,), replace=False))
    assert sorted(no_rep) == list(range(10))
    perm = np.asarray(random.permutation(KEY, np.arange(20)))
    assert sorted(perm) == list(range(20)) and not np.array_equal(perm, np.arange(20))


def test_vector_distributions():
    d = np.asarray(random.dirichlet(KEY, np.array([1.0, 2.0, 3.0]), (N,)))
    np.testing.assert_allclose(d.sum(-1), 1, rtol=1e-5)
    np.testing.assert_allclose(d.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.02)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    mvn = np.asarray(random.multivariate_normal(KEY, np.array([1.0, -1.0]), cov, (N,)))
    np.testing.assert_allclose(np.cov(mvn.T), cov, atol=0.15)
    np.testing.assert_allclose(mvn.mean(0), [1, -1], atol=0.1)
    q = np.asarray(random.orthogonal(KEY, 4, (3,)))
    np.testing.assert_allclose(
        q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), (3, 4, 4)), atol=1e-5
    )
    ball = np.asarray(random.ball(KEY, 3, shape=(N,)))
    radius = np.linalg.norm(ball, axis=-1)
    assert radius.max() <= 1 and st.kstest(radius**3, "uniform").pvalue > 1e-3
    m = np.asarray(random.multinomial(KEY, 10.0, np.array([0.2, 0.3, 0.5]), shape=(N, 3)))
    np.testing.assert_array_equal(m.sum(-1), 10)
    np.testing.assert_allclose(m.mean(0), [2, 3, 5], atol=0.15)
    dsm = np.asarray(random.double_sided_maxwell(KEY, 1.0, 2.0, (N,)))
    assert (
        abs(dsm.mean() - 1.0) < 0.15
        and abs(np.abs(dsm - 1).mean() - 2 * 2 * np.sqrt(2 / np.pi)) < 0.2
    )
