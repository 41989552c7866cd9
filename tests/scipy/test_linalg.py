"""stablax.scipy.linalg against scipy.linalg: values (float32, complex64, float64 under x64),
derivatives by check_grads, vmap against a loop, errors. JAX's exact outputs are checked by
test_jax_reference.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import stablax
import stablax.numpy as jnp
import stablax.scipy.linalg as L
from stablax.test_util import check_grads


def _normal(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _spd(n, dtype, seed=0):
    a = _normal((n, n), dtype, seed)
    return (a @ np.conj(a.T) + n * np.eye(n)).astype(dtype)


def _upper(n, dtype, seed=0):
    return (np.triu(_normal((n, n), dtype, seed)) + 3 * np.eye(n)).astype(dtype)


def _tol(dtype):
    return 1e-10 if np.dtype(dtype) in (np.float64, np.complex128) else 2e-4


def _close(actual, expected, tol):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale)


def _sign_fixed(m):
    # Columns scaled so that their first nonzero entry is real positive (QR/SVD/eig vectors).
    m = np.asarray(m)
    first = m[np.argmax(np.abs(m) > 1e-6, axis=0), np.arange(m.shape[1])]
    return m * (np.abs(first) / first)[None, :]


# name, stablax function, scipy function, inputs(dtype), tolerance factor
VALUE_CASES = [
    ("cholesky", lambda a: L.cholesky(a), lambda a: sl.cholesky(a), lambda d: [_spd(4, d)]),
    ("cholesky_lower", lambda a: L.cholesky(a, lower=True), lambda a: sl.cholesky(a, lower=True),
     lambda d: [_spd(3, d)]),
    ("cho_solve", lambda a, b: L.cho_solve(L.cho_factor(a), b),
     lambda a, b: sl.cho_solve(sl.cho_factor(a), b), lambda d: [_spd(4, d), _normal((4, 2), d)]),
    ("lu_factor", lambda a: L.lu_factor(a)[0], lambda a: sl.lu_factor(a)[0],
     lambda d: [_normal((4, 4), d)]),
    ("lu", lambda a: L.lu(a), lambda a: sl.lu(a), lambda d: [_normal((4, 3), d)]),
    ("lu_permute_l", lambda a: L.lu(a, permute_l=True), lambda a: sl.lu(a, permute_l=True),
     lambda d: [_normal((3, 5), d)]),
    ("lu_solve", lambda a, b: L.lu_solve(L.lu_factor(a), b),
     lambda a, b: sl.lu_solve(sl.lu_factor(a), b), lambda d: [_normal((4, 4), d), _normal(4, d)]),
    ("lu_solve_t", lambda a, b: L.lu_solve(L.lu_factor(a), b, trans=1),
     lambda a, b: sl.lu_solve(sl.lu_factor(a), b, trans=1),
     lambda d: [_normal((3, 3), d), _normal((3, 2), d)]),
    ("qr_r", lambda a: np.abs(L.qr(a, mode="r")[0]), lambda a: np.abs(sl.qr(a, mode="r")[0]),
     lambda d: [_normal((5, 3), d)]),
    ("qr_economic", lambda a: _sign_fixed(L.qr(a, mode="economic")[0]),
     lambda a: _sign_fixed(sl.qr(a, mode="economic")[0]), lambda d: [_normal((5, 3), d)]),
    ("qr_pivoting", lambda a: L.qr(a, pivoting=True)[2], lambda a: sl.qr(a, pivoting=True)[2],
     lambda d: [_normal((4, 6), d)]),
    ("qr_multiply", lambda a, c: L.qr_multiply(a, c)[0], lambda a, c: sl.qr_multiply(a, c)[0],
     lambda d: [_normal((4, 3), d), _normal((2, 4), d)]),
    ("qr_multiply_left", lambda a, c: L.qr_multiply(a, c, mode="left")[0],
     lambda a, c: sl.qr_multiply(a, c, mode="left")[0],
     lambda d: [_normal((3, 5), d), _normal(3, d)]),
    ("svd_values", lambda a: L.svd(a, compute_uv=False), lambda a: sl.svd(a, compute_uv=False),
     lambda d: [_normal((4, 6), d)]),
    ("eigh_values", lambda a: L.eigh(a, eigvals_only=True), lambda a: sl.eigh(a, eigvals_only=True),
     lambda d: [_spd(5, d)]),
    ("schur", lambda a: L.schur(a)[0], lambda a: sl.schur(a)[0], lambda d: [_normal((4, 4), d)]),
    ("hessenberg", lambda a: L.hessenberg(a, calc_q=True), lambda a: sl.hessenberg(a, calc_q=True),
     lambda d: [_normal((5, 5), d)]),
    ("det", L.det, sl.det, lambda d: [_normal((4, 4), d)]),
    ("inv", L.inv, sl.inv, lambda d: [_normal((4, 4), d)]),
    ("solve", L.solve, sl.solve, lambda d: [_normal((4, 4), d), _normal((4, 3), d)]),
    ("solve_pos", lambda a, b: L.solve(a, b, assume_a="pos"),
     lambda a, b: sl.solve(a, b, assume_a="pos"), lambda d: [_spd(4, d), _normal(4, d)]),
    ("solve_triangular", lambda a, b: L.solve_triangular(a, b, trans="C"),
     lambda a, b: sl.solve_triangular(a, b, trans="C"), lambda d: [_upper(4, d), _normal(4, d)]),
    ("expm", L.expm, sl.expm, lambda d: [_normal((4, 4), d)]),
    ("expm_scaled", lambda a: L.expm(6 * a), lambda a: sl.expm(6 * a),
     lambda d: [_normal((3, 3), d)]),
    ("expm_frechet", lambda a, e: L.expm_frechet(a, e),
     lambda a, e: sl.expm_frechet(a, e), lambda d: [_normal((3, 3), d), _normal((3, 3), d, 1)]),
    ("sqrtm", L.sqrtm, sl.sqrtm, lambda d: [_spd(4, d)]),
    ("funm", lambda a: L.funm(a, jnp.cos), lambda a: sl.funm(a, np.cos),
     lambda d: [_normal((3, 3), d)]),
    ("polar", lambda a: L.polar(a), lambda a: sl.polar(a), lambda d: [_normal((5, 3), d)]),
    ("polar_svd_left", lambda a: L.polar(a, "left", method="svd"),
     lambda a: sl.polar(a, "left"), lambda d: [_normal((3, 4), d)]),
    ("rsf2csf", lambda t, z: L.rsf2csf(t, z), lambda t, z: sl.rsf2csf(t, z),
     lambda d: list(sl.schur(_normal((4, 4), d)))),
    ("solve_sylvester", L.solve_sylvester, sl.solve_sylvester,
     lambda d: [_spd(3, d), _spd(2, d, 1), _normal((3, 2), d)]),
    ("eigh_tridiagonal", lambda d_, e: L.eigh_tridiagonal(d_, e, eigvals_only=True),
     lambda d_, e: sl.eigh_tridiagonal(d_, e, eigvals_only=True),
     lambda d: [_normal(6, d), _normal(5, d, 1)]),
    ("block_diag", L.block_diag, sl.block_diag,
     lambda d: [_normal((2, 3), d), _normal(2, d), _normal((1, 1), d)]),
    ("toeplitz", L.toeplitz, sl.toeplitz, lambda d: [_normal(4, d), _normal(3, d)]),
    ("hankel", L.hankel, sl.hankel, lambda d: [_normal(3, d), _normal(5, d)]),
    ("circulant", L.circulant, sl.circulant, lambda d: [_normal(5, d)]),
    ("companion", L.companion, sl.companion, lambda d: [_normal(4, d) + 2]),
    ("fiedler_companion", L.fiedler_companion, sl.fiedler_companion, lambda d: [_normal(5, d) + 2]),
    ("convolution_matrix", lambda a: L.convolution_matrix(a, 5, "same"),
     lambda a: sl.convolution_matrix(a, 5, "same"), lambda d: [_normal(3, d)]),
]  # fmt: skip

VALUE_PARAMS = [
    pytest.param(case, dtype, id=f"{case[0]}-{np.dtype(dtype).name}")
    for case in VALUE_CASES
    for dtype in (np.float32, np.float64)
] + [
    pytest.param(case, np.complex64, id=f"{case[0]}-complex64")
    for case in VALUE_CASES
    if case[0] in {"cholesky", "cho_solve", "lu_solve", "solve", "det", "inv", "expm", "schur",
                   "qr_multiply", "toeplitz", "sqrtm", "solve_sylvester", "polar"}
]  # fmt: skip


@pytest.mark.parametrize("case,dtype", VALUE_PARAMS)
def test_matches_scipy(case, dtype, request):
    name, ours, theirs, inputs = case
    if np.dtype(dtype) == np.float64:
        request.getfixturevalue("x64")
    args = inputs(dtype)
    actual, expected = ours(*args), theirs(*args)
    tol = _tol(dtype) * (100 if name in {"sqrtm", "funm", "rsf2csf", "polar"} else 1)
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    for a, e in zip(stablax.tree_util.tree_leaves(actual), expected, strict=True):
        _close(a, np.asarray(e), tol)


def test_special_matrices_match_scipy():
    assert np.array_equal(L.hadamard(8), sl.hadamard(8))
    _close(L.hilbert(5), sl.hilbert(5), 1e-6)
    _close(L.invhilbert(4), sl.invhilbert(4), 1e-3)
    _close(L.pascal(5), sl.pascal(5), 1e-5)
    _close(L.pascal(4, "upper"), sl.pascal(4, "upper"), 1e-5)
    _close(L.invpascal(5), sl.invpascal(5), 1e-4)
    _close(L.helmert(4), sl.helmert(4), 1e-6)
    _close(L.dft(6, "sqrtn"), sl.dft(6, "sqrtn"), 1e-6)
    f, s = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.25])
    _close(L.leslie(f, s), sl.leslie(f, s), 1e-6)
    _close(L.fiedler(f), sl.fiedler(f), 1e-6)
    with pytest.raises(TypeError, match="leslie requires ndarray"):  # as JAX: no lists
        L.leslie([1.0, 2.0], [0.5])


# --- derivatives (float64) ------------------------------------------------------------------------

GRAD_CASES = [
    ("expm", lambda a: L.expm(4 * a), lambda: [_normal((2, 2), np.float64)], 1),
    ("solve", L.solve, lambda: [_normal((3, 3), np.float64), _normal((3, 2), np.float64)], 1),
    # assume_a="pos" reads one triangle; perturb a symmetrically, as its derivative assumes.
    ("solve_pos", lambda a, b: L.solve(a + a.T, b, assume_a="pos"),
     lambda: [_spd(3, np.float64) / 2, _normal(3, np.float64)], 1),
    ("cho_solve", lambda a, b: L.cho_solve(L.cho_factor(a, lower=True), b),
     lambda: [_spd(3, np.float64), _normal((3, 2), np.float64)], 1),
    ("lu_solve", lambda a, b: L.lu_solve(L.lu_factor(a), b, trans=1),
     lambda: [_normal((3, 3), np.float64), _normal(3, np.float64)], 1),
    ("solve_triangular", lambda a, b: L.solve_triangular(a, b, lower=False),
     lambda: [_upper(3, np.float64), _normal((3, 2), np.float64)], 2),
    ("det_inv", lambda a: (L.det(a), L.inv(a)), lambda: [_normal((3, 3), np.float64)], 1),
    ("cholesky", lambda a: L.cholesky(a), lambda: [_spd(3, np.float64)], 1),
    ("polar_svd", lambda a: L.polar(a, method="svd")[0], lambda: [_normal((3, 3), np.float64)], 1),
    ("toeplitz_block_diag", lambda c, r: (L.toeplitz(c, r), L.block_diag(c, r)),
     lambda: [_normal(3, np.float64), _normal(4, np.float64)], 1),
]  # fmt: skip


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grads(case, x64):
    _, fun, inputs, order = case
    check_grads(fun, inputs(), order=order, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


def test_positive_definite_solve_differentiates_the_whole_matrix(x64):
    # As JAX's custom_linear_solve: d(a^-1 b)/da = -a^-T g x^T, not only a triangle of it.
    a, b = _spd(3, np.float64), _normal(3, np.float64)
    grad = stablax.grad(lambda m: jnp.sum(L.solve(m, b, assume_a="pos")))(a)
    x = np.linalg.solve(a, b)
    _close(grad, -np.outer(np.linalg.solve(a.T, np.ones(3)), x), 1e-10)


# --- batching and jit -----------------------------------------------------------------------------


BATCHED = [L.expm, lambda a: L.polar(a)[0], lambda a: L.hessenberg(a), L.inv, L.sqrtm]


@pytest.mark.parametrize("fun", BATCHED, ids=["expm", "polar", "hessenberg", "inv", "sqrtm"])
def test_batches_match_a_loop(fun):
    xs = _normal((3, 4, 4), np.float32) + 4 * np.eye(4, dtype=np.float32)
    expected = np.stack([np.asarray(fun(x)) for x in xs])
    _close(stablax.vmap(fun)(xs), expected, 1e-4)
    if fun is not L.sqrtm:  # JAX's sqrtm takes one matrix; the others take stacks
        _close(fun(xs), expected, 1e-4)


def test_eigh_tridiagonal_eigenvectors(x64):
    d, e = _normal(7, np.float64), _normal(6, np.float64, 1)
    w, v = L.eigh_tridiagonal(d, e)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    _close(t @ np.asarray(v), np.asarray(v) * np.asarray(w)[None, :], 1e-8)
    _close(np.asarray(v).T @ np.asarray(v), np.eye(7), 1e-8)


# --- errors ---------------------------------------------------------------------------------------


def test_errors_match_jax():
    with pytest.raises(ValueError, match="Expected 'output'"):
        L.schur(np.eye(3), output="other")
    with pytest.raises(ValueError, match="assume_a"):
        L.solve(np.eye(3), np.ones(3), assume_a="banded")
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode"):
        L.qr(np.eye(3), mode="raw")
    with pytest.raises(NotImplementedError, match="b=None"):
        L.eigh(np.eye(3), np.eye(3))
    with pytest.raises(NotImplementedError, match="Blocked"):
        L.sqrtm(np.eye(3), blocksize=2)
    with pytest.raises(ValueError, match="power of 2"):
        L.hadamard(6)
    with pytest.raises(ValueError, match="square"):
        L.expm(np.ones((2, 3), np.float32))
    with pytest.raises(NotImplementedError, match="select='v'"):
        L.eigh_tridiagonal(np.ones(3, np.float32), np.ones(2, np.float32), select="v")
