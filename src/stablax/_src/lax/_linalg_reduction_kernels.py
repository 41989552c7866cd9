"""CPU kernels (LAPACK FFI calls) of the reduction ops of `_linalg_reductions`, and their
expansions (`_linalg_kernels.kernel_expansion`), which replace each op before compilation."""

from __future__ import annotations

import numpy as np

from stablax._src.avals import ShapedArray
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._linalg_kernels import (
    aval_size,
    batch_info,
    core_aval,
    ffi_call,
    geqrf_kernel,
    householder_product_kernel,
    info_ok,
    kernel_expansion,
    lapack_target,
)
from stablax._src.lax._shapes import full


def _cpu_hessenberg(a):
    shp, dt = u.shape(a), u.dtype(a)
    n = shp[-1]
    taus = ShapedArray((*shp[:-2], max(n - 1, 0)), dt)
    if n == 0:
        return [a, full(taus.shape, 0, dt)]
    h, tau, info = ffi_call(
        lapack_target("gehrd", dt),
        [a],
        [core_aval(a), taus, batch_info(a)],
        [True, True, False, False],
        low=np.int32(1),
        high=np.int32(n),
    )
    ok = info_ok(info)
    return [u.where_ok(ok, h), u.where_ok(ok, tau)]


def _cpu_tridiagonal(a, *, lower):
    shp, dt = u.shape(a), u.dtype(a)
    batch, n, real = shp[:-2], shp[-1], u.real_dtype(dt)
    avals = [
        core_aval(a),
        ShapedArray((*batch, n), real),
        ShapedArray((*batch, n - 1), real),
        ShapedArray((*batch, n - 1), dt),
        batch_info(a),
    ]
    routine = "hetrd" if dt.kind == "c" else "sytrd"
    *outs, info = ffi_call(
        lapack_target(routine, dt),
        [a],
        avals,
        [True, True, False, False, False, False],
        uplo="L" if lower else "U",
    )
    ok = info_ok(info)
    return [u.where_ok(ok, x) for x in outs]


def _cpu_schur(x, *, compute_schur_vectors):
    shp, dt = u.shape(x), u.dtype(x)
    if shp[-1] == 0:
        return [x, x] if compute_schur_vectors else [x]
    values = [ShapedArray(shp[:-1], dt)] * (2 if dt.kind == "f" else 1)
    info = batch_info(x)
    t, q, *_, info = ffi_call(
        lapack_target("gees", dt),
        [x],
        [core_aval(x), core_aval(x), *values, info, info],
        [True, True, True] + [False] * (len(values) + 2),
        mode="V" if compute_schur_vectors else "N",
        sort="N",
    )
    ok = info_ok(info)
    return [u.where_ok(ok, t), u.where_ok(ok, q)] if compute_schur_vectors else [u.where_ok(ok, t)]


def _cpu_householder_product(a, taus):
    if aval_size(a) == 0:
        return [a]
    if u.shape(taus)[-1] == 0:  # no reflectors: the identity's first columns
        *batch, m, n = u.shape(a)
        return [u.eye(m, u.dtype(a), tuple(batch), n)]
    return [householder_product_kernel(a, taus)]


def _cpu_ormqr(a, taus, c, *, left, transpose):
    if aval_size(c) == 0 or u.shape(taus)[-1] == 0:
        return [c]
    dt = u.dtype(a)
    routine = "unmqr" if dt.kind == "c" else "ormqr"
    (out,) = ffi_call(
        lapack_target(routine, dt),
        [a, taus, c],
        [core_aval(c)],
        [True, False, True, True],
        left=bool(left),
        transpose=bool(transpose),
    )
    return [out]


def _cpu_tridiagonal_solve(dl, d, du, b, *, perturb_singular):
    if aval_size(b) == 0:
        return [b]
    matrices = [False, False, False, True]
    if perturb_singular:
        (x,) = ffi_call(
            "tridiagonal_solve_perturbed_ffi", [dl, d, du, b], [core_aval(b)], [*matrices, True]
        )
        return [x]
    *_, x, info = ffi_call(
        lapack_target("gtsv", u.dtype(b)),
        [dl, d, du, b],
        [core_aval(dl), core_aval(d), core_aval(du), core_aval(b), batch_info(b)],
        [*matrices, *matrices, False],
    )
    return [u.where_ok(info_ok(info), x)]


_CPU_KERNELS = {
    "geqrf": geqrf_kernel,
    "hessenberg": _cpu_hessenberg,
    "tridiagonal": _cpu_tridiagonal,
    "schur": _cpu_schur,
    "householder_product": _cpu_householder_product,
    "ormqr": _cpu_ormqr,
    "tridiagonal_solve": _cpu_tridiagonal_solve,
}
EXPANSIONS = {name: kernel_expansion(name, {"cpu": k}) for name, k in _CPU_KERNELS.items()}
