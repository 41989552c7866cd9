"""scipy.optimize.minimize for unconstrained problems: BFGS and (experimental) L-BFGS."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from stablax import numpy as jnp
from stablax._src.scipy.optimize._bfgs import minimize_bfgs, minimize_lbfgs


class OptimizeResults(NamedTuple):
    """The result of `minimize`.

    Attributes:
      x: the final point.
      success: whether the optimizer converged (and did not fail).
      status: the solver's status code (0 on convergence).
      fun: the objective at x.
      jac: its gradient at x.
      hess_inv: the inverse-Hessian estimate (BFGS only, else None).
      nfev, njev: numbers of function and gradient evaluations.
      nit: number of iterations.
    """

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(
    fun: Callable,
    x0: Any,
    args: tuple = (),
    *,
    method: str,
    tol: float | None = None,
    options: Mapping[str, Any] | None = None,
) -> OptimizeResults:
    """Minimizes a scalar function of one 1-D array (scipy.optimize.minimize, unconstrained).

    Args:
      fun: the objective, `fun(x, *args)` -> scalar.
      x0: the starting point, 1-D.
      args: extra arguments of fun (a tuple).
      method: "BFGS", or "l-bfgs-experimental-do-not-rely-on-this".
      tol: unused (pass `gtol` in `options`).
      options: keyword arguments of the solver (maxiter, norm, gtol, line_search_maxiter for
        BFGS; maxiter, norm, maxcor, ftol, gtol, maxfun, maxgrad, maxls for L-BFGS).

    Returns:
      An `OptimizeResults`.
    """
    del tol
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")

    def objective(x):
        return fun(x, *args)

    name = method.lower()
    if name == "bfgs":
        results = minimize_bfgs(objective, x0, **options)
        hess_inv = results.H_k
    elif name == "l-bfgs-experimental-do-not-rely-on-this":
        results = minimize_lbfgs(objective, x0, **options)
        hess_inv = None
    else:
        raise ValueError(f"Method {method} not recognized")
    return OptimizeResults(
        x=results.x_k,
        success=results.converged & jnp.logical_not(results.failed),
        status=results.status,
        fun=results.f_k,
        jac=results.g_k,
        hess_inv=hess_inv,
        nfev=results.nfev,
        njev=results.ngev,
        nit=results.k,
    )
