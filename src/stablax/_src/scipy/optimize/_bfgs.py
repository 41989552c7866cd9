"""Quasi-Newton minimizers: BFGS (dense inverse Hessian) and L-BFGS (two-loop recursion), each
one `lax.while_loop` around the Wolfe line search.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax
from stablax._src.scipy.optimize._line_search import line_search
from stablax._src.transforms.ad_reverse import value_and_grad


def _dot(a: Any, b: Any) -> Any:
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


class BFGSResults(NamedTuple):
    """The state (and result) of `minimize_bfgs`."""

    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    status: Any
    line_search_status: Any


def minimize_bfgs(
    fun: Callable,
    x0: Any,
    maxiter: int | None = None,
    norm: Any = np.inf,
    gtol: float = 1e-5,
    line_search_maxiter: int = 10,
) -> BFGSResults:
    """Minimizes fun from x0 (1-D) with BFGS (Nocedal and Wright, algorithm 6.1).

    Stops when the gradient's `norm` falls below `gtol`, after `maxiter` iterations (default
    200 per variable), or when the line search fails. `status`: 0 converged, 1 maxiter, 2 + the
    line search's status on its failure, -1 otherwise.
    """
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    state = BFGSResults(
        converged=jnp.linalg.norm(g_0, ord=norm) < gtol,
        failed=False, k=0, nfev=1, ngev=1, nhev=0,
        x_k=x0, f_k=f_0, g_k=g_0, H_k=jnp.eye(d, dtype=x0.dtype),
        old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=0, line_search_status=0,
    )  # fmt: skip

    def cond(state):
        return ~state.converged & ~state.failed & (state.k < maxiter)

    def body(state):
        p_k = -_dot(state.H_k, state.g_k)
        search = line_search(
            fun, state.x_k, p_k, old_fval=state.f_k, old_old_fval=state.old_old_fval,
            gfk=state.g_k, maxiter=line_search_maxiter,
        )  # fmt: skip
        state = state._replace(
            nfev=state.nfev + search.nfev,
            ngev=state.ngev + search.ngev,
            failed=search.failed,
            line_search_status=search.status,
        )
        s_k = search.a_k * p_k
        y_k = search.g_k - state.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        # H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * (s_k[:, np.newaxis] * y_k[np.newaxis, :])
        h_next = (
            jnp.einsum("ij,jk,lk", w, state.H_k, w, precision=lax.Precision.HIGHEST)
            + rho_k * s_k[:, np.newaxis] * s_k[np.newaxis, :]
        )
        h_next = jnp.where(jnp.isfinite(rho_k), h_next, state.H_k)
        return state._replace(
            converged=jnp.linalg.norm(search.g_k, ord=norm) < gtol,
            k=state.k + 1,
            x_k=state.x_k + s_k,
            f_k=search.f_k,
            g_k=search.g_k,
            H_k=h_next,
            old_old_fval=state.f_k,
        )

    state = lax.while_loop(cond, body, state)
    status = jnp.where(
        state.converged,
        0,
        jnp.where(state.k == maxiter, 1, jnp.where(state.failed, 2 + state.line_search_status, -1)),
    )
    return state._replace(status=status)


class LBFGSResults(NamedTuple):
    """The state (and result) of `minimize_lbfgs`."""

    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    s_history: Any
    y_history: Any
    rho_history: Any
    gamma: Any
    status: Any
    ls_status: Any


def minimize_lbfgs(
    fun: Callable,
    x0: Any,
    maxiter: float | None = None,
    norm: Any = np.inf,
    maxcor: int = 10,
    ftol: float = 2.220446049250313e-09,
    gtol: float = 1e-5,
    maxfun: float | None = None,
    maxgrad: float | None = None,
    maxls: int = 20,
) -> LBFGSResults:
    """Minimizes fun from x0 (1-D, real or complex) with L-BFGS keeping `maxcor` pairs.

    `status`: 0 converged, 1 maxiter, 2 maxfun, 3 maxgrad, 4 no progress (ftol), 5 line
    search failure.
    """
    d = len(x0)
    dtype = jnp.asarray(x0).dtype
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200
    maxiter = np.inf if maxiter is None else maxiter
    maxfun = np.inf if maxfun is None else maxfun
    maxgrad = np.inf if maxgrad is None else maxgrad
    f_0, g_0 = value_and_grad(fun)(x0)
    state = LBFGSResults(
        converged=jnp.array(False, dtype=bool), failed=jnp.array(False, dtype=bool),
        k=0, nfev=1, ngev=1, x_k=x0, f_k=f_0, g_k=g_0,
        s_history=jnp.zeros((maxcor, d), dtype=dtype),
        y_history=jnp.zeros((maxcor, d), dtype=dtype),
        rho_history=jnp.zeros((maxcor,), dtype=dtype),
        gamma=1.0, status=0, ls_status=0,
    )  # fmt: skip

    def body(state):
        p_k = _two_loop_recursion(state)
        search = line_search(fun, state.x_k, p_k, old_fval=state.f_k, gfk=state.g_k, maxiter=maxls)
        s_k = jnp.asarray(search.a_k).astype(p_k.dtype) * p_k
        y_k = search.g_k - state.g_k
        rho_inverse = jnp.real(_dot(y_k, s_k))
        rho_k = jnp.reciprocal(rho_inverse).astype(y_k.dtype)
        gamma = rho_inverse / jnp.real(_dot(jnp.conj(y_k), y_k))
        status = jnp.array(0)
        status = jnp.where(state.f_k - search.f_k < ftol, 4, status)
        status = jnp.where(state.ngev >= maxgrad, 3, status)
        status = jnp.where(state.nfev >= maxfun, 2, status)
        status = jnp.where(state.k >= maxiter, 1, status)
        status = jnp.where(search.failed, 5, status)
        converged = jnp.linalg.norm(search.g_k, ord=norm) < gtol
        return state._replace(
            converged=converged,
            failed=(status > 0) & ~converged,
            k=state.k + 1,
            nfev=state.nfev + search.nfev,
            ngev=state.ngev + search.ngev,
            x_k=(state.x_k + s_k).astype(state.x_k.dtype),
            f_k=search.f_k.astype(state.f_k.dtype),
            g_k=search.g_k.astype(state.g_k.dtype),
            s_history=_push(state.s_history, s_k),
            y_history=_push(state.y_history, y_k),
            rho_history=_push(state.rho_history, rho_k),
            gamma=gamma.astype(state.g_k.dtype),
            status=jnp.where(converged, 0, status),
            ls_status=search.status,
        )

    return lax.while_loop(lambda s: ~s.converged & ~s.failed, body, state)


def _push(history, new):
    # The oldest entry drops off the front; the newest goes last.
    return jnp.roll(history, -1, axis=0).at[-1].set(new)


def _two_loop_recursion(state: LBFGSResults) -> Any:
    # The search direction -H g from the stored pairs (Nocedal and Wright, algorithm 7.4).
    dtype = state.rho_history.dtype
    size = len(state.rho_history)
    used = jnp.where(state.k < size, state.k, size)

    def backward(j, carry):
        i = size - 1 - j
        q, alphas = carry
        a_i = state.rho_history[i] * _dot(jnp.conj(state.s_history[i]), q).real.astype(dtype)
        return q - a_i * jnp.conj(state.y_history[i]), alphas.at[i].set(a_i)

    q, alphas = lax.fori_loop(
        0, used, backward, (-jnp.conj(state.g_k), jnp.zeros_like(state.rho_history))
    )
    q = state.gamma * q

    def forward(j, q):
        i = size - used + j
        b_i = state.rho_history[i] * _dot(state.y_history[i], q).real.astype(dtype)
        return q + (alphas[i] - b_i) * state.s_history[i]

    return lax.fori_loop(0, used, forward, q)
