"""scipy.linalg decompositions: cholesky, lu, qr, svd, eigh, schur, hessenberg, polar, rsf2csf.

Each takes SciPy's arguments (the `overwrite_*`/`check_finite` flags are accepted and ignored:
compiled code cannot check values) and returns what JAX's version returns.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.jit import jit
from stablax._src.lax import _linalg as ll
from stablax._src.lax import _linalg_composites as lc
from stablax._src.lax import _linalg_reductions as lr
from stablax._src.numpy._promotion import promote_dtypes_inexact


def to_complex_dtype(dt: Any) -> np.dtype:
    """complex64 for 32-bit (and narrower) dtypes, complex128 for 64-bit ones."""
    dt = np.dtype(dt)
    wide = dt in (np.dtype(np.float64), np.dtype(np.complex128), np.dtype(np.int64))
    return dtypes.canonicalize_dtype(np.complex128 if wide else np.complex64)


def promote_dtypes_complex(*args: Any) -> list[Any]:
    """The arguments as arrays of their common complex dtype."""
    arrays = [jnp.asarray(a) for a in args]
    dt = to_complex_dtype(jnp.result_type(*arrays))
    return [a.astype(dt) for a in arrays]


# --- cholesky ----------------------------------------------------------------------------------


@jit(static_argnames=("lower",))
def _cholesky(a, lower):
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    factor = ll.cholesky(a if lower else jnp.conj(a.mT), symmetrize_input=False)
    return factor if lower else jnp.conj(factor.mT)


def cholesky(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """The Cholesky factor of Hermitian positive-definite matrices (scipy.linalg.cholesky).

    Args:
      a: matrices (..., n, n); only the triangle named by `lower` is read.
      lower: return L with a = L L^H (else the upper U with a = U^H U, SciPy's default).

    Returns:
      The triangular factor; NaN where a matrix is not positive definite.
    """
    del overwrite_a, check_finite
    return _cholesky(a, bool(lower))


def cho_factor(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Any, bool]:
    """`(c, lower)` for `cho_solve` (scipy.linalg.cho_factor); c is the triangular factor."""
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


def _vector_signature(name: str, a: Any, b: Any) -> bool:
    """Whether b holds vectors (SciPy's (n,) right-hand side, or JAX's deprecated batches)."""
    if b.ndim == 1:
        return True
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        import warnings

        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and in "
            "the future will be treated as a batched 2D solve. Use "
            f"{name}(..., b[..., None]).squeeze(-1) to avoid this warning.",
            category=FutureWarning,
            stacklevel=4,
        )
        return True
    return False


def _solve_vectorized(solve, a, b, name: str):
    vector = _vector_signature(name, a, b)
    signature = "(n,n),(n)->(n)" if vector else "(n,n),(n,k)->(n,k)"
    if vector:
        return jnp.vectorize(lambda m, v: solve(m, v[:, None])[:, 0], signature=signature)(a, b)
    return jnp.vectorize(solve, signature=signature)(a, b)


@jit(static_argnames=("lower",))
def _cho_solve(c, b, lower):
    c, b = promote_dtypes_inexact(jnp.asarray(c), jnp.asarray(b))

    def solve(factor, rhs):
        # a = L L^H (lower) or U^H U: two triangular solves.
        rhs = ll.triangular_solve(
            factor, rhs, left_side=True, lower=lower, transpose_a=not lower, conjugate_a=not lower
        )
        return ll.triangular_solve(
            factor, rhs, left_side=True, lower=lower, transpose_a=lower, conjugate_a=lower
        )

    return _solve_vectorized(solve, c, b, "cho_solve")


def cho_solve(
    c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False, check_finite: bool = True
) -> Any:
    """Solves a x = b from `cho_factor(a)` (scipy.linalg.cho_solve)."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    return _cho_solve(c, b, bool(lower))


# --- lu ----------------------------------------------------------------------------------------


def lu_solve_core(lu: Any, permutation: Any, b: Any, trans: int) -> Any:
    """Solves op(a) x = b for one (n, n) LU factorization; op by SciPy's `trans` (0, 1, 2)."""
    if trans == 0:
        x = b[permutation, :]
        x = ll.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        return ll.triangular_solve(lu, x, left_side=True, lower=False)
    if trans in (1, 2):
        conj = trans == 2
        x = ll.triangular_solve(
            lu, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conj
        )
        x = ll.triangular_solve(
            lu,
            x,
            left_side=True,
            lower=True,
            unit_diagonal=True,
            transpose_a=True,
            conjugate_a=conj,
        )
        _, inverse = lax.sort_key_val(permutation, lax.iota(np.int32, permutation.shape[0]))
        return x[inverse, :]
    raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")


@jit(static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
    """`(lu, piv)`: the packed LU factors and the 0-based row swaps (scipy.linalg.lu_factor)."""
    del overwrite_a, check_finite
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    factors, pivots, _ = ll.lu(a)
    return factors, pivots


@jit(static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(
    lu_and_piv: tuple[Any, Any],
    b: Any,
    trans: int = 0,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Any:
    """Solves a x = b (trans=0), a^T x = b (1) or a^H x = b (2) from `lu_factor(a)`."""
    del overwrite_b, check_finite
    lu, pivots = lu_and_piv
    lu, b = promote_dtypes_inexact(jnp.asarray(lu), jnp.asarray(b))
    permutation = ll.lu_pivots_to_permutation(jnp.asarray(pivots), lu.shape[-2])
    vector = _vector_signature("lu_solve", lu, b)
    if vector:
        fn = jnp.vectorize(
            lambda f, p, v: lu_solve_core(f, p, v[:, None], trans)[:, 0],
            signature="(n,n),(n),(n)->(n)",
        )
    else:
        fn = jnp.vectorize(
            functools.partial(lu_solve_core, trans=trans), signature="(n,n),(n),(n,k)->(n,k)"
        )
    return fn(lu, permutation, b)


@jit(static_argnums=(1,))
def _lu(a, permute_l):
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    factors, _, permutation = ll.lu(a)
    dt = a.dtype
    m, n = a.shape[-2:]
    k = min(m, n)
    p = (permutation[..., None, :] == jnp.arange(m, dtype=permutation.dtype)[:, None]).astype(dt)
    lower = jnp.tril(factors, -1)[..., :, :k] + jnp.eye(m, k, dtype=dt)
    upper = jnp.triu(factors)[..., :k, :]
    if permute_l:
        return jnp.matmul(p, lower, precision=lax.Precision.HIGHEST), upper
    return p, lower, upper


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`(p, l, u)` with a = p l u, or `(p l, u)` with `permute_l` (scipy.linalg.lu)."""
    del overwrite_a, check_finite
    return _lu(a, bool(permute_l))


# --- qr ----------------------------------------------------------------------------------------


@jit(static_argnames=("mode", "pivoting"))
def _qr(a, mode, pivoting):
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    q, r, *p = ll.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    if mode == "r":
        return (r, p[0]) if pivoting else (r,)
    return (q, r, p[0]) if pivoting else (q, r)


def qr(
    a: Any,
    overwrite_a: bool = False,
    lwork: Any = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> tuple[Any, ...]:
    """QR decomposition (scipy.linalg.qr): `(q, r)`, `(q, r, p)`, `(r,)` or `(r, p)`.

    Args:
      a: matrices (..., m, n).
      mode: "full" (q is m x m), "economic" (m x k) or "r" (r only, as a 1-tuple).
      pivoting: column pivoting; p is the column permutation with a[:, p] = q r.
    """
    del overwrite_a, lwork, check_finite
    return _qr(a, mode, bool(pivoting))


def qr_multiply(
    a: Any,
    c: Any,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
) -> tuple[Any, ...]:
    """Q c (mode="left") or c Q (mode="right") for the QR factorization of a, without forming Q.

    Returns:
      `(cq, r)` or `(cq, r, p)` with pivoting, r of shape (..., k, n), k = min(m, n)
      (scipy.linalg.qr_multiply).
    """
    del overwrite_a, overwrite_c
    a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    one_dimensional = c.ndim == 1
    if one_dimensional:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(
            f"Array shapes are not compatible for Q @ c operation: a has shape {tuple(a.shape)} "
            f"so Q has {k} columns, but c has {c.shape[-2]} rows (expected {k})."
        )
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(
            f"Array shapes are not compatible for c @ Q operation: a has shape {tuple(a.shape)} "
            f"so Q has {m} rows, but c has {c.shape[-1]} columns (expected {m})."
        )
    batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])
    packed, taus, *p = lr.geqrf(a, pivoting=pivoting)
    if m > n and mode == "left":
        c = jnp.concatenate([c, jnp.zeros((*c.shape[:-2], m - k, c.shape[-1]), c.dtype)], axis=-2)
    if conjugate:
        c = c.swapaxes(-1, -2)
    product = lr.ormqr(packed, taus, c, left=(mode == "left") != conjugate, transpose=conjugate)
    if conjugate:
        product = product.swapaxes(-1, -2)
    if mode == "right":
        product = product[..., :k]
    if one_dimensional:
        product = product.ravel()
    r = jnp.triu(packed[..., :k, :])
    return (product, r, p[0]) if pivoting else (product, r)


# --- svd, eigh, schur, hessenberg --------------------------------------------------------------


@jit(static_argnames=("full_matrices", "compute_uv"))
def _svd(a, *, full_matrices, compute_uv):
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    return ll.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svd(
    a: Any,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """Singular value decomposition (scipy.linalg.svd): `(u, s, vh)`, or `s`."""
    del overwrite_a, check_finite, lapack_driver
    return _svd(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))


@jit(static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(a, b, lower, eigvals_only, eigvals, type):  # noqa: A002 (SciPy's name)
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    v, w = ll.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh(
    a: Any,
    b: Any = None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals: None = None,
    type: int = 1,  # noqa: A002 (SciPy's name)
    check_finite: bool = True,
) -> Any:
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices (scipy.linalg.eigh).

    Only the standard problem (b=None, type=1, all eigenvalues) is supported, as in JAX.

    Returns:
      `(w, v)`, or `w` with `eigvals_only`.
    """
    del overwrite_a, overwrite_b, turbo, check_finite
    return _eigh(a, b, bool(lower), bool(eigvals_only), eigvals, type)


@jit(static_argnames=("output",))
def _schur(a, output):
    if output == "complex":
        a = a.astype(to_complex_dtype(a.dtype))
    return lr.schur(a)


def schur(a: Any, output: str = "real") -> tuple[Any, Any]:
    """Schur decomposition a = Z T Z^H (scipy.linalg.schur): `(T, Z)`.

    Args:
      a: square matrices.
      output: "real" (quasi-triangular T for real input) or "complex" (triangular T).
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    return _schur(jnp.asarray(a), output)


@jit(static_argnames=("calc_q", "check_finite", "overwrite_a"))
def hessenberg(
    a: Any, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """Upper Hessenberg form h = q^H a q (scipy.linalg.hessenberg): `h`, or `(h, q)`."""
    del overwrite_a, check_finite
    a = jnp.asarray(a)
    n = a.shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    packed, taus = lr.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    q = lr.householder_product(packed[..., 1:, :-1], taus)
    q = jnp.pad(q, [(0, 0)] * (q.ndim - 2) + [(1, 0), (1, 0)])  # q = diag(1, q_reflectors)
    corner = jnp.zeros((n, n), a.dtype).at[0, 0].set(1)
    return h, q + corner


# --- polar ---------------------------------------------------------------------------------------


@jit(static_argnames=("side", "method"))
def _polar_2d(a, side, method, eps, max_iterations):
    m, n = a.shape
    if method == "qdwh":
        if m >= n and side == "right":
            unitary, posdef, _, _ = lc.qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            unitary, posdef, _, _ = lc.qdwh(a.T.conj(), is_hermitian=False, eps=eps)
            unitary, posdef = unitary.T.conj(), posdef.T.conj()
        else:
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' and "
                f"m >= n side='left', got {a.shape} with {side=}"
            )
    elif method == "svd":
        left, s, vh = ll.svd(a, full_matrices=False)
        s = s.astype(left.dtype)
        unitary = jnp.matmul(left, vh, precision=lax.Precision.HIGHEST)
        if side == "right":
            posdef = jnp.matmul(vh.T.conj() * s[None, :], vh, precision=lax.Precision.HIGHEST)
        else:
            posdef = jnp.matmul(left * s[None, :], left.T.conj(), precision=lax.Precision.HIGHEST)
    else:
        raise ValueError(f"Unknown polar decomposition method {method}.")
    return unitary, posdef


def polar(
    a: Any,
    side: str = "right",
    *,
    method: str = "qdwh",
    eps: float | None = None,
    max_iterations: int | None = None,
) -> tuple[Any, Any]:
    """Polar decomposition a = u p (side="right") or a = p u (scipy.linalg.polar).

    Args:
      a: matrices (..., m, n).
      side: "right" or "left".
      method: "qdwh" (dynamically weighted Halley iteration) or "svd".
      eps, max_iterations: QDWH's tolerance parameter and iteration cap.

    Returns:
      `(u, p)`: u with orthonormal columns (rows), p Hermitian positive semidefinite.
    """
    arr = jnp.asarray(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    signature = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    fn = functools.partial(
        _polar_2d, side=side, method=method, eps=eps, max_iterations=max_iterations
    )
    return jnp.vectorize(fn, signature=signature)(arr)


# --- rsf2csf ------------------------------------------------------------------------------------


def _rsf2csf_2d(t, z):
    t, z = promote_dtypes_complex(t, z)
    eps = dtypes.finfo(t.dtype).eps
    n = t.shape[0]
    if n == 1:
        return t, z
    positions = jnp.arange(n)

    def rotate(m, t, z):
        # A Givens rotation G zeroing t[m, m-1]; t <- G t G^H on the rows/columns it touches.
        mu = jnp.linalg.eigvals(lax.dynamic_slice(t, (m - 1, m - 1), (2, 2))) - t[m, m]
        r = jnp.linalg.norm(jnp.stack([mu[0], t[m, m - 1]])).astype(t.dtype)
        c, s = mu[0] / r, t[m, m - 1] / r
        g = jnp.stack([jnp.stack([c.conj(), s]), jnp.stack([-s, c])])
        rows = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=0)
        columns_touched = positions >= m - 1
        rows = jnp.where(columns_touched, g @ jnp.where(columns_touched, rows, 0), rows)
        t = lax.dynamic_update_slice_in_dim(t, rows, m - 1, axis=0)
        cols = lax.dynamic_slice_in_dim(t, m - 1, 2, axis=1)
        rows_touched = positions[:, None] < m + 1
        cols = jnp.where(rows_touched, jnp.where(rows_touched, cols, 0) @ g.conj().T, cols)
        t = lax.dynamic_update_slice_in_dim(t, cols, m - 1, axis=1)
        z_cols = lax.dynamic_slice_in_dim(z, m - 1, 2, axis=1)
        z = lax.dynamic_update_slice_in_dim(z, z_cols @ g.conj().T, m - 1, axis=1)
        return t, z

    def step(i, tz):
        m = n - i
        t, z = tz
        below = jnp.abs(t[m, m - 1])
        t, z = lax.cond(
            below > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m])),
            rotate,
            lambda m, t, z: (t, z),
            m,
            t,
            z,
        )
        return t.at[m, m - 1].set(0.0), z

    return lax.fori_loop(1, n, step, (t, z))


@jit(static_argnames=("check_finite",))
def rsf2csf(T: Any, Z: Any, check_finite: bool = True) -> tuple[Any, Any]:  # noqa: N803 (SciPy's names)
    """Real Schur form (T, Z) to complex Schur form (scipy.linalg.rsf2csf)."""
    del check_finite
    t, z = jnp.asarray(T), jnp.asarray(Z)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if t.shape[-1] != z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(t, z)
