"""Op records for lax.linalg: cholesky, lu, qr, eigh, svd and triangular_solve.

Decompositions unique only up to signs are compared after fixing the signs (first row of
eigen/singular vectors nonnegative, R's diagonal positive), which is smooth where they are unique.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from stablax import lax
from stablax import numpy as jnp
from stablax.lax import linalg
from tests.op_record import C64, F32, F64, OpRecord

# Small shapes keep the second-order float64 gradient checks of the shared tests affordable.
SQUARE = [((2, 3, 3),)]
RECT = [((4, 3),), ((2, 2, 3),)]
DTYPES, X64 = (F32, C64), (F64,)


def _randn(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x


def positive_definite(rng, shape, dtype):
    x = _randn(rng, shape, dtype)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def hermitian(rng, shape, dtype):
    x = _randn(rng, shape, dtype)
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2).astype(dtype)


def general(rng, shape, dtype):
    return _randn(rng, shape, dtype).astype(dtype)


def lower_triangular(rng, shape, dtype):
    # Well conditioned: a dominant diagonal.
    diagonal = np.eye(shape[-1]) * rng.uniform(2.0, 3.0, (*shape[:-1], 1))
    return (0.5 * np.tril(_randn(rng, shape, dtype), -1) + diagonal).astype(dtype)


def _stacked(fn):
    def reference(x, *rest):
        if x.ndim == 2:
            return fn(x, *rest)
        return np.stack([reference(x[i], *(r[i] for r in rest)) for i in range(x.shape[0])])

    return reference


def _fix_columns_np(v):
    # Phases making the first row of v real and nonnegative.
    first = v[..., :1, :]
    return v / (first / np.where(np.abs(first) == 0, 1, np.abs(first)))


def _fix_columns(v):
    first = lax.slice_in_dim(v, 0, 1, axis=v.ndim - 2)
    magnitude = jnp.abs(first)
    phase = first / jnp.where(magnitude == 0, 1, magnitude).astype(v.dtype)
    return v / phase


def _qr_reference(output):
    def one(x):
        q, r = np.linalg.qr(x)
        d = np.diagonal(r)
        phase = d / np.abs(d)
        return (q * np.conj(phase)[None, :]) if output == 0 else (r * phase[:, None])

    return _stacked(one)


def _qr_output(output):
    def fun(x):
        q, r = linalg.qr(x, full_matrices=False)
        d = jnp.linalg.diagonal(r)
        phase = d / jnp.abs(d).astype(d.dtype)
        if output == 0:
            return q * lax.expand_dims(jnp.conj(phase), (phase.ndim - 1,))
        return r * lax.expand_dims(phase, (phase.ndim,))

    return fun


def _lu_reference(x):
    return scipy.linalg.lu_factor(x)[0]


def _triangular_solve_reference(**kw):
    def one(a, b):
        trans = 2 if kw.get("conjugate_a") else (1 if kw.get("transpose_a") else 0)
        if kw.get("left_side"):
            return scipy.linalg.solve_triangular(a, b, trans=trans, lower=kw["lower"])
        # x op(a) = b  <=>  op(a)^T x^T = b^T
        flipped = {0: 1, 1: 0, 2: None}[trans]
        if flipped is None:
            return scipy.linalg.solve_triangular(np.conj(a), b.T, trans=0, lower=kw["lower"]).T
        return scipy.linalg.solve_triangular(a, b.T, trans=flipped, lower=kw["lower"]).T

    return _stacked(one)


def _ts_record(name, b_shapes, **kw):
    return OpRecord(
        name,
        lambda a, b: linalg.triangular_solve(a, b, **kw),
        _triangular_solve_reference(**kw),
        b_shapes,
        DTYPES,
        [lower_triangular if kw["lower"] else _upper, general],
        tol=1e-4,
        x64_dtypes=X64,
    )


def _upper(rng, shape, dtype):
    return np.swapaxes(lower_triangular(rng, shape, dtype), -1, -2).copy()


RECORDS = [
    OpRecord(
        "linalg_cholesky",
        linalg.cholesky,
        _stacked(np.linalg.cholesky),
        SQUARE,
        DTYPES,
        positive_definite,
        tol=1e-4,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_lu_factors",
        lambda x: linalg.lu(x)[0],
        _stacked(_lu_reference),
        [*SQUARE, *RECT],
        DTYPES,
        general,
        tol=1e-4,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_lu_permutation",
        lambda x: linalg.lu(x)[2],
        _stacked(lambda x: scipy.linalg.lu(x)[0].T.argmax(-1).astype(np.int32)),
        [*SQUARE, *RECT],
        (F32,),
        general,
        exact=True,
        differentiable=False,
    ),
    OpRecord(
        "linalg_qr_q",
        _qr_output(0),
        _qr_reference(0),
        [((4, 3),)],
        DTYPES,
        general,
        tol=1e-4,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_qr_r", _qr_output(1), _qr_reference(1), [((4, 3),)], DTYPES, general, tol=1e-4
    ),
    OpRecord(
        "linalg_eigh_values",
        lambda x: linalg.eigh(x)[1],
        np.linalg.eigvalsh,
        SQUARE,
        DTYPES,
        hermitian,
        tol=1e-4,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_eigh_vectors",
        lambda x: _fix_columns(linalg.eigh(x)[0]),
        lambda x: _fix_columns_np(np.linalg.eigh(x)[1]),
        SQUARE,
        DTYPES,
        hermitian,
        tol=1e-3,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_svd_values",
        lambda x: linalg.svd(x, compute_uv=False),
        lambda x: np.linalg.svd(x, compute_uv=False),
        [*SQUARE, *RECT],
        DTYPES,
        general,
        tol=1e-4,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_svd_u",
        lambda x: _fix_columns(linalg.svd(x, full_matrices=False)[0]),
        lambda x: _fix_columns_np(np.linalg.svd(x, full_matrices=False)[0]),
        RECT,
        DTYPES,
        general,
        tol=1e-3,
        x64_dtypes=X64,
    ),
    _ts_record(
        "linalg_triangular_solve_left_lower", [((2, 3, 3), (2, 3, 2))], left_side=True, lower=True
    ),
    _ts_record(
        "linalg_triangular_solve_right_upper_t",
        [((3, 3), (2, 3))],
        left_side=False,
        lower=False,
        transpose_a=True,
    ),
    _ts_record(
        "linalg_triangular_solve_left_upper_h",
        [((3, 3), (3, 2))],
        left_side=True,
        lower=False,
        transpose_a=True,
        conjugate_a=True,
    ),
]


# --- reductions, Householder products and composites (lax.linalg beyond the decompositions) ----


def _lapack(name, *arrays):
    return scipy.linalg.get_lapack_funcs((name,), arrays)[0]


def _hessenberg_reference(x):
    return np.triu(scipy.linalg.hessenberg(x), -1)


def _tridiagonal_reference(output):
    def one(x):
        routine = "hetrd" if np.iscomplexobj(x) else "sytrd"
        return _lapack(routine, x)(x, lower=1)[output]

    return _stacked(one)


def _schur_reference(x):
    return scipy.linalg.schur(x, output="complex" if np.iscomplexobj(x) else "real")[0]


def _packed_qr(rng, shape, dtype):
    # LAPACK's packed QR of a random matrix: reflectors below the diagonal, taus beside.
    x = general(rng, shape, dtype)
    return np.stack(
        [scipy.linalg.qr(m, mode="raw")[0][0] for m in x.reshape(-1, *shape[-2:])]
    ).reshape(shape)


def _taus(rng, shape, dtype):
    # Valid scalar factors: tau = 2 / |v|^2 for the unit-leading reflectors of a random matrix.
    return rng.uniform(1.0, 1.9, shape).astype(dtype)


def _orgqr_reference(a, taus):
    def one(a, t):
        routine = "ungqr" if np.iscomplexobj(a) else "orgqr"
        return _lapack(routine, a)(a, t)[0]

    return _stacked(one)(a, taus)


def _ormqr_reference(left, transpose):
    def one(a, t, c):
        routine = "unmqr" if np.iscomplexobj(a) else "ormqr"
        trans = ("C" if np.iscomplexobj(a) else "T") if transpose else "N"
        return _lapack(routine, a)("L" if left else "R", trans, a, t, c, max(c.shape) * 64)[0]

    return _stacked(one)


def _tridiagonal_solve_reference(dl, d, du, b):
    if d.ndim > 1:
        return np.stack(
            [_tridiagonal_solve_reference(*(v[i] for v in (dl, d, du, b))) for i in range(len(d))]
        )
    a = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    return np.linalg.solve(a, b)


def _dominant(rng, shape, dtype):
    return (general(rng, shape, dtype) + 4.0).astype(dtype)


def _cholesky_update_reference(r, w):
    return np.linalg.cholesky(r.T @ r + np.outer(w, w)).T


def _upper_cholesky(rng, shape, dtype):
    return np.linalg.cholesky(positive_definite(rng, shape, dtype)).T.astype(dtype)


def _polar_reference(x):
    return scipy.linalg.polar(x)[0]


RECORDS += [
    OpRecord(
        "linalg_hessenberg",
        lambda x: jnp.triu(linalg.hessenberg(x)[0], -1),
        _stacked(_hessenberg_reference),
        SQUARE,
        DTYPES,
        general,
        tol=1e-4,
        differentiable=False,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_tridiagonal_d",
        lambda x: linalg.tridiagonal(x)[1],
        _tridiagonal_reference(1),
        SQUARE,
        DTYPES,
        hermitian,
        tol=1e-4,
        differentiable=False,
    ),
    OpRecord(
        "linalg_tridiagonal_taus",
        lambda x: linalg.tridiagonal(x, lower=False)[3],
        _stacked(lambda x: _lapack("hetrd" if np.iscomplexobj(x) else "sytrd", x)(x, lower=0)[3]),
        SQUARE,
        DTYPES,
        hermitian,
        tol=1e-4,
        differentiable=False,
    ),
    OpRecord(
        "linalg_schur_t",
        lambda x: linalg.schur(x)[0],
        _stacked(_schur_reference),
        SQUARE,
        DTYPES,
        general,
        tol=1e-3,
        differentiable=False,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_householder_product",
        linalg.householder_product,
        _orgqr_reference,
        [((4, 3), (3,)), ((2, 3, 3), (2, 2))],
        DTYPES,
        [_packed_qr, _taus],
        tol=1e-4,
        differentiable=False,
    ),
    OpRecord(
        "linalg_ormqr_left_transpose",
        lambda a, t, c: linalg.ormqr(a, t, c, left=True, transpose=True),
        _ormqr_reference(True, True),
        [((4, 3), (3,), (4, 2))],
        DTYPES,
        [_packed_qr, _taus, general],
        tol=1e-4,
        differentiable=False,
    ),
    OpRecord(
        "linalg_ormqr_right",
        lambda a, t, c: linalg.ormqr(a, t, c, left=False),
        _ormqr_reference(False, False),
        [((2, 3, 3), (2, 3), (2, 2, 3))],
        DTYPES,
        [_packed_qr, _taus, general],
        tol=1e-4,
        differentiable=False,
    ),
    OpRecord(
        "linalg_tridiagonal_solve",
        linalg.tridiagonal_solve,
        _tridiagonal_solve_reference,
        [((5,), (5,), (5,), (5, 2)), ((2, 4), (2, 4), (2, 4), (2, 4, 3))],
        DTYPES,
        [general, _dominant, general, general],
        tol=1e-4,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_cholesky_update",
        linalg.cholesky_update,
        _cholesky_update_reference,
        [((4, 4), (4,))],
        (F32,),
        [_upper_cholesky, general],
        tol=1e-4,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_symmetric_product",
        lambda a, c: linalg.symmetric_product(a, c, alpha=2.0, beta=0.5, symmetrize_output=True),
        lambda a, c: 2.0 * a @ np.swapaxes(a, -1, -2) + 0.5 * c,
        [((3, 2), (3, 3)), ((2, 3, 4), (2, 3, 3))],
        (F32,),
        [general, hermitian],
        tol=1e-5,
        x64_dtypes=X64,
    ),
    OpRecord(
        "linalg_qdwh_u",
        lambda x: linalg.qdwh(x)[0],
        _polar_reference,
        [((5, 3),), ((4, 4),)],
        DTYPES,
        general,
        tol=1e-4,
        differentiable=False,
        x64_dtypes=X64,
    ),
]
