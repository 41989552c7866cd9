"""The jvp rules of the decompositions of `_linalg`: the classical forward-mode formulas (distinct
eigen/singular values assumed), written with lax functions so that they are themselves
differentiable and batchable."""

from __future__ import annotations

import numpy as np

from stablax._src.dispatch import bind
from stablax._src.ir import where_suffix
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._linalg_markers import CHOLESKY, EIG, EIGH, LU, QR, SVD
from stablax._src.lax._linalg_solve import lu_pivots_to_permutation, triangular_solve
from stablax._src.lax._reduce_monoids import reduce_sum
from stablax._src.lax._reductions import argmax
from stablax._src.lax._shapes import broadcast_in_dim, broadcasted_iota, full
from stablax._src.lax._slice_pad import concatenate, pad
from stablax._src.lax._slice_pad import slice as lax_slice


def _scale(x, value):
    return ew.mul(x, full(u.shape(x), value, u.dtype(x)))


def _hermitian_from_triangle(dx, lower: bool):
    # The kernels read one triangle (and a real diagonal): the tangent of the matrix they see.
    strict = u.tril(dx, -1) if lower else u.triu(dx, 1)
    diagonal = ew.sub(u.tril(dx), u.tril(dx, -1))
    if u.is_complex(dx):
        diagonal = u.cast(unary.real(diagonal), u.dtype(dx))
    return ew.add(ew.add(strict, u.H(strict)), diagonal)


# --- cholesky ----------------------------------------------------------------------------------


def _cholesky_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    factor = bind(CHOLESKY, x)
    sigma = _hermitian_from_triangle(dx, lower=True)
    # dL = L phi(L^-1 dA L^-H), phi = lower triangle with the diagonal halved.
    right = triangular_solve(
        factor, sigma, left_side=False, lower=True, transpose_a=True, conjugate_a=True
    )
    inner = triangular_solve(factor, right, left_side=True, lower=True)
    n = u.shape(x)[-1]
    half_diagonal = _scale(ew.mul(inner, u.eye(n, u.dtype(x), u.shape(x)[:-2])), 0.5)
    return factor, u.matmul(factor, ew.add(u.tril(inner, -1), half_diagonal))


# --- lu ----------------------------------------------------------------------------------------


