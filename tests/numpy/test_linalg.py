"""jnp.linalg against NumPy: values (float32, complex64, x64), jit, a few gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax.test_util import check_grads

L = jnp.linalg


def _rng(seed=0):
    return np.random.default_rng(seed)


def _general(shape, dtype=np.float32, seed=0):
    rng = _rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _spd(shape, dtype=np.float32):
    x = _general(shape, dtype)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def _close(actual, expected, tol):
    actual = np.asarray(actual)
    assert actual.shape == np.shape(expected)
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


DTYPES = [np.float32, np.complex64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_square_functions(shape, dtype):
    a = _general(shape, dtype)
    _close(L.det(a), np.linalg.det(a), 1e-4)
    sign, logdet = L.slogdet(a)
    expected = np.linalg.slogdet(a)
    _close(sign, expected.sign, 1e-4)
    _close(logdet, expected.logabsdet, 1e-4)
    _close(L.inv(a), np.linalg.inv(a), 1e-3)
    _close(L.matrix_power(a, 3), np.linalg.matrix_power(a, 3), 1e-3)
    _close(L.matrix_power(a, -2), np.linalg.matrix_power(a, -2), 1e-2)
    _close(L.matrix_power(a, 0), np.linalg.matrix_power(a, 0), 0)
    spd = _spd(shape, dtype)
    _close(L.cholesky(spd), np.linalg.cholesky(spd), 1e-4)
    _close(L.cholesky(spd, upper=True), np.conj(np.swapaxes(np.linalg.cholesky(spd), -1, -2)), 1e-4)
    _close(L.eigvalsh(spd), np.linalg.eigvalsh(spd), 1e-3)
    w, v = L.eigh(spd)
    _close(np.asarray(spd) @ np.asarray(v), np.asarray(v) * np.asarray(w)[..., None, :], 1e-3)
    w, v = L.eig(a)
    _close(a @ np.asarray(v), np.asarray(v) * np.asarray(w)[..., None, :], 1e-3)
    _close(np.sort_complex(np.asarray(L.eigvals(a))), np.sort_complex(np.linalg.eigvals(a)), 1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 4)])
def test_rectangular_functions(shape, dtype):
    a = _general(shape, dtype)
    _close(L.svdvals(a), np.linalg.svd(a, compute_uv=False), 1e-4)
    u, s, vh = L.svd(a, full_matrices=False)
    _close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), a, 1e-4)
    u, s, vh = L.svd(a)
    assert u.shape == shape[:-1] + (shape[-2],) and vh.shape == shape[:-2] + (shape[-1],) * 2
    for mode in ("reduced", "complete"):
        q, r = L.qr(a, mode=mode)
        _close(np.asarray(q) @ np.asarray(r), a, 1e-4)
        _close(np.asarray(r), np.triu(np.asarray(r)), 0)
    _close(L.qr(a, mode="r"), np.asarray(L.qr(a).R), 0)
    _close(L.pinv(a), np.linalg.pinv(a), 1e-3)
    _close(L.matrix_rank(a), np.linalg.matrix_rank(a), 0)
    _close(L.cond(a), np.linalg.cond(a), 1e-2)


def test_solve_lstsq_and_batching():
    a = _general((2, 4, 4))
    b = _general((2, 4, 3), seed=1)
    _close(L.solve(a, b), np.linalg.solve(a, b), 1e-3)
    _close(L.solve(a, b[0, :, 0]), np.linalg.solve(a, b[0, :, 0][None, :, None])[..., 0], 1e-3)
    _close(L.solve(a[0], b), np.linalg.solve(a[0], b), 1e-3)  # a broadcasts
    m = _general((6, 3), seed=2)
    y = _general((6,), seed=3)
    x, resid, rank, s = L.lstsq(m, y)
    ex, eresid, erank, es = np.linalg.lstsq(m, y, rcond=None)
    _close(x, ex, 1e-4)
    _close(resid, eresid, 1e-3)
    assert int(rank) == erank
    _close(s, es, 1e-4)


@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 0, 3, -1])
def test_vector_norms(ord):
    x = _general((2, 5))
    _close(L.norm(x[0], ord), np.linalg.norm(x[0], ord), 1e-5)
    _close(L.norm(x, ord, axis=1), np.linalg.norm(x, ord, axis=1), 1e-5)
    _close(
        L.vector_norm(x, axis=0, ord=2 if ord is None else ord),
        np.linalg.norm(x, 2 if ord is None else ord, axis=0),
        1e-5,
    )


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norms(ord):
    x = _general((2, 3, 4), np.complex64)
    _close(L.norm(x, ord, axis=(1, 2)), np.linalg.norm(x, ord, axis=(1, 2)), 1e-4)
    _close(
        L.norm(x, ord, axis=(2, 0), keepdims=True),
        np.linalg.norm(x, ord, axis=(2, 0), keepdims=True),
        1e-4,
    )
    if ord is not None:
        _close(L.matrix_norm(x, ord=ord), np.linalg.matrix_norm(x, ord=ord), 1e-4)


def test_products_and_helpers():
    rng = _rng(4)
    mats = [rng.standard_normal(s).astype(np.float32) for s in [(5,), (5, 2), (2, 6), (6,)]]
    _close(L.multi_dot(mats), np.linalg.multi_dot(mats), 1e-4)
    t = rng.standard_normal((4, 2, 8)).astype(np.float32)
    _close(L.tensorinv(t, ind=2), np.linalg.tensorinv(t, ind=2), 1e-3)
    t = rng.standard_normal((2, 4, 8)).astype(np.float32)
    b = rng.standard_normal((2, 4)).astype(np.float32)
    _close(L.tensorsolve(t, b), np.linalg.tensorsolve(t, b), 1e-3)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    _close(L.diagonal(x, offset=1), np.diagonal(x, 1, -2, -1), 0)
    _close(L.trace(x, offset=-1), np.trace(x, -1, -2, -1), 1e-6)
    _close(L.matrix_transpose(x), np.swapaxes(x, -1, -2), 0)
    _close(L.cross(x[0, :, :3], x[1, :, :3]), np.cross(x[0, :, :3], x[1, :, :3]), 1e-6)
    _close(L.vecdot(x, x), np.sum(x * x, -1), 1e-5)
    _close(L.outer(x[0, 0], x[0, 1]), np.outer(x[0, 0], x[0, 1]), 1e-6)


def test_dtypes_and_x64(x64):
    # JAX's rule: integers of up to 32 bits compute in float32, 64-bit ones in float64.
    assert L.det(np.eye(3, dtype=np.int32)).dtype == np.float32
    assert L.det(np.eye(3, dtype=np.int64)).dtype == np.float64
    a = _general((3, 3), np.float64)
    _close(L.inv(a), np.linalg.inv(a), 1e-10)
    _close(
        L.eigvalsh(_spd((3, 3), np.complex128)),
        np.linalg.eigvalsh(_spd((3, 3), np.complex128)),
        1e-10,
    )
    _close(L.svdvals(a), np.linalg.svd(a, compute_uv=False), 1e-10)


def test_integer_inputs_default_to_float32():
    assert L.det(np.eye(2, dtype=np.int32)).dtype == np.float32
    assert L.matrix_rank(np.eye(3)).dtype == np.int32
    assert L.norm(np.eye(3, dtype=np.int32)).dtype == np.float32


def test_jit_matches_eager():
    a = _general((2, 3, 3))
    f = stablax.jit(lambda m: (L.det(m), L.inv(m), L.svd(m, compute_uv=False)))
    for got, want in zip(f(a), (L.det(a), L.inv(a), L.svdvals(a)), strict=True):
        _close(got, np.asarray(want), 1e-5)


def test_singular_matrices():
    z = np.zeros((3, 3), np.float32)
    assert float(L.det(z)) == 0.0
    sign, logdet = L.slogdet(z)
    assert float(sign) == 0.0 and float(logdet) == -np.inf
    assert float(L.cond(z)) == np.inf
    # As JAX: a failed factor is NaN on and below the diagonal, zero above.
    failed = np.asarray(L.cholesky(-np.eye(2, dtype=np.float32)))
    assert np.isnan(np.tril(failed)[np.tril_indices(2)]).all() and failed[0, 1] == 0


def test_composite_gradients(x64):
    a = _general((3, 3), np.float64) + 3 * np.eye(3)
    spd = _spd((3, 3), np.float64)
    b = _general((3, 2), np.float64, seed=5)
    check_grads(L.det, (a,), order=1)
    check_grads(lambda m: L.slogdet(m).logabsdet, (a,), order=1)
    check_grads(L.inv, (a,), order=1)
    check_grads(L.solve, (a, b), order=1)
    check_grads(L.pinv, (b,), order=1)
    check_grads(lambda m: L.norm(m, 2), (b,), order=1)
    check_grads(lambda m: L.norm(m, "nuc"), (b,), order=1)
    check_grads(lambda m: L.eigvalsh(m), (spd,), order=1)
    check_grads(lambda m: L.matrix_power(m, 3), (a,), order=1)
    check_grads(lambda m: L.lstsq(m, b[:, 0])[0], (a,), order=1)
    check_grads(L.eigvals, (a,), order=1)


def test_vmap_matches_loop():
    xs = _general((3, 4, 4))
    for f in (L.det, L.inv, lambda m: L.svd(m, compute_uv=False), lambda m: L.norm(m, 2)):
        expected = np.stack([np.asarray(f(x)) for x in xs])
        _close(stablax.vmap(f)(xs), expected, 1e-4)
        _close(stablax.vmap(f, in_axes=2)(np.moveaxis(xs, 0, 2)), expected, 1e-4)


def test_errors_name_the_function_and_the_line():
    with pytest.raises(ValueError, match=r"jnp.linalg.inv: .*\(2, 3\).*test_linalg.py"):
        L.inv(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match=r"jnp.linalg.cholesky"):
        L.cholesky(np.ones((3,), np.float32))
    with pytest.raises(ValueError, match=r"jnp.linalg.solve: incompatible shapes"):
        L.solve(np.eye(3, dtype=np.float32), np.ones((4,), np.float32))
    with pytest.raises(ValueError, match=r"lax.linalg.triangular_solve: .*test_linalg.py"):
        stablax.lax.linalg.triangular_solve(
            np.eye(3, dtype=np.float32), np.ones((2, 3), np.float32), left_side=True
        )
    with pytest.raises(TypeError, match=r"lax.linalg.cholesky: expected float32"):
        stablax.lax.linalg.cholesky(np.eye(3, dtype=np.float16))
    with pytest.raises(NotImplementedError, match="full_matrices"):
        stablax.grad(lambda m: stablax.lax.linalg.svd(m)[0].sum())(np.ones((3, 2), np.float32))


def _permutation_reference(pivots: np.ndarray, size: int) -> np.ndarray:
    out = np.broadcast_to(np.arange(size, dtype=np.int32), (*pivots.shape[:-1], size)).copy()
    for index in np.ndindex(pivots.shape[:-1]):
        for i, j in enumerate(pivots[index]):
            out[index][[i, j]] = out[index][[j, i]]
    return out


@pytest.mark.parametrize("batch, k, size", [((), 4, 4), ((), 3, 6), ((2, 3), 5, 5), ((2,), 0, 3)])
def test_lu_pivots_to_permutation_matches_swapping_in_numpy(batch, k, size):
    rng = np.random.default_rng(k + size)
    pivots = np.zeros((*batch, k), np.int32)
    for i in range(k):  # LAPACK's pivots: row i swaps with a row at or below it
        pivots[..., i] = rng.integers(i, size, size=batch)
    expected = _permutation_reference(pivots, size)
    lu_perm = stablax.lax.linalg.lu_pivots_to_permutation
    np.testing.assert_array_equal(np.asarray(lu_perm(jnp.asarray(pivots), size)), expected)
    if batch:
        batched = stablax.vmap(lambda p: lu_perm(p, size))(jnp.asarray(pivots))
        np.testing.assert_array_equal(np.asarray(batched), expected)


def test_lu_permutation_is_a_loop_not_unrolled_steps():
    # An unrolled swap per pivot made a 500x500 solve take 24 s to trace and compile.
    text = stablax.jit(lambda a: stablax.lax.linalg.lu(a)[2]).lower(jnp.ones((300, 300))).as_text()
    assert "stablehlo.while" in text
    assert text.count("stablehlo.select") < 20


@pytest.mark.parametrize("precision", [None, "highest", stablax.lax.Precision.HIGHEST])
def test_vdot_precision_and_preferred_element_type(precision):
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(np.complex64)
    b = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(np.complex64)
    got = jnp.vdot(a, b, precision=precision)
    np.testing.assert_allclose(np.asarray(got), np.vdot(a, b), rtol=1e-5)
    ints = jnp.vdot(
        np.arange(4, dtype=np.int8), np.arange(4, dtype=np.int8), preferred_element_type=np.int32
    )
    assert ints.dtype == np.int32 and int(ints) == 14


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (0, 0)])
def test_slogdet_qr(shape):
    """method='qr' (Householder QR, each reflection flipping the sign) agrees with NumPy."""
    a = _general(shape)
    sign, logdet = L.slogdet(a, method="qr")
    expected = np.linalg.slogdet(a)
    _close(sign, expected.sign, 0)
    _close(logdet, expected.logabsdet, 1e-4)
    # A permutation's determinant is its parity: the reflections' signs must count.
    swap = np.eye(3, dtype=np.float32)[[1, 0, 2]]
    assert float(L.slogdet(swap, method="qr").sign) == -1.0
    batched = stablax.vmap(lambda m: L.slogdet(m, method="qr"))(_general((3, 2, 2)))
    _close(batched.logabsdet, np.linalg.slogdet(_general((3, 2, 2))).logabsdet, 1e-4)
    singular = L.slogdet(np.zeros((2, 2), np.float32), method="qr")
    assert (float(singular.sign), float(singular.logabsdet)) == (0.0, -np.inf)


def test_slogdet_qr_gradient_and_errors(x64):
    a = _general((3, 3), np.float64) + 3 * np.eye(3)
    check_grads(lambda m: L.slogdet(m, method="qr").logabsdet, (a,), order=1)
    with pytest.raises(NotImplementedError):  # JAX's class: no complex QR slogdet
        L.slogdet(np.eye(2, dtype=np.complex64), method="qr")
    with pytest.raises(ValueError, match="methods are 'lu'"):
        L.slogdet(np.eye(2), method="cholesky")


def test_pinv_rtol_must_broadcast_to_the_batch():
    # NumPy refuses it too; JAX 0.10.2 returns zeros of shape (3, 4, 1, 3) for it.
    with pytest.raises(ValueError, match=r"jnp.linalg.pinv: rtol of shape \(4,\) does not"):
        L.pinv(jnp.ones((3, 1, 3, 1)), rtol=jnp.ones(4))
    assert L.pinv(jnp.ones((3, 1, 3, 1)), rtol=jnp.ones((3, 1))).shape == (3, 1, 1, 3)
