"""lax.linalg beyond the op-record rows: the *_p primitives' bind conventions, derivative
cases (wide and full QR, pivoted QR, eig eigenvectors, one-triangle eigh), reconstructions of
the reductions, and JAX's errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import stablax
from stablax._src.lax._linalg_reductions import geqrf
from stablax.lax import linalg
from stablax.test_util import check_grads


def _normal(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _close(actual, expected, tol):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=tol, atol=tol)


def test_primitive_bind_conventions():
    a = _normal((3, 3), np.float32)
    spd = a @ a.T + 3 * np.eye(3, dtype=np.float32)
    factor = linalg.cholesky_p.bind(spd)  # LAPACK leaves the input's upper triangle in place
    _close(np.tril(factor), np.linalg.cholesky(spd), 1e-5)
    _close(np.triu(factor, 1), np.triu(spd, 1), 0)
    s, u, vt = linalg.svd_p.bind(a, full_matrices=False, compute_uv=True, subset_by_index=None,
                                 algorithm=None)  # fmt: skip
    _close((np.asarray(u) * np.asarray(s)) @ np.asarray(vt), a, 1e-5)
    assert linalg.lu_p.multiple_results and not linalg.cholesky_p.multiple_results
    assert [x.shape for x in linalg.lu_p.bind(a)] == [(3, 3), (3,), (3,)]
    assert len(linalg.qr_p.bind(a, pivoting=True, full_matrices=True, use_magma=None)) == 3
    assert repr(linalg.tridiagonal_p) == "tridiagonal"


def test_svd_qr_algorithm_and_enums():
    a = _normal((5, 3), np.float32)
    s = linalg.svd(a, compute_uv=False, algorithm=linalg.SvdAlgorithm.QR)
    _close(s, np.linalg.svd(a, compute_uv=False), 1e-5)
    with pytest.raises(NotImplementedError, match="Jacobi and Polar"):
        linalg.svd(a, algorithm=linalg.SvdAlgorithm.JACOBI)
    with pytest.raises(ValueError, match="cannot both be set"):
        linalg.svd(a, subset_by_index=(0, 1))
    with pytest.raises(NotImplementedError, match="QDWH implementation is only supported on TPU"):
        linalg.eigh(a[:3], implementation=linalg.EighImplementation.QDWH)
    with pytest.raises(ValueError, match="Only the lapack implementation"):
        linalg.eig(a[:3], implementation=linalg.EigImplementation.MAGMA)
    with pytest.warns(DeprecationWarning, match="use_magma is deprecated"):
        linalg.eig(a[:3], use_magma=False)


def test_reductions_reconstruct_their_input():
    a = _normal((4, 4), np.complex64)
    h, taus = linalg.hessenberg(a)
    q = np.asarray(linalg.householder_product(np.asarray(h)[1:, :-1], taus))
    q = sl.block_diag(np.eye(1), q)
    _close(q @ np.triu(np.asarray(h), -1) @ q.conj().T, a, 1e-5)
    herm = a + a.conj().T
    packed, d, e, taus = linalg.tridiagonal(herm)
    t = np.diag(np.asarray(d)) + np.diag(np.asarray(e), -1) + np.diag(np.asarray(e), 1)
    _close(np.linalg.eigvalsh(t), np.linalg.eigvalsh(herm), 1e-4)
    t_form, z = linalg.schur(a)
    _close(np.asarray(z) @ np.asarray(t_form) @ np.asarray(z).conj().T, a, 1e-5)


def test_triangular_solve_accepts_vectors(x64):
    a = np.triu(_normal((3, 3))) + 3 * np.eye(3)
    b = _normal(3)
    _close(linalg.triangular_solve(a, b, left_side=True), np.linalg.solve(a, b), 1e-12)
    _close(linalg.triangular_solve(a, b, left_side=False), np.linalg.solve(a.T, b), 1e-12)


@pytest.mark.parametrize(
    "shape,full_matrices,pivoting",
    [((5, 3), False, False), ((5, 3), True, False), ((3, 5), False, False), ((4, 3), False, True),
     ((3, 4), True, True)],
)  # fmt: skip
def test_qr_derivatives(shape, full_matrices, pivoting, x64):
    def f(x):
        return linalg.qr(x, full_matrices=full_matrices, pivoting=pivoting)[:2]

    check_grads(f, (_normal(shape),), order=1, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


def test_eig_eigenvector_derivatives(x64):
    a = _normal((3, 3)) + np.diag([0.0, 3.0, 6.0])  # distinct real eigenvalues

    def vectors(x):
        w, v = linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
        return w, v

    check_grads(vectors, (a,), order=1, modes=("fwd",), atol=1e-6, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        stablax.jvp(lambda x: linalg.eig(x)[1], (a,), (a,))


def test_one_triangle_derivatives(x64):
    # eigh reading the upper triangle, and unit-diagonal upper triangular solves.
    a = _normal((3, 3))
    check_grads(lambda x: linalg.eigh(x, lower=False, symmetrize_input=False)[1], (a,), order=1)
    b = _normal((3, 2))
    check_grads(
        lambda x, y: linalg.triangular_solve(x, y, left_side=True, unit_diagonal=True),
        (a, b),
        order=1,
    )


def test_tridiagonal_solve_perturbed_is_finite_on_singular_systems():
    zeros = np.zeros(4, np.float32)
    b = _normal((4, 1), np.float32)
    assert np.isnan(np.asarray(linalg.tridiagonal_solve(zeros, zeros, zeros, b))).all()
    x = linalg.tridiagonal_solve(zeros, zeros, zeros, b, perturb_singular=True)
    assert np.isfinite(np.asarray(x)).all()


def test_errors_match_jax():
    with pytest.raises(ValueError, match="M >= N"):
        linalg.qdwh(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="at least as many rows"):
        linalg.householder_product(np.ones((2, 3), np.float32), np.ones(2, np.float32))
    with pytest.raises(NotImplementedError, match="sort feature"):
        linalg.schur(np.eye(3, dtype=np.float32), sort_eig_vals=True)
    with pytest.raises(ValueError, match="Rank-1 update"):
        linalg.cholesky_update(np.eye(3, dtype=np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="symmetric_product"):
        linalg.symmetric_product(np.ones((2, 3), np.float32), np.ones((3, 3), np.float32))
    # alpha and beta are scalars, checked before the shapes (JAX: a TypeError for any unhashable
    # parameter; fuzz seed 3812 passed alpha=[0, 6, 6, 5, 7] with mismatched shapes)
    with pytest.raises(TypeError, match="alpha must be a scalar, got list of shape"):
        linalg.symmetric_product(np.ones((2, 5), np.float32), np.ones((2, 5)), alpha=[0, 6])
    with pytest.raises(TypeError, match="beta must be a scalar, got ndarray of shape"):
        linalg.symmetric_product(np.ones((2, 5), np.float32), np.ones((2, 2)), beta=np.ones(2))
    with pytest.raises(TypeError, match="tridiagonal_solve"):
        linalg.tridiagonal_solve(*[np.ones(3, np.float32)] * 3, np.ones((4, 1), np.float32))
    with pytest.raises(ValueError, match="ormqr"):
        linalg.ormqr(
            np.ones((3, 2), np.float32), np.ones(2, np.float32), np.ones((4, 2), np.float32)
        )


@pytest.mark.parametrize(
    "name,fun",
    [
        ("geqrf", lambda x: geqrf(x)[0]),
        ("hessenberg", lambda x: linalg.hessenberg(x)[0]),
        ("householder_product", lambda x: linalg.householder_product(x, x[0])),
        ("ormqr", lambda x: linalg.ormqr(x, x[0], x)),
        ("schur", lambda x: linalg.schur(x)[0]),
        ("tridiagonal", lambda x: linalg.tridiagonal(x)[1]),
    ],
)
def test_reductions_without_derivatives_raise(name, fun):
    # JAX has no jvp rule for these: differentiating one is its NotImplementedError.
    x = _normal((3, 3), np.float32)
    with pytest.raises(
        NotImplementedError, match=f"Differentiation rule for '{name}' not implemented"
    ):
        stablax.jvp(fun, (x,), (x,))