def _lu_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    factors, pivots = bind(LU, x)
    *batch, m, n = u.shape(x)
    k, dt, nd = min(m, n), u.dtype(x), len(u.shape(x))
    batch = tuple(batch)
    permutation = lu_pivots_to_permutation(pivots, m)
    dx = u.permute_rows(dx, permutation)
    zero = full((), 0, dt)
    lower = u.tril(lax_slice(factors, (0,) * nd, (*batch, m, k)), -1)
    lower = ew.add(pad(lower, zero, [(0, 0, 0)] * (nd - 1) + [(0, m - k, 0)]), u.eye(m, dt, batch))
    upper = pad(
        u.triu(lax_slice(factors, (0,) * nd, (*batch, k, n))),
        zero,
        [(0, 0, 0)] * (nd - 2) + [(0, n - k, 0), (0, 0, 0)],
    )
    if n > k:  # a unit diagonal below the k rows of U makes it square and invertible
        upper = ew.add(
            upper,
            ew.sub(
                u.eye(n, dt, batch),
                pad(
                    u.eye(k, dt, batch),
                    zero,
                    [(0, 0, 0)] * (nd - 2) + [(0, n - k, 0), (0, n - k, 0)],
                ),
            ),
        )
    la = triangular_solve(lower, dx, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(upper, la, left_side=False, lower=False)
    d_factors = ew.add(u.matmul(lower, u.tril(lau, -1)), u.matmul(u.triu(lau), upper))
    return (factors, pivots), (d_factors, None)


# --- qr ----------------------------------------------------------------------------------------


def _thin_qr_jvp(q, r, dx):
    # m >= n, reduced Q (m, n) and square R (n, n).
    n = u.shape(r)[-1]
    dx_rinv = triangular_solve(r, dx, left_side=False, lower=False)  # dx r^-1
    qt_dx_rinv = u.matmul(u.H(q), dx_rinv)
    lower = u.tril(qt_dx_rinv, -1)
    omega = ew.sub(lower, u.H(lower))  # skew-Hermitian part of Q^H dQ
    if u.is_complex(q):  # the imaginary part of its diagonal
        imag_diagonal = ew.sub(qt_dx_rinv, u.cast(unary.real(qt_dx_rinv), u.dtype(q)))
        omega = ew.add(omega, ew.mul(imag_diagonal, u.eye(n, u.dtype(q), u.shape(q)[:-2])))
    dq = ew.add(u.matmul(q, ew.sub(omega, qt_dx_rinv)), dx_rinv)
    dr = u.matmul(ew.sub(qt_dx_rinv, omega), r)
    return dq, dr


def _columns(x, start, stop):
    nd = len(u.shape(x))
    return lax_slice(x, (0,) * (nd - 1) + (start,), (*u.shape(x)[:-1], stop))


def _rows(x, start, stop):
    nd = len(u.shape(x))
    shp = u.shape(x)
    return lax_slice(x, (0,) * (nd - 2) + (start, 0), (*shp[:-2], stop, shp[-1]))


def _qr_jvp(primals, tangents, *, full_matrices, pivoting):
    (x,), (dx,) = primals, tangents
    outs = bind(QR, x, full_matrices=full_matrices, pivoting=pivoting)
    q, r = outs[0], outs[1]
    m, n = u.shape(x)[-2:]
    nd = len(u.shape(x))
    if pivoting:  # dx[..., p]: the permuted columns
        dx = u.mT(u.permute_rows(u.mT(dx), outs[2]))
    extra = (None,) if pivoting else ()
    if m < n:  # X = [X1 X2] = Q [R1 R2]: square QR of X1, and R2 = Q^H X2
        x2 = _columns(u.mT(u.permute_rows(u.mT(x), outs[2])) if pivoting else x, m, n)
        dq, dr1 = _thin_qr_jvp(q, _columns(r, 0, m), _columns(dx, 0, m))
        dr2 = ew.add(u.matmul(u.H(dq), x2), u.matmul(u.H(q), _columns(dx, m, n)))
        return outs, (dq, concatenate([dr1, dr2], nd - 1), *extra)
    q_mn = _columns(q, 0, n) if full_matrices else q
    r_nn = _rows(r, 0, n) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return outs, (dq_mn, dr_nn, *extra)
    # The completing columns of a full Q (arXiv:2409.13374, eqs. 32-33).
    dt, batch = u.dtype(x), u.shape(x)[:-2]
    q_nn, q_pn, q_mp = _rows(q_mn, 0, n), _rows(q_mn, n, m), _columns(q, n, m)
    dq_nn, dq_pn = _rows(dq_mn, 0, n), _rows(dq_mn, n, m)
    z_pn_h = _solve(u.H(ew.sub(q_nn, u.eye(n, dt, batch))), u.H(q_pn))
    z_pn = u.H(z_pn_h)
    dq_mp = ew.sub(
        u.matmul(dq_mn, z_pn_h),
        u.matmul(
            ew.add(q_mn, u.matmul(q_mp, z_pn)),
            u.H(ew.sub(dq_pn, u.matmul(z_pn, dq_nn))),
        ),
    )
    dq = concatenate([dq_mn, dq_mp], nd - 1)
    dr = concatenate([dr_nn, full((*batch, m - n, n), 0, dt)], nd - 2)
    return outs, (dq, dr, *extra)


# --- eigh --------------------------------------------------------------------------------------


def _inverse_gaps(w, dt):
    # F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it.
    n = u.shape(w)[-1]
    w = u.cast(w, dt)
    eye = u.eye(n, dt, u.shape(w)[:-1])
    gaps = ew.add(eye, ew.sub(u.bcast_rows(w, n), u.bcast_cols(w, n)))
    return ew.sub(ew.div(full(u.shape(gaps), 1, dt), gaps), eye)


def _eigh_jvp(primals, tangents, *, lower):
    (x,), (dx,) = primals, tangents
    v, w = bind(EIGH, x, lower=lower)
    dt = u.dtype(x)
    sigma = _hermitian_from_triangle(dx, lower)
    vh_dx_v = u.matmul(u.matmul(u.H(v), sigma), v)
    dv = u.matmul(v, ew.mul(_inverse_gaps(w, dt), vh_dx_v))
    dw = u.diagonal(vh_dx_v)
    dw = unary.real(dw) if u.is_complex(dw) else dw
    return (v, w), (dv, dw)


# --- svd ---------------------------------------------------------------------------------------


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, gesvd):
    (x,), (dx,) = primals, tangents
    m, n = u.shape(x)[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "lax.linalg.svd: derivative not implemented for full_matrices=True with non-square "
            f"matrices, got shape {u.shape(x)}{where_suffix()}"
        )
    s, left, right = bind(SVD, x, full_matrices=False, compute_uv=True, gesvd=gesvd)
    dt, k = u.dtype(x), min(m, n)
    batch = u.shape(x)[:-2]
    v = u.H(right)
    ds_matrix = u.matmul(u.matmul(u.H(left), dx), v)
    ds = u.diagonal(ds_matrix)
    ds = unary.real(ds) if u.is_complex(ds) else ds
    if not compute_uv:
        return (s,), (ds,)
    s_rows = u.cast(u.bcast_rows(s, k), dt)  # s[j] at (i, j)
    s_cols = u.mT(s_rows)  # s[i] at (i, j)
    eye = u.eye(k, dt, batch)
    gaps = ew.mul(ew.add(s_rows, s_cols), ew.sub(s_rows, s_cols))
    f = ew.sub(ew.div(full(u.shape(gaps), 1, dt), ew.add(gaps, eye)), eye)
    s_zero = u.cast(ew.eq(s, full(u.shape(s), 0, u.dtype(s))), u.dtype(s))
    s_inverse = ew.sub(ew.div(full(u.shape(s), 1, u.dtype(s)), ew.add(s, s_zero)), s_zero)
    s_inv = u.diag_embed(u.cast(s_inverse, dt))  # 1/s on the diagonal, 0 where s = 0
    dss = ew.mul(s_rows, ds_matrix)
    sds = ew.mul(s_cols, ds_matrix)
    du_dv_diagonal = ew.mul(_scale(ew.sub(ds_matrix, u.H(ds_matrix)), 0.5), s_inv)
    d_left = u.matmul(left, ew.add(ew.mul(f, ew.add(dss, u.H(dss))), du_dv_diagonal))
    d_v = u.matmul(v, ew.mul(f, ew.add(sds, u.H(sds))))
    if m > n:
        dx_v = u.matmul(dx, v)
        residual = ew.sub(dx_v, u.matmul(left, u.matmul(u.H(left), dx_v)))
        d_left = ew.add(d_left, ew.div(residual, u.cast(u.bcast_rows(s, m), dt)))
    if n > m:
        dxh_u = u.matmul(u.H(dx), left)
        residual = ew.sub(dxh_u, u.matmul(v, u.matmul(right, dxh_u)))
        d_v = ew.add(d_v, ew.div(residual, u.cast(u.bcast_rows(s, n), dt)))
    return (s, left, right), (ds, d_left, u.H(d_v))


