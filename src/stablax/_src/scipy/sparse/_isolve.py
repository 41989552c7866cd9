"""Iterative solvers of scipy.sparse.linalg: cg, bicgstab and gmres.

The operator A (and the preconditioner M) may be a matrix or a function of a pytree; b and x0
are pytrees of one structure. Each solve is one `lax.while_loop`, differentiated implicitly
through `linear_solve`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import dtypes, lax, tree_util
from stablax._src.scipy.linalg._solve import solve as dense_solve
from stablax._src.scipy.linalg._solve import solve_triangular
from stablax._src.scipy.sparse._linear_solve import linear_solve

_HIGHEST = lax.Precision.HIGHEST


def _dot(a: Any, b: Any) -> Any:
    return jnp.dot(a, b, precision=_HIGHEST)


def _vdot(a: Any, b: Any) -> Any:
    # numpy.vdot: the conjugated first operand, both flattened.
    return jnp.dot(jnp.conj(a).ravel(), jnp.ravel(b), precision=_HIGHEST)


def _vdot_real_part(x, y):
    # Re <x, y>, without forming the complex product.
    result = _vdot(x.real, y.real)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        result += _vdot(x.imag, y.imag)
    return result


def _vdot_real_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot, x, y)))


def _norm(x):
    leaves = tree_util.tree_leaves(x)
    return jnp.sqrt(sum(_vdot_real_part(v, v) for v in leaves))


def _mul(scalar, tree):
    return tree_util.tree_map(lambda v: scalar * v, tree)


def _add(x, y):
    return tree_util.tree_map(operator.add, x, y)


def _sub(x, y):
    return tree_util.tree_map(operator.sub, x, y)


def _identity(x):
    return x


def _lattice_dtype(tree) -> tuple[np.dtype, bool]:
    return dtypes.result_type(*tree_util.tree_leaves(tree), return_weak_type_flag=True)


def _as_operator(f: Any) -> Callable:
    if callable(f):
        return f
    if hasattr(f, "ndim") and hasattr(f, "shape"):
        if f.ndim != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return functools.partial(_dot, jnp.asarray(f))
    if hasattr(f, "__matmul__"):
        return functools.partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


# --- conjugate gradients -------------------------------------------------------------------------


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):  # noqa: N803 (SciPy's names)
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))
    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = dtypes.result_type(*tree_util.tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)

    def cond(value):
        _, r, gamma, _, k = value
        residual = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (residual > atol2) & (k < maxiter)

    def body(value):
        x, r, gamma, p, k = value
        ap = A(p)
        alpha = gamma / _vdot_real_tree(p, ap).astype(dtype)
        x = _add(x, _mul(alpha, p))
        r = _sub(r, _mul(alpha, ap))
        z = M(r)
        gamma_next = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _mul(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1

    return lax.while_loop(cond, body, (x0, r0, gamma0, p0, 0))[0]


# --- BiCGSTAB ------------------------------------------------------------------------------------


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):  # noqa: N803 (SciPy's names)
    atol2 = jnp.maximum(jnp.square(tol) * _vdot_real_tree(b, b), jnp.square(atol))

    def cond(value):
        _, r, *_, k = value
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_next = _vdot_tree(rhat, r)
        beta = rho_next / rho * alpha / omega
        p = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_next / _vdot_tree(rhat, q)
        s = _sub(r, _mul(alpha, q))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega = _vdot_tree(t, s) / _vdot_tree(t, t)
        pick = functools.partial(jnp.where, exit_early)
        x = tree_util.tree_map(
            pick, _add(x, _mul(alpha, phat)), _add(x, _add(_mul(alpha, phat), _mul(omega, shat)))
        )
        r = tree_util.tree_map(pick, s, _sub(s, _mul(omega, t)))
        # Breakdown codes stop the loop: -11 (omega or alpha zero), -10 (rho zero).
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, q, k

    r0 = _sub(b, A(x0))
    one = jnp.asarray(1, dtype=_lattice_dtype(b)[0])
    return lax.while_loop(cond, body, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


# --- the shared driver ---------------------------------------------------------------------------


def _shapes(tree):
    return [np.shape(v) for v in tree_util.tree_leaves(tree)]


def _prepare(A, b, x0, M):  # noqa: N803 (SciPy's names)
    b = tree_util.tree_map(jnp.asarray, b)
    x0 = (
        tree_util.tree_map(jnp.zeros_like, b) if x0 is None else tree_util.tree_map(jnp.asarray, x0)
    )
    if tree_util.tree_structure(x0) != tree_util.tree_structure(b):
        raise ValueError(
            "x0 and b must have matching tree structure: "
            f"{tree_util.tree_structure(x0)} vs {tree_util.tree_structure(b)}"
        )
    return _as_operator(A), b, x0, _identity if M is None else _as_operator(M)


def _isolve(solver, A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None,  # noqa: N803
            check_symmetric=False):  # fmt: skip
    A, b, x0, M = _prepare(A, b, x0, M)  # noqa: N806
    if maxiter is None:
        maxiter = 10 * sum(v.size for v in tree_util.tree_leaves(b))
    if _shapes(x0) != _shapes(b):
        raise ValueError(
            f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs {_shapes(b)}"
        )
    solve = functools.partial(solver, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    real = all(not jnp.iscomplexobj(v) for v in tree_util.tree_leaves(b))
    symmetric = real if check_symmetric else False
    x = linear_solve(A, b, solve=solve, transpose_solve=solve, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):  # noqa: N803
    """Solves A x = b by conjugate gradients, A Hermitian positive definite (scipy's cg).

    Args:
      A: a matrix, or a function computing A x for a pytree x like b.
      b: the right-hand side (a pytree of arrays).
      x0: the starting guess (default zeros).
      tol, atol: stop once ||r|| <= max(tol ||b||, atol).
      maxiter: at most this many iterations (default 10 * size of b).
      M: a preconditioner approximating A^-1 (matrix or function).

    Returns:
      `(x, info)`; info is None (convergence is not reported, as in JAX).
    """
    return _isolve(
        _cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, check_symmetric=True
    )


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):  # noqa: N803
    """Solves A x = b by the biconjugate gradient stabilized method (scipy's bicgstab).

    Arguments as `cg`; A need not be symmetric. Returns `(x, None)`.
    """
    return _isolve(_bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


# --- GMRES ---------------------------------------------------------------------------------------


def _safe_normalize(x, thresh=None):
    norm = _norm(x)
    dtype, weak = _lattice_dtype(x)
    if thresh is None:
        thresh = dtypes.finfo(norm.dtype).eps
    thresh = jnp.asarray(thresh).astype(dtype).real
    use = norm > thresh
    scale = lax.convert_element_type(norm, dtype)
    return tree_util.tree_map(lambda y: jnp.where(use, y / scale, 0.0), x), jnp.where(
        use, norm, 0.0
    )


def _project_on_columns(basis, v):
    parts = tree_util.tree_map(
        lambda q, y: jnp.einsum("...n,...->n", q.conj(), y, precision=_HIGHEST), basis, v
    )
    return functools.reduce(operator.add, tree_util.tree_leaves(parts))


def _gram_schmidt(basis, x, xnorm, max_iterations=2):
    # Iterated classical Gram-Schmidt of x against the columns of basis ("twice is enough").
    first = tree_util.tree_leaves(basis)[0]
    r = jnp.zeros(first.shape[-1], dtype=first.dtype)

    def step(carry):
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(basis, q)
        q = _sub(q, tree_util.tree_map(lambda m: _dot(m, h), basis))
        r = _add(r, h)

        def renorm(carry):
            k, _, q, _ = carry
            _, qnorm = _safe_normalize(q)
            return k, False, q, qnorm / jnp.sqrt(2.0)

        _, _, q, qnorm_scaled = lax.while_loop(
            lambda c: jnp.logical_and(c[1], c[0] < max_iterations - 1),
            renorm,
            (k, True, q, qnorm_scaled),
        )
        return k + 1, q, r, qnorm_scaled

    def again(carry):
        k, _, r, qnorm_scaled = carry
        _, rnorm = _safe_normalize(r)
        return jnp.logical_and(k < max_iterations - 1, rnorm < qnorm_scaled)

    carry = step((0, x, r, xnorm / jnp.sqrt(2.0)))
    _, q, r, _ = lax.while_loop(again, step, carry)
    return q, r


def _arnoldi_step(k, A, M, basis, h_matrix):  # noqa: N803
    dtype, _ = _lattice_dtype(basis)
    eps = dtypes.finfo(dtype).eps
    v = M(A(tree_util.tree_map(lambda m: m[..., k], basis)))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _gram_schmidt(basis, v, v_norm_0, max_iterations=2)
    unit, v_norm_1 = _safe_normalize(v, thresh=eps * v_norm_0)
    basis = tree_util.tree_map(lambda m, y: m.at[..., k + 1].set(y), basis, unit)
    h = h.at[k + 1].set(v_norm_1.astype(dtype))
    return basis, h_matrix.at[k, :].set(h), v_norm_1 == 0.0


def _rotate(h, i, cs, sn):
    x1, y1 = h[i], h[i + 1]
    return h.at[i].set(cs.conj() * x1 - sn.conj() * y1).at[i + 1].set(sn * x1 + cs * y1)


def _givens(a, b):
    b_zero = abs(b) == 0
    a_lt_b = abs(a) < abs(b)
    t = -jnp.where(a_lt_b, a, b) / jnp.where(a_lt_b, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    cs = jnp.where(b_zero, 1, jnp.where(a_lt_b, r * t, r))
    sn = jnp.where(b_zero, 0, jnp.where(a_lt_b, r, r * t))
    return cs, sn


def _initial_basis(unit_residual, restart):
    return tree_util.tree_map(
        lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual
    )


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):  # noqa: N803
    basis = _initial_basis(unit_residual, restart)
    dtype = dtypes.result_type(*tree_util.tree_leaves(b))
    r_matrix = jnp.eye(restart, restart + 1, dtype=dtype)
    givens = jnp.zeros((restart, 2), dtype=dtype)
    beta = jnp.zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def step(carry):
        k, _, basis, r_matrix, beta, givens = carry
        basis, h, _ = _arnoldi_step(k, A, M, basis, r_matrix)
        row = lax.fori_loop(0, k, lambda i, row: _rotate(row, i, *givens[i, :]), h[k, :])
        factors = _givens(row[k], row[k + 1])
        givens = givens.at[k, :].set(factors)
        r_matrix = r_matrix.at[k, :].set(_rotate(row, k, *factors))
        beta = _rotate(beta, k, *givens[k, :])
        return k + 1, abs(beta[k + 1]), basis, r_matrix, beta, givens

    carry = (0, residual_norm, basis, r_matrix, beta, givens)
    carry = lax.while_loop(lambda c: jnp.logical_and(c[0] < restart, c[1] > ptol), step, carry)
    _, _, basis, r_matrix, beta, _ = carry
    y = solve_triangular(r_matrix[:, :-1].T, beta[:-1])
    x = _add(x0, tree_util.tree_map(lambda m: _dot(m[..., :-1], y), basis))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):  # noqa: N803
    del ptol
    basis = _initial_basis(unit_residual, restart)
    dtype, _ = _lattice_dtype(b)
    h_matrix = jnp.eye(restart, restart + 1, dtype=dtype)

    def step(carry):
        basis, h_matrix, _, k = carry
        basis, h_matrix, breakdown = _arnoldi_step(k, A, M, basis, h_matrix)
        return basis, h_matrix, breakdown, k + 1

    basis, h_matrix, _, _ = lax.while_loop(
        lambda c: jnp.logical_and(c[3] < restart, jnp.logical_not(c[2])),
        step,
        (basis, h_matrix, False, 0),
    )
    beta = jnp.zeros_like(h_matrix, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    # The small least-squares problem by its normal equations.
    ht = h_matrix.T
    y = dense_solve(_dot(ht.T.conj(), ht), _dot(ht.T.conj(), beta), assume_a="pos")
    x = _add(x0, tree_util.tree_map(lambda m: _dot(m[..., :-1], y), basis))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, cycle):  # noqa: N803
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))

    def body(value):
        x, k, unit_residual, residual_norm = value
        x, unit_residual, residual_norm = cycle(
            A, b, x, unit_residual, residual_norm, ptol, restart, M
        )
        return x, k + 1, unit_residual, residual_norm

    return lax.while_loop(
        lambda v: jnp.logical_and(v[1] < maxiter, v[3] > atol),
        body,
        (x0, 0, unit_residual, residual_norm),
    )[0]


def gmres(
    A: Any,  # noqa: N803 (SciPy's names)
    b: Any,
    x0: Any = None,
    *,
    tol: float = 1e-5,
    atol: float = 0.0,
    restart: int = 20,
    maxiter: int | None = None,
    M: Any = None,  # noqa: N803
    solve_method: str = "batched",
) -> tuple[Any, Any]:
    """Solves A x = b by restarted GMRES (scipy.sparse.linalg.gmres).

    Args:
      A, b, x0, tol, atol, M: as `cg` (M preconditions on the left).
      restart: the Krylov subspace size per cycle.
      maxiter: at most this many restart cycles (default 10 * size of b).
      solve_method: "batched" (build the basis, then one least-squares solve) or
        "incremental" (Givens rotations, stopping early within a cycle).

    Returns:
      `(x, info)`: info is -1 when x is NaN, else 0.
    """
    A, b, x0, M = _prepare(A, b, x0, M)  # noqa: N806
    size = sum(v.size for v in tree_util.tree_leaves(b))
    maxiter = 10 * size if maxiter is None else maxiter
    restart = min(restart, size)
    b_norm = _norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
    if solve_method == "incremental":
        cycle = _gmres_incremental
    elif solve_method == "batched":
        cycle = _gmres_batched
    else:
        raise ValueError(
            f"invalid solve_method {solve_method}, must be either 'incremental' or 'batched'"
        )

    def solve(operator, rhs):
        return _gmres_solve(operator, rhs, x0, atol, ptol, restart, maxiter, M, cycle)

    x = linear_solve(A, b, solve=solve, transpose_solve=solve)
    info = jnp.where(jnp.isnan(_norm(x)), -1, 0)
    return x, info
