"""scipy.linalg.eigh_tridiagonal: eigenvalues by bisection on Sturm sequence counts,
eigenvectors by inverse iteration with re-orthogonalized clusters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax import random
from stablax._src import dtypes, lax
from stablax._src.jit import jit
from stablax._src.lax import _linalg_reductions as lr


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    # How many eigenvalues lie below each shift in x (Sturm sequence of the LDL^T pivots).
    n = alpha.shape[0]
    zeros, ones = jnp.zeros(x.shape, np.int32), jnp.ones(x.shape, np.int32)
    q = alpha[0] - x
    count = jnp.where(q < 0, ones, zeros)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

    def step(i, q, count):
        q = alpha[i] - beta_sq[i - 1] / q - x
        count = jnp.where(q <= pivmin, count + 1, count)
        return jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q), count

    block = 16  # steps per loop iteration; the remainder first

    def steps(start, q, count, length):
        for j in range(length):
            q, count = step(start + j, q, count)
        return start + length, q, count

    i, q, count = steps(1, q, count, (n - 1) % block)
    _, _, count = lax.while_loop(
        lambda state: state[0] < n, lambda state: steps(*state, block), (i, q, count)
    )
    return count


def _inverse_iteration(alpha, beta, eigvals, key):
    n, k = alpha.shape[0], eigvals.shape[0]
    dl, du = jnp.pad(jnp.conj(beta), (1, 0)), jnp.pad(beta, (0, 1))
    gap = eigvals[1:] - eigvals[:-1]
    eps = np.finfo(eigvals.dtype).eps
    t_norm = jnp.maximum(jnp.abs(eigvals[0]), jnp.abs(eigvals[-1]))
    close = gap < jnp.sqrt(eps) * t_norm
    left_close = jnp.pad(close, (1, 0), constant_values=False)
    right_close = jnp.pad(close, (0, 1), constant_values=False)
    # Clusters of close eigenvalues: [start, end) intervals whose vectors are orthogonalized.
    max_clusters = k // 2 + 1
    starts = jnp.nonzero(~left_close & right_close, size=max_clusters)[0]
    ends = jnp.nonzero(left_close & ~right_close, size=max_clusters)[0] + 1
    num_clusters = jnp.sum(~left_close & right_close)
    positions = jnp.arange(k)
    solve_dtype = np.result_type(alpha.dtype, beta.dtype)
    v = random.normal(key, (k, n), dtype=np.finfo(solve_dtype).dtype).astype(solve_dtype)
    v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(solve_dtype)

    def orthogonalize(vectors):
        def cluster(i, vectors):
            start, end = starts[i], ends[i]
            padded = jnp.pad(vectors, ((0, k), (0, 0)))
            block = lax.dynamic_slice(padded, (start, 0), (k, n))
            mask = (positions < end - start).astype(vectors.dtype)
            q, _ = jnp.linalg.qr((block * mask[:, None]).T)
            update = lax.dynamic_update_slice(
                jnp.zeros((2 * k, n), vectors.dtype), q.T * mask[:, None], (start, 0)
            )[:k, :]
            inside = (positions >= start) & (positions < end)
            return jnp.where(inside[:, None], update, vectors)

        return lax.fori_loop(0, num_clusters, cluster, vectors)

    shifted = alpha[None, :] - eigvals[:, None]
    dl_rows, du_rows = jnp.broadcast_to(dl[None, :], (k, n)), jnp.broadcast_to(du[None, :], (k, n))

    def step(state):
        i, v, norm, _ = state
        solved = lr.tridiagonal_solve(
            dl_rows.astype(solve_dtype),
            shifted.astype(solve_dtype),
            du_rows.astype(solve_dtype),
            v[:, :, None].astype(solve_dtype),
            perturb_singular=True,
        )[..., 0]
        new_norm = jnp.linalg.norm(solved, axis=-1, keepdims=True)
        solved = solved / new_norm.astype(solved.dtype)
        return i + 1, orthogonalize(solved), new_norm[:, 0], norm

    def keep_going(state):
        i, _, norm, old_norm = state
        return (i < 5) & jnp.any(norm >= 1.1 * old_norm)  # at most 5 steps, while norms grow

    init = (0, v, jnp.ones(k, eigvals.dtype), jnp.zeros(k, eigvals.dtype))
    return lax.while_loop(keep_going, step, init)[1]


@jit(static_argnames=("eigvals_only", "select", "select_range"))
def eigh_tridiagonal(
    d: Any,
    e: Any,
    *,
    eigvals_only: bool = False,
    select: str = "a",
    select_range: tuple[float, float] | None = None,
    tol: float | None = None,
    key: Any = None,
) -> Any:
    """Eigenvalues (and eigenvectors) of a Hermitian tridiagonal matrix
    (scipy.linalg.eigh_tridiagonal).

    Args:
      d: the diagonal (n,); e: the off-diagonal (n-1,), of one dtype.
      eigvals_only: return only the eigenvalues.
      select: "a" (all) or "i" (the indices select_range[0]..select_range[1], inclusive).
      tol: absolute tolerance of the bisection.
      key: PRNG key for inverse iteration's starting vectors (default: key(42)).

    Returns:
      The eigenvalues in ascending order, and the eigenvectors as columns unless
      `eigvals_only`.
    """
    if not eigvals_only and key is None:
        key = random.key(42)
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    supported = (np.float32, np.float64, np.complex64, np.complex128)
    if alpha.dtype != beta.dtype:
        raise TypeError(
            "diagonal and off-diagonal values must have same dtype, got "
            f"{alpha.dtype} and {beta.dtype}"
        )
    if alpha.dtype not in supported or beta.dtype not in supported:
        raise TypeError(
            "Only float32 and float64 inputs are supported as inputs to "
            f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and {beta.dtype}"
        )
    n = alpha.shape[0]
    if n <= 1:
        values = jnp.real(alpha)
        return values if eigvals_only else (values, jnp.eye(n, dtype=alpha.dtype))
    if dtypes.issubdtype(alpha.dtype, np.complexfloating):
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)

    # Gershgorin bounds of the spectrum.
    row_sums = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    lambda_max, lambda_min = jnp.amax(alpha + row_sums), jnp.amin(alpha - row_sums)
    t_norm = jnp.maximum(jnp.abs(lambda_min), jnp.abs(lambda_max))
    finfo = np.finfo(alpha.dtype)
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    max_it = finfo.nmant + 1

    if select == "a":
        target_counts = jnp.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        target_counts = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")

    fudge = 2.1  # the bracket widens by LAPACK's fudge factor
    slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    shape = np.shape(target_counts)
    lower = jnp.broadcast_to(lambda_min - slack - 2 * fudge * pivmin, shape)
    upper = jnp.broadcast_to(lambda_max + slack + fudge * pivmin, shape)
    mid = 0.5 * (upper + lower)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

    def cond(state):
        i, lower, _, upper = state
        return (i < max_it) & (abs_tol < jnp.amax(upper - lower))

    def body(state):
        i, lower, mid, upper = state
        counts = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = jnp.where(counts <= target_counts, mid, lower)
        upper = jnp.where(counts > target_counts, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper

    _, _, mid, _ = lax.while_loop(cond, body, (0, lower, mid, upper))
    if eigvals_only:
        return mid
    return mid, _inverse_iteration(alpha, beta, mid, key).T
