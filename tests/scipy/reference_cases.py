"""Cases recorded from JAX 0.10.2 (scripts/record_scipy_reference.py) and replayed on stablax.

Each case is a function of a namespace `m` (JAX's modules when recording, stablax's when testing:
m.lax, m.numpy, m.scipy, m.ode) and of arrays drawn once by `inputs`; the recorded outputs fix
the dtypes, shapes and values JAX returns. This module imports neither library.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    fn: Callable[..., Any]
    inputs: Callable[[np.random.Generator], list[np.ndarray]]
    x64: bool = False
    rtol: float | None = None  # default: 1e-5 (32-bit results), 1e-10 (64-bit)


def _normal(*shape, dtype=np.float32):
    def make(rng):
        return rng.standard_normal(shape).astype(dtype)

    return make


def _complex(*shape, dtype=np.complex64):
    def make(rng):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    return make


def _spd(n, dtype=np.float32):
    def make(rng):
        a = rng.standard_normal((n, n))
        return (a @ a.T + n * np.eye(n)).astype(dtype)

    return make


def _args(*makers):
    return lambda rng: [make(rng) for make in makers]


def _rosen(m, x):
    return m.numpy.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def _optimize(method):
    def run(m, x0):
        r = m.scipy.optimize.minimize(_rosen.__get__(m), x0, method=method)
        return [r.x, r.success, r.status, r.fun, r.jac, r.nfev, r.njev, r.nit]

    return run


def _decay(m):
    def f(y, t, a):
        return -a * y + m.numpy.sin(t)

    return f


def _rotation(m, q):
    return m.scipy.spatial.transform.Rotation.from_quat(q)


L, S = "linalg", "signal"

CASES: list[Case] = [
    # --- lax.linalg -------------------------------------------------------------------------
    Case("lax_hessenberg", lambda m, a: m.lax.linalg.hessenberg(a), _args(_normal(2, 4, 4))),
    Case("lax_hessenberg_c", lambda m, a: m.lax.linalg.hessenberg(a), _args(_complex(3, 3))),
    Case("lax_tridiagonal", lambda m, a: m.lax.linalg.tridiagonal(a), _args(_spd(4))),
    Case(
        "lax_tridiagonal_upper",
        lambda m, a: m.lax.linalg.tridiagonal(a, lower=False),
        _args(_complex(3, 3)),
    ),
    Case("lax_schur", lambda m, a: m.lax.linalg.schur(a), _args(_normal(4, 4))),
    Case(
        "lax_schur_values",
        lambda m, a: m.lax.linalg.schur(a, compute_schur_vectors=False),
        _args(_complex(2, 3, 3)),
    ),
    Case(
        "lax_householder_product",
        lambda m, a, t: m.lax.linalg.householder_product(a, t),
        _args(_normal(4, 3), lambda rng: rng.uniform(1, 2, 2).astype(np.float32)),
    ),
    Case(
        "lax_ormqr",
        lambda m, a, t, c: m.lax.linalg.ormqr(a, t, c, left=False, transpose=True),
        _args(_normal(4, 3), lambda rng: rng.uniform(1, 2, 3).astype(np.float32), _normal(2, 4)),
    ),
    Case(
        "lax_tridiagonal_solve",
        lambda m, dl, d, du, b: m.lax.linalg.tridiagonal_solve(dl, d, du, b),
        _args(
            _normal(5),
            lambda rng: (rng.standard_normal(5) + 4).astype(np.float32),
            _normal(5),
            _normal(5, 2),
        ),
    ),  # fmt: skip
    Case(
        "lax_tridiagonal_solve_perturbed",
        lambda m, dl, d, du, b: m.lax.linalg.tridiagonal_solve(
            dl, d * 0, du, b, perturb_singular=True
        ),
        _args(_normal(4), _normal(4), _normal(4), _normal(4, 1)),
        rtol=1e-3,
    ),
    Case(
        "lax_cholesky_update",
        lambda m, r, w: m.lax.linalg.cholesky_update(r, w),
        lambda rng: [np.linalg.cholesky(_spd(4)(rng)).T.copy(), _normal(4)(rng)],
    ),
    Case(
        "lax_symmetric_product",
        lambda m, a, c: m.lax.linalg.symmetric_product(a, c, alpha=2.0, beta=-1.0),
        _args(_normal(2, 3, 4), _normal(2, 3, 3)),
    ),
    Case(
        "lax_qdwh",
        lambda m, a: m.lax.linalg.qdwh(a),
        _args(_normal(5, 3, dtype=np.float64)),
        x64=True,
    ),  # fmt: skip
    Case("lax_qdwh_f32", lambda m, a: m.lax.linalg.qdwh(a)[:3], _args(_normal(4, 4)), rtol=1e-4),
    Case(
        "lax_qr_pivoting",
        lambda m, a: m.lax.linalg.qr(a, pivoting=True, full_matrices=False),
        _args(_normal(4, 3)),
    ),
    Case("lax_cholesky_p", lambda m, a: m.lax.linalg.cholesky_p.bind(a), _args(_spd(3))),
    Case(
        "lax_eigh_p",
        lambda m, a: m.lax.linalg.eigh_p.bind(
            a, lower=True, sort_eigenvalues=True, subset_by_index=None, algorithm=None
        ),
        _args(_spd(3)),
    ),
    Case(
        "lax_svd_p_qr",
        lambda m, a: m.lax.linalg.svd_p.bind(
            a,
            full_matrices=False,
            compute_uv=True,
            subset_by_index=None,
            algorithm=m.lax.linalg.SvdAlgorithm.QR,
        ),
        _args(_normal(4, 3)),
    ),
    Case(
        "lax_eig_vectors",
        lambda m, a: m.lax.linalg.eig(a, compute_left_eigenvectors=False),
        _args(_normal(3, 3)),
    ),
    Case("lax_lu_p", lambda m, a: m.lax.linalg.lu_p.bind(a), _args(_normal(3, 4))),
    Case(
        "lax_pivots_to_permutation",
        lambda m, p: m.lax.linalg.lu_pivots_to_permutation(p, 5),
        lambda rng: [np.array([[2, 3, 2], [4, 1, 2]], np.int32)],
    ),
    # --- scipy.linalg: decompositions and solvers --------------------------------------------
    Case("cholesky", lambda m, a: m.scipy.linalg.cholesky(a), _args(_spd(4))),
    Case(
        "cho_solve",
        lambda m, a, b: m.scipy.linalg.cho_solve(m.scipy.linalg.cho_factor(a, lower=True), b),
        _args(_spd(4), _normal(4, 2)),
    ),
    Case("lu", lambda m, a: m.scipy.linalg.lu(a), _args(_normal(4, 3))),
    Case("lu_permute_l", lambda m, a: m.scipy.linalg.lu(a, permute_l=True), _args(_normal(3, 4))),
    Case(
        "lu_solve_trans",
        lambda m, a, b: m.scipy.linalg.lu_solve(m.scipy.linalg.lu_factor(a), b, trans=2),
        _args(_complex(3, 3), _complex(3)),
    ),
    Case("qr", lambda m, a: m.scipy.linalg.qr(a), _args(_normal(4, 3))),
    Case(
        "qr_r_pivot",
        lambda m, a: m.scipy.linalg.qr(a, mode="r", pivoting=True),
        _args(_normal(3, 5)),
    ),  # fmt: skip
    Case(
        "qr_multiply_left",
        lambda m, a, c: m.scipy.linalg.qr_multiply(a, c, mode="left"),
        _args(_normal(5, 3), _normal(3, 2)),
    ),
    Case(
        "qr_multiply_right_conj",
        lambda m, a, c: m.scipy.linalg.qr_multiply(a, c, conjugate=True, pivoting=True),
        _args(_normal(4, 3), _normal(2, 4)),
    ),
    Case("svd", lambda m, a: m.scipy.linalg.svd(a, full_matrices=False), _args(_normal(4, 3))),
    Case("eigh", lambda m, a: m.scipy.linalg.eigh(a), _args(_spd(4))),
    Case("schur_real", lambda m, a: m.scipy.linalg.schur(a), _args(_normal(4, 4))),
    Case("schur_complex", lambda m, a: m.scipy.linalg.schur(a, "complex"), _args(_normal(3, 3))),
    Case(
        "hessenberg_q", lambda m, a: m.scipy.linalg.hessenberg(a, calc_q=True), _args(_normal(4, 4))
    ),  # fmt: skip
    Case("det", lambda m, a: m.scipy.linalg.det(a), _args(_normal(2, 3, 3))),
    Case("inv", lambda m, a: m.scipy.linalg.inv(a), _args(_normal(3, 3))),
    Case("solve", lambda m, a, b: m.scipy.linalg.solve(a, b), _args(_normal(3, 3), _normal(3))),
    Case(
        "solve_pos",
        lambda m, a, b: m.scipy.linalg.solve(a, b, assume_a="pos", lower=True),
        _args(_spd(3), _normal(3, 2)),
    ),
    Case(
        "solve_triangular",
        lambda m, a, b: m.scipy.linalg.solve_triangular(a, b, trans="T", lower=True),
        lambda rng: [np.tril(_spd(4)(rng)), _normal(4, 2)(rng)],
    ),
    Case(
        "polar",
        lambda m, a: m.scipy.linalg.polar(a),
        _args(_normal(4, 3, dtype=np.float64)),
        x64=True,
    ),  # fmt: skip
    Case(
        "polar_svd_left",
        lambda m, a: m.scipy.linalg.polar(a, side="left", method="svd"),
        _args(_normal(2, 3, 4)),
    ),
    Case(
        "rsf2csf",
        lambda m, a: m.scipy.linalg.rsf2csf(*m.scipy.linalg.schur(a)),
        _args(_normal(4, 4)),
        rtol=1e-4,
    ),
    Case(
        "eigh_tridiagonal",
        lambda m, d, e: m.scipy.linalg.eigh_tridiagonal(d, e),
        _args(_normal(6, dtype=np.float64), _normal(5, dtype=np.float64)),
        x64=True,
        rtol=1e-8,
    ),
    Case(
        "eigh_tridiagonal_select",
        lambda m, d, e: m.scipy.linalg.eigh_tridiagonal(
            d, e, eigvals_only=True, select="i", select_range=(1, 3)
        ),
        _args(_normal(6), _normal(5)),
    ),
    # --- scipy.linalg: matrix functions ------------------------------------------------------
    Case("expm", lambda m, a: m.scipy.linalg.expm(a), _args(_normal(2, 4, 4))),
    Case("expm_large", lambda m, a: m.scipy.linalg.expm(8 * a), _args(_normal(3, 3)), rtol=1e-4),
    Case(
        "expm_f64",
        lambda m, a: m.scipy.linalg.expm(3 * a),
        _args(_normal(4, 4, dtype=np.float64)),
        x64=True,
    ),  # fmt: skip
    Case("expm_complex", lambda m, a: m.scipy.linalg.expm(a), _args(_complex(3, 3))),
    Case(
        "expm_triangular",
        lambda m, a: m.scipy.linalg.expm(a, upper_triangular=True),
        lambda rng: [np.triu(_normal(4, 4)(rng))],
    ),
    Case(
        "expm_frechet",
        lambda m, a, e: m.scipy.linalg.expm_frechet(a, e),
        _args(_normal(3, 3), _normal(3, 3)),
    ),
    Case("sqrtm", lambda m, a: m.scipy.linalg.sqrtm(a), _args(_spd(4)), rtol=1e-4),
    Case(
        "funm",
        lambda m, a: m.scipy.linalg.funm(a, m.numpy.sin, disp=False),
        _args(_normal(3, 3)),
        rtol=1e-4,
    ),  # fmt: skip
    Case(
        "solve_sylvester",
        lambda m, a, b, c: m.scipy.linalg.solve_sylvester(a, b, c),
        _args(_spd(3), _spd(2), _normal(3, 2)),
        rtol=1e-4,
    ),
    Case(
        "solve_sylvester_eigen",
        lambda m, a, b, c: m.scipy.linalg.solve_sylvester(a, b, c, method="eigen"),
        _args(_spd(3, np.float64), _spd(2, np.float64), _normal(3, 2, dtype=np.float64)),
        x64=True,
        rtol=1e-8,
    ),
    # --- scipy.linalg: special matrices ------------------------------------------------------
    Case(
        "block_diag",
        lambda m, a, b, c: m.scipy.linalg.block_diag(a, b, c),
        _args(_normal(2, 2), _normal(3), _normal(1, 3)),
    ),  # fmt: skip
    Case(
        "toeplitz", lambda m, c, r: m.scipy.linalg.toeplitz(c, r), _args(_normal(2, 4), _normal(3))
    ),  # fmt: skip
    Case("toeplitz_c", lambda m, c: m.scipy.linalg.toeplitz(c), _args(_complex(3))),
    Case("hankel", lambda m, c, r: m.scipy.linalg.hankel(c, r), _args(_normal(4), _normal(3))),
    Case("circulant", lambda m, c: m.scipy.linalg.circulant(c), _args(_normal(2, 4))),
    Case("leslie", lambda m, f, s: m.scipy.linalg.leslie(f, s), _args(_normal(4), _normal(3))),
    Case("companion", lambda m, a: m.scipy.linalg.companion(a), _args(_normal(5))),
    Case("fiedler", lambda m, a: m.scipy.linalg.fiedler(a), _args(_normal(4))),
    Case(
        "fiedler_companion", lambda m, a: m.scipy.linalg.fiedler_companion(a), _args(_normal(6))
    ),  # fmt: skip
    Case(
        "convolution_matrix",
        lambda m, a: [
            m.scipy.linalg.convolution_matrix(a, 4, mode) for mode in ("full", "same", "valid")
        ],
        _args(_normal(3)),
    ),  # fmt: skip
    Case("hilbert", lambda m: m.scipy.linalg.hilbert(4), _args()),
    Case("invhilbert", lambda m: m.scipy.linalg.invhilbert(4), _args(), rtol=1e-4),
    Case("pascal", lambda m: [m.scipy.linalg.pascal(4, kind) for kind in (None, "lower")], _args()),
    Case("invpascal", lambda m: m.scipy.linalg.invpascal(4, "upper"), _args()),
    Case("helmert", lambda m: m.scipy.linalg.helmert(5, full=True), _args()),
    Case("hadamard", lambda m: m.scipy.linalg.hadamard(8, np.float32), _args()),
    Case("dft", lambda m: m.scipy.linalg.dft(5, "n"), _args()),
    # --- scipy.signal ---------------------------------------------------------------------------
    Case(
        "convolve",
        lambda m, a, b: [m.scipy.signal.convolve(a, b, mode) for mode in ("full", "same", "valid")],
        _args(_normal(8), _normal(3)),
    ),
    Case(
        "correlate_fft",
        lambda m, a, b: m.scipy.signal.correlate(a, b, "same", method="fft"),
        _args(_normal(3, 6), _normal(2, 4)),
    ),
    Case(
        "convolve2d",
        lambda m, a, b: m.scipy.signal.convolve2d(a, b, "same"),
        _args(_normal(5, 6), _normal(3, 2)),
    ),
    Case(
        "correlate2d",
        lambda m, a, b: [
            m.scipy.signal.correlate2d(a, b, mode) for mode in ("full", "same", "valid")
        ],
        _args(_complex(3, 4), _complex(4, 5)),
    ),  # fmt: skip
    Case(
        "fftconvolve_axes",
        lambda m, a, b: m.scipy.signal.fftconvolve(a, b, "valid", axes=1),
        _args(_normal(3, 8), _normal(3, 3)),
    ),
    Case("detrend", lambda m, x: m.scipy.signal.detrend(x, axis=0, bp=[4]), _args(_normal(10, 2))),
    Case("welch", lambda m, x: m.scipy.signal.welch(x, nperseg=16), _args(_normal(2, 64))),
    Case(
        "csd_median",
        lambda m, x, y: m.scipy.signal.csd(x, y, nperseg=16, average="median"),
        _args(_normal(64), _normal(64)),
    ),
    Case("stft", lambda m, x: m.scipy.signal.stft(x, nperseg=16), _args(_normal(50))),
    Case(
        "istft",
        lambda m, z: m.scipy.signal.istft(z, nperseg=16),
        _args(_complex(9, 5)),
    ),
    # --- other submodules -------------------------------------------------------------------------
    Case("bfgs", _optimize("BFGS"), _args(_normal(4, dtype=np.float64)), x64=True, rtol=1e-8),
    Case(
        "lbfgs",
        _optimize("l-bfgs-experimental-do-not-rely-on-this"),
        _args(_normal(3, dtype=np.float64)),
        x64=True,
        rtol=1e-8,
    ),
    Case(
        "map_coordinates",
        lambda m, a, c0, c1: [
            m.scipy.ndimage.map_coordinates(a, [c0, c1], order, mode, cval=0.5)
            for order in (0, 1)
            for mode in ("constant", "nearest", "wrap", "mirror", "reflect")
        ],
        _args(
            _normal(4, 5),
            lambda rng: rng.uniform(-3, 7, 6).astype(np.float32),
            lambda rng: rng.uniform(-3, 8, 6).astype(np.float32),
        ),
    ),  # fmt: skip
    Case(
        "map_coordinates_int",
        lambda m, a, c: m.scipy.ndimage.map_coordinates(a, [c], 1),
        lambda rng: [np.arange(6, dtype=np.int32) * 3, rng.uniform(0, 5, 7).astype(np.float32)],
    ),
    Case(
        "dct",
        lambda m, x: [
            m.scipy.fft.dct(x, norm=norm, n=n) for norm in (None, "ortho") for n in (None, 7)
        ],
        _args(_normal(2, 5)),
    ),  # fmt: skip
    Case(
        "dctn_idctn",
        lambda m, x: [
            m.scipy.fft.dctn(x),
            m.scipy.fft.idctn(x, norm="ortho"),
            m.scipy.fft.dctn(x, s=(4, 6), axes=(0, 2)),
        ],
        _args(_normal(3, 4, 5)),
    ),  # fmt: skip
    Case("idct_complex", lambda m, x: m.scipy.fft.idct(x, axis=0), _args(_complex(4, 3))),
    Case(
        "trapezoid",
        lambda m, y, x: [
            m.scipy.integrate.trapezoid(y, x),
            m.scipy.integrate.trapezoid(y, dx=0.5, axis=0),
        ],
        _args(_normal(3, 5), _normal(5)),
    ),  # fmt: skip
    Case(
        "regular_grid_interpolator",
        lambda m, v, p: [
            m.scipy.interpolate.RegularGridInterpolator(
                (np.linspace(0, 1, 4), np.linspace(0, 2, 5)), v, method=method
            )(p)
            for method in ("linear", "nearest")
        ],
        _args(_normal(4, 5, dtype=np.float64), lambda rng: rng.uniform(-0.2, 2.1, (6, 2))),
        x64=True,
    ),
    Case(
        "cg",
        lambda m, a, b: m.scipy.sparse.linalg.cg(a, b)[0],
        _args(_spd(5, np.float64), _normal(5, dtype=np.float64)),
        x64=True,
        rtol=1e-8,
    ),
    Case(
        "gmres",
        lambda m, a, b: [
            m.scipy.sparse.linalg.gmres(a + 5 * np.eye(5), b, solve_method=method)[0]
            for method in ("batched", "incremental")
        ],
        _args(_normal(5, 5, dtype=np.float64), _normal(5, dtype=np.float64)),
        x64=True,
        rtol=1e-8,
    ),
    Case(
        "bicgstab",
        lambda m, a, b: m.scipy.sparse.linalg.bicgstab(a + 5 * np.eye(5), b, tol=1e-10)[0],
        _args(_normal(5, 5, dtype=np.float64), _normal(5, dtype=np.float64)),
        x64=True,
        rtol=1e-8,
    ),
    Case(
        "rotation",
        lambda m, q, v: [
            _rotation(m, q).as_matrix(),
            _rotation(m, q).as_euler("zyx", degrees=True),
            _rotation(m, q).as_euler("XZX"),
            _rotation(m, q).as_rotvec(),
            _rotation(m, q).as_mrp(),
            _rotation(m, q).as_quat(canonical=True, scalar_first=True),
            _rotation(m, q).apply(v, inverse=True),
            _rotation(m, q).magnitude(),
            _rotation(m, q).mean().quat,
            (_rotation(m, q) * _rotation(m, q).inv()).quat,
        ],
        _args(_normal(4, 4), _normal(4, 3)),
        rtol=1e-4,
    ),
    Case(
        "slerp",
        lambda m, q, t: (
            m.scipy.spatial.transform.Slerp.init(
                np.array([0.0, 1.0, 3.0], np.float32), _rotation(m, q)
            )(t).quat
        ),
        _args(_normal(3, 4), lambda rng: np.array([0.5, 2.0, 3.0], np.float32)),
    ),
    Case("vq", lambda m, o, c: m.scipy.cluster.vq.vq(o, c), _args(_normal(6, 3), _normal(4, 3))),
    Case(
        "odeint",
        lambda m, y0, a: m.ode.odeint(_decay(m), y0, np.linspace(0.0, 2.0, 4), a),
        _args(_normal(3, dtype=np.float64), lambda rng: np.array(0.7)),
        x64=True,
        rtol=1e-7,
    ),
]
