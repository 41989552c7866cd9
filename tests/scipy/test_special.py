"""stablax.scipy.special against scipy.special: one row per function (points, tolerances, the
arguments to differentiate), checked in float32 and float64, plus derivatives and vmap."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest
import scipy.special as sp

import stablax
import stablax.numpy as jnp
from stablax.scipy import special
from stablax.test_util import check_grads


class Row(NamedTuple):
    fn: Any  # stablax function of the arrays
    reference: Any  # scipy function of the float64 arrays
    args: tuple  # float64 point arrays
    rtol32: float = 2e-5
    rtol64: float = 1e-12
    grad_at: tuple | None = None  # float64 scalars to check derivatives at (None: no check)
    atol32: float = 0.0  # absolute tolerance in float32 (XLA's lgamma(1) is 5e-7, not 0)


A = np.array
ROWS = {
    "gammaln": Row(
        special.gammaln,
        sp.gammaln,
        (A([0.1, 0.5, 1, 2.5, 10, 100, -0.5, -2.5]),),
        grad_at=(2.3,),
        atol32=1e-6,
    ),
    "gammasgn": Row(
        special.gammasgn, sp.gammasgn, (A([0.5, 3.7, -2.5, -0.5, -1.5, -3.0, 0.0, -0.0]),)
    ),
    "loggamma": Row(special.loggamma, sp.loggamma, (A([0.1, 1, 5.5, 30.0, 100.0]),), atol32=1e-6),
    "gamma": Row(
        special.gamma, sp.gamma, (A([0.1, 1, 4.5, -0.5, -2.7, 10.0, -3.0]),), 5e-6, 1e-13, (1.7,)
    ),
    "betaln": Row(
        special.betaln,
        sp.betaln,
        (A([0.5, 2, 10, 1e3, 3.0]), A([2, 0.3, 20, 1e4, 9.0])),
        grad_at=(1.5, 2.5),
    ),
    "beta": Row(
        special.beta,
        sp.beta,
        (A([0.5, 2, 3.5, -0.5]), A([2, 0.3, 4.0, 2.5])),
        5e-6,
        1e-13,
        (1.5, 2.5),
    ),
    "factorial": Row(special.factorial, sp.factorial, (A([0.0, 1, 5, 10, -1]),)),
    "comb": Row(special.comb, sp.comb, (A([10.0, 5, 3, 20, 4]), A([3.0, 5, 4, 10, 0]))),
    "poch": Row(
        special.poch,
        sp.poch,
        (A([1, 2.5, 0.3, 4.0]), A([3, 0, 2.2, -1.5])),
        5e-6,
        1e-13,
        (1.5, 2.5),
    ),
    "multigammaln": Row(
        lambda a: special.multigammaln(a, 3),
        lambda a: sp.multigammaln(a, 3),
        (A([3.5, 5.0, 10.0]),),
    ),
    "digamma": Row(special.digamma, sp.digamma, (A([0.3, 1, 2.5, 30, -0.5]),), 5e-6, 1e-13, (1.3,)),
    "polygamma": Row(
        lambda x: special.polygamma(np.array([0, 1, 2, 3, 1]), x),
        lambda x: sp.polygamma([0, 1, 2, 3, 1], x),
        (A([1.5, 2, 0.3, 5, 20]),),
        5e-6,
        1e-12,
    ),
    "zeta": Row(
        special.zeta,
        sp.zeta,
        (A([2.0, 3, 4.5, 1.5]), A([1.0, 2.5, 0.5, 3.0])),
        1e-5,
        1e-12,
        (3.2, 1.7),
    ),
    "betainc": Row(
        special.betainc,
        sp.betainc,
        (
            A([0.5, 2, 10, 0.1, 100, 3, 1, 2]),
            A([0.5, 3, 2, 5, 200, 0.01, 1, 2]),
            A([0.3, 0.9, 0.5, 0.01, 0.33, 0.999, 0.5, 0.0]),
        ),
        5e-5,
        1e-11,
        (2.0, 3.0, 0.4),
    ),
    "gammainc": Row(
        special.gammainc,
        sp.gammainc,
        (A([0.5, 2, 10, 3]), A([0.3, 2, 15, 0.0])),
        5e-5,
        1e-12,
        (2.5, 1.5),
    ),
    "gammaincc": Row(
        special.gammaincc,
        sp.gammaincc,
        (A([0.5, 2, 10, 3]), A([0.3, 2, 15, 0.0])),
        5e-5,
        1e-12,
        (2.5, 1.5),
    ),
    "erf": Row(special.erf, sp.erf, (A([-3, -0.5, 0, 1e-3, 0.7, 2.5]),), grad_at=(0.3,)),
    "erfc": Row(special.erfc, sp.erfc, (A([-3, -0.5, 0, 0.7, 2.5, 8.0]),), grad_at=(0.3,)),
    "erfinv": Row(special.erfinv, sp.erfinv, (A([-0.999, -0.5, 0, 0.3, 0.9]),), grad_at=(0.3,)),
    "erfcx": Row(special.erfcx, sp.erfcx, (A([-5, -0.5, 0, 0.7, 5, 12, 30, 1e3]),), grad_at=(1.3,)),
    "dawsn": Row(special.dawsn, sp.dawsn, (A([-5, -0.5, 0, 0.7, 3.3, 5, 7, 100]),), grad_at=(1.3,)),
    "ndtr": Row(special.ndtr, sp.ndtr, (A([-8, -2, 0, 0.5, 3]),), grad_at=(0.4,)),
    "ndtri": Row(
        special.ndtri, sp.ndtri, (A([1e-20, 0.01, 0.1, 0.5, 0.8, 0.95, 0.999]),), grad_at=(0.3,)
    ),
    "log_ndtr": Row(
        special.log_ndtr, sp.log_ndtr, (A([-30, -12, -3, 0, 2, 7, 9]),), grad_at=(-4.0,)
    ),
    "owens_t": Row(
        special.owens_t,
        sp.owens_t,
        (A([0, 0.5, 1, 3, -2]), A([0.3, 2, 1, -0.5, 5])),
        2e-5,
        1e-12,
        (0.7, 1.3),
    ),
    "xlogy": Row(
        special.xlogy, sp.xlogy, (A([0.0, 1, 2, 0]), A([0.0, 3, 0.5, 2])), grad_at=(1.5, 2.0)
    ),
    "xlog1py": Row(
        special.xlog1py, sp.xlog1py, (A([0.0, 1, 2, 0]), A([-1.0, 3, 0.5, 2])), grad_at=(1.5, 2.0)
    ),
    "entr": Row(special.entr, sp.entr, (A([0.0, 0.5, 2, -1]),), grad_at=(0.7,)),
    "rel_entr": Row(
        special.rel_entr, sp.rel_entr, (A([0.0, 0.5, 2, -1, 1]), A([1.0, 0.3, 2, 1, 0]))
    ),
    "kl_div": Row(special.kl_div, sp.kl_div, (A([0.0, 0.5, 2, -1, 1]), A([1.0, 0.3, 2, 1, 0]))),
    "logit": Row(special.logit, sp.logit, (A([0.0, 0.01, 0.5, 0.9, 1.0]),), grad_at=(0.3,)),
    "expit": Row(special.expit, sp.expit, (A([-50, -1, 0, 2, 40]),), grad_at=(0.3,)),
    "boxcox": Row(
        special.boxcox, sp.boxcox, (A([0.5, 2, 3, 1e-3]), A([0.0, 0.5, -1, 2])), grad_at=(1.5, 0.5)
    ),
    "boxcox1p": Row(
        special.boxcox1p,
        sp.boxcox1p,
        (A([0.5, 2, 3, 1e-3]), A([0.0, 0.5, -1, 2])),
        grad_at=(1.5, 0.5),
    ),
    "i0": Row(special.i0, sp.i0, (A([-3, 0, 0.5, 5, 20]),), grad_at=(1.1,)),
    "i0e": Row(special.i0e, sp.i0e, (A([-3, 0, 0.5, 5, 200]),), grad_at=(1.1,)),
    "i1": Row(special.i1, sp.i1, (A([-3, 0, 0.5, 5, 20]),), grad_at=(1.1,)),
    "i1e": Row(special.i1e, sp.i1e, (A([-3, 0, 0.5, 5, 200]),), grad_at=(1.1,)),
    "bessel_jn": Row(
        lambda z: special.bessel_jn(z, v=3),
        lambda z: sp.jv(np.arange(4)[:, None], z),
        (A([0.0, 1e-3, 0.5, 1, 5, -3, 20]),),
        1e-4,
        1e-12,
    ),
    "expi": Row(
        special.expi, sp.expi, (A([-50, -5, -1e-3, 1e-3, 0.5, 3, 12, 40, 80]),), 1e-5, 1e-13, (1.3,)
    ),
    "exp1": Row(special.exp1, sp.exp1, (A([1e-3, 0.5, 1, 3, 12, 50]),), 1e-5, 1e-13, (0.7,)),
    "expn": Row(
        special.expn,
        sp.expn,
        (A([0, 1, 2, 3, 5, 10, 6000.0]), A([0.3, 2, 0, 1.5, 0.7, 5, 3])),
        1e-5,
        1e-13,
    ),
    "spence": Row(
        special.spence, sp.spence, (A([0.0, 1e-3, 0.3, 0.5, 1, 1.6, 2.5, 10]),), 1e-5, 1e-13, (0.7,)
    ),
    "hyp1f1": Row(
        special.hyp1f1,
        sp.hyp1f1,
        (
            A([1, 0.5, -2, 0.3, 2.5, -1.5]),
            A([2, 1.5, 3, 4, 1.2, 2.5]),
            A([0.5, -200, -150, 30, 50, -5]),
        ),
        1e-4,
        1e-12,
        (0.7, 1.3, 0.8),
    ),
    "hyp2f1": Row(
        special.hyp2f1,
        sp.hyp2f1,
        (
            A([1, 0.5, 0.5, -3, 2, 1.5, 0.3, 2, 1, -2, 0.7]),
            A([2, 0.3, 0.3, 2, 3, 2.5, 0.7, 3, 1, 1, -0.4]),
            A([3, 1.7, 1.7, 1.5, 1.5, 1.2, 0.4, 6.5, 1.1, -3, 2.2]),
            A([0.5, 0.99, -3, -5, 0.97, 0.93, -0.7, 0.999, 0.3, 0.5, -20]),
        ),
        1e-4,
        1e-12,
        (0.7, 1.3, 2.1, 0.4),
    ),
}


def _values(fn, args, dtype):
    out = fn(*(jnp.asarray(a.astype(dtype)) for a in args))
    return [np.asarray(o) for o in out] if isinstance(out, tuple) else [np.asarray(out)]


@pytest.mark.parametrize("name", sorted(ROWS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_match_scipy(name, dtype, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    row = ROWS[name]
    with np.errstate(all="ignore"):
        # The reference sees the points rounded to the tested dtype.
        want = row.reference(*(a.astype(dtype).astype(np.float64) for a in row.args))
    (got,) = _values(row.fn, row.args, dtype)
    assert got.dtype == np.dtype(dtype)
    want = np.asarray(want)
    rtol, atol = (row.rtol32, row.atol32) if dtype == "float32" else (row.rtol64, 0.0)
    # NaN where SciPy gives NaN; values beyond the dtype's range overflow to inf; subnormal
    # results may flush to zero (XLA:CPU).
    nan = np.isnan(want)
    overflow = ~nan & (np.abs(want) >= np.finfo(dtype).max)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(
        np.sign(got[overflow]) * np.isinf(got[overflow]), np.sign(want[overflow])
    )
    finite = ~nan & ~overflow
    np.testing.assert_allclose(
        got[finite], want[finite], rtol=rtol, atol=max(atol, np.finfo(dtype).tiny)
    )


def _central_difference(reference, point, index, h=1e-6):
    up, down = list(point), list(point)
    up[index] += h
    down[index] -= h
    return (reference(*up) - reference(*down)) / (2 * h)


@pytest.mark.parametrize("name", sorted(n for n, r in ROWS.items() if r.grad_at is not None))
def test_derivatives(name, x64):
    # Reverse mode in float64 against central differences of SciPy's function.
    row = ROWS[name]
    point = tuple(float(a) for a in row.grad_at)
    grads = stablax.grad(row.fn, tuple(range(len(point))))(*point)
    for index, g in enumerate(grads):
        want = _central_difference(row.reference, point, index)
        np.testing.assert_allclose(
            float(g), want, rtol=2e-6, atol=1e-9, err_msg=f"argument {index}"
        )


def test_jvp_vjp_agreement_and_second_derivatives(x64):
    check_grads(special.gammaln, (2.3,), order=2, modes=("fwd", "rev"))
    for fn, args in (
        (special.erfcx, (0.8,)),
        (special.log_ndtr, (-3.0,)),
        (special.xlogy, (1.5, 2.0)),
    ):
        check_grads(fn, args, order=1, modes=("fwd", "rev"))


def test_tuple_valued_functions(x64):
    x = np.array([-1e10, -3.0, 0.0, 0.5, 4.0, 7.0, 1e5, np.inf])
    for fn, reference in ((special.sici, sp.sici), (special.fresnel, sp.fresnel)):
        # Beyond |x| = 1e9 Si and Ci are their leading asymptotic terms (as in Cephes).
        for dtype, rtol in (("float32", 5e-6), ("float64", 1e-9)):
            got = _values(fn, (x,), dtype)
            with np.errstate(all="ignore"):
                want = reference(x.astype(dtype).astype(np.float64))
            for g, w in zip(got, want, strict=True):
                if (
                    fn is special.sici
                ):  # scipy's Ci is complex for negative x; stablax gives Ci(|x|)
                    w = np.where(x < 0, reference(np.abs(x))[1], w) if g is got[1] else w
                # In float32, Cephes (and JAX) return exactly 1/2 beyond x = 36974 (error < 1e-5).
                atol = 1e-5 if dtype == "float32" else 0.0
                np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
        check_grads(fn, (1.3,), order=1, modes=("fwd", "rev"))


def test_complex_functions(x64):
    z = np.array([0.5 + 0.5j, -1 + 2j, 3 - 1j, 0.1 - 5j, 10 + 10j, 2 + 0j])
    np.testing.assert_allclose(np.asarray(special.wofz(z)), sp.wofz(z), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(special.erfcx(z)), sp.erfcx(z), rtol=1e-12)
    w = np.array([1 + 2j, -3.5 + 0.2j, 0.3 - 4j, -20.5 + 1j, 2.5 + 0j])
    np.testing.assert_allclose(np.asarray(special.loggamma(w)), sp.loggamma(w), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(special.gamma(w)), sp.gamma(w), rtol=1e-11)
    assert np.isnan(np.asarray(special.gamma(np.array([-2.0 + 0j])))).all()
    check_grads(special.wofz, (0.7 + 0.3j,), order=1, modes=("fwd", "rev"))
    with pytest.raises(ValueError, match="complex"):
        special.gammasgn(z)


def test_sph_harm_y(x64):
    n = np.array([0, 1, 2, 3, 5, 4, 6])
    m = np.array([0, -1, 1, -2, 5, 0, -3])
    theta = np.array([0.3, 1.2, 2.0, 0.1, 1.0, 3.0, 0.7])
    phi = np.array([0.5, 2.0, -1.0, 4.0, 0.2, 1.0, 2.5])
    got = np.asarray(special.sph_harm_y(n, m, theta, phi))
    np.testing.assert_allclose(got, sp.sph_harm_y(n, m, theta, phi), rtol=1e-12, atol=1e-15)
    assert np.asarray(special.sph_harm_y(2, 1, 0.3, 0.5)).dtype == np.complex128
    with pytest.raises(NotImplementedError):
        special.sph_harm_y(n, m, theta, phi, diff_n=1)


def test_logsumexp_softmax_bernoulli(x64):
    a = np.array([[1.0, 2.0, -np.inf], [1e3, 1e3, 0.0]])
    b = np.array([[1.0, -0.5, 2.0], [1.0, 1.0, 0.0]])
    np.testing.assert_allclose(
        np.asarray(special.logsumexp(a, axis=1)), sp.logsumexp(a, axis=1), rtol=1e-13
    )
    got, sign = special.logsumexp(a, axis=1, b=b, return_sign=True)
    want, want_sign = sp.logsumexp(a, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)
    np.testing.assert_array_equal(np.asarray(sign), want_sign)
    np.testing.assert_allclose(np.asarray(special.softmax(a[1])), sp.softmax(a[1]), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(special.softmax(a[1:])), sp.softmax(a[1:]), rtol=1e-13)
    np.testing.assert_allclose(
        np.asarray(special.log_softmax(a[1], axis=0)), sp.log_softmax(a[1]), rtol=1e-13
    )
    # SciPy's B_4 is off by 2e-12 relative; stablax's are the exact fractions, rounded.
    np.testing.assert_allclose(np.asarray(special.bernoulli(20)), sp.bernoulli(20), rtol=1e-11)
    assert float(special.bernoulli(4)[4]) == -1 / 30
    assert np.asarray(special.bernoulli(0)).tolist() == [1.0]


def test_betainc_derivatives_in_the_parameters(x64):
    # JAX raises for these; here they are the derivatives of the continued fraction.
    h = 1e-6
    da = (sp.betainc(2 + h, 3, 0.4) - sp.betainc(2 - h, 3, 0.4)) / (2 * h)
    db = (sp.betainc(2, 3 + h, 0.4) - sp.betainc(2, 3 - h, 0.4)) / (2 * h)
    got = stablax.grad(special.betainc, (0, 1))(2.0, 3.0, 0.4)
    np.testing.assert_allclose([float(g) for g in got], [da, db], rtol=1e-8)
    # At integer b the fraction terminates but its b-derivative does not:
    # d/db I_x(2, b) = -(1-x)^b (log(1-x) (1 + b x) + x) exactly.
    exact = -(0.6**3) * (np.log(0.6) * (1 + 3 * 0.4) + 0.4)
    np.testing.assert_allclose(float(got[1]), exact, rtol=1e-13)


def test_vmap_of_loop_based_functions():
    a = np.array([0.5, 2.0, 3.0], np.float32)
    b = np.array([1.5, 3.0, 2.0], np.float32)
    x = np.array([0.2, 0.5, 0.9], np.float32)
    for fn in (special.betainc, special.hyp1f1):
        args = (a, b, x)
        batched = np.asarray(stablax.vmap(fn)(*args))
        looped = np.array([np.asarray(fn(*(v[i] for v in args))) for i in range(3)])
        np.testing.assert_allclose(batched, looped, rtol=1e-6)
    batched = np.asarray(stablax.vmap(lambda z: special.bessel_jn(z, v=2))(x))
    np.testing.assert_allclose(
        batched, sp.jv(np.arange(3), x[:, None].astype(np.float64)), rtol=1e-5
    )
    batched = np.asarray(stablax.vmap(special.expn)(np.array([1.0, 2, 3], np.float32), x * 4))
    np.testing.assert_allclose(batched, sp.expn([1, 2, 3], x * 4), rtol=1e-5)


def test_errors_and_dtypes():
    with pytest.raises(TypeError, match="not supported"):
        special.ndtri(np.array([1, 2]))
    with pytest.raises(TypeError, match="not supported"):
        special.log_ndtr(np.array([1, 2], np.int32))
    with pytest.raises(ValueError, match="integer type"):
        special.polygamma(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="Riemann"):
        special.zeta(2.0)
    with pytest.raises(NotImplementedError):
        special.factorial(3, exact=True)
    with pytest.raises(TypeError, match="ndarray or scalar"):
        special.gammaln([1.0, 2.0])
    with pytest.raises(ValueError, match="non-negative"):
        special.bernoulli(-1)
    assert special.gammaln(np.int32(3)).dtype == np.float32
    assert special.erf(jnp.asarray(np.float16(0.5))).dtype == np.float16
    assert special.comb(5, 2).dtype == np.float32