# --- eig ---------------------------------------------------------------------------------------


def _eig_vector_jvp(w, v, dx):
    # Nondegenerate perturbation theory; v's columns have unit norm and a real largest entry
    # (LAPACK's normalisation), which fixes the free multiple of each v_j in dv_j.
    nd = len(u.shape(v))
    p = u.matmul(_solve(v, dx), v)
    dw = u.diagonal(p)
    dv = u.matmul(v, ew.mul(_inverse_gaps(w, u.dtype(w)), p))
    largest = argmax(unary.abs(v), nd - 2, np.int32)
    rows = broadcasted_iota(np.int32, u.shape(v), nd - 2)
    mask = u.cast(
        ew.eq(rows, broadcast_in_dim(largest, u.shape(v), (*range(nd - 2), nd - 1))), u.dtype(v)
    )
    along = (nd - 2,)
    c = ew.complex(
        unary.neg(unary.real(reduce_sum(ew.mul(ew.conj(v), dv), along))),
        ew.div(
            unary.neg(unary.imag(reduce_sum(ew.mul(mask, dv), along))),
            unary.real(reduce_sum(ew.mul(mask, v), along)),
        ),
    )
    return dw, ew.add(dv, ew.mul(v, u.bcast_rows(c, u.shape(v)[-2])))


def _eig_jvp(
    primals,
    tangents,
    *,
    compute_left_eigenvectors,
    compute_right_eigenvectors,
    enable_eigvec_derivs,
):
    (x,), (dx,) = primals, tangents
    vectors = compute_left_eigenvectors or compute_right_eigenvectors
    if vectors and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
            "input that JAX cannot check (see the enable_eigvec_derivs argument to "
            "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt "
            f"in. See https://github.com/jax-ml/jax/issues/2748 for discussion.{where_suffix()}"
        )
    outs = bind(
        EIG,
        x,
        compute_left_eigenvectors=compute_left_eigenvectors,
        compute_right_eigenvectors=True,
        enable_eigvec_derivs=enable_eigvec_derivs,
    )
    w, vr = outs[0], outs[-1]
    dx = u.cast(dx, u.dtype(vr))
    if not vectors:  # dw = diag(V^-1 dA V)
        vinv_dx = _solve(vr, dx)
        return (w,), (reduce_sum(ew.mul(vinv_dx, u.mT(vr)), (len(u.shape(vr)) - 1,)),)
    dw, dvr = _eig_vector_jvp(w, vr, dx)
    primal_out, tangent_out = [w], [dw]
    if compute_left_eigenvectors:
        _, dvl = _eig_vector_jvp(ew.conj(w), outs[1], u.H(dx))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if compute_right_eigenvectors:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return tuple(primal_out), tuple(tangent_out)


def _solve(a, b):
    factors, pivots = bind(LU, a)
    permutation = lu_pivots_to_permutation(pivots, u.shape(a)[-1])
    y = triangular_solve(
        factors, u.permute_rows(b, permutation), left_side=True, lower=True, unit_diagonal=True
    )
    return triangular_solve(factors, y, left_side=True, lower=False)
