"""odeint: adaptive Dormand-Prince (dopri5) integration of dy/dt = func(y, t, *args), with
derivatives by the adjoint method (Chen et al. 2018, appendix C) through a custom_vjp.

The forward pass is a scan over the output times, each an adaptive while loop of Runge-Kutta
steps with dense output (a 4th-order interpolant); the backward pass integrates the augmented
system (y, y_bar, t_bar, args_bar) backwards in time between consecutive outputs.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from stablax import numpy as jnp
from stablax._src import lax, tree_util
from stablax._src.closure_convert import closure_convert
from stablax._src.flatten_util import ravel_pytree
from stablax._src.interpreters.custom_vjp import custom_vjp
from stablax._src.jit import jit
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.transforms.ad_reverse import vjp
from stablax._src.transforms.vmap_api import vmap

_HIGHEST = lax.Precision.HIGHEST


def safe_map(f: Callable, *args: Iterable) -> list[Any]:
    """`list(map(f, *args))` over sequences of equal length."""
    return [f(*xs) for xs in zip(*args, strict=True)]


def safe_zip(*args: Iterable) -> list[tuple]:
    """`list(zip(*args))` over sequences of equal length."""
    return list(zip(*args, strict=True))


def _dot(a: Any, b: Any) -> Any:
    return jnp.dot(a, b, precision=_HIGHEST)


def ravel_first_arg_(f: Callable, unravel: Callable, y_flat: Any, *args: Any) -> Any:
    """f(unravel(y_flat), *args), raveled."""
    return ravel_pytree(f(unravel(y_flat), *args))[0]


def ravel_first_arg(f: Callable, unravel: Callable, debug_info: Any = None) -> Callable:
    """f made a function of the raveled first argument, returning a raveled result."""
    del debug_info
    return functools.partial(ravel_first_arg_, f, unravel)


# --- one Dormand-Prince step ---------------------------------------------------------------------

# The Butcher tableau of dopri5 (Dormand and Prince 1980).
_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0]
_BETA = [
    [1 / 5, 0, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
]
_C_SOLUTION = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERROR = [
    35 / 384 - 1951 / 21600,
    0,
    500 / 1113 - 22642 / 50085,
    125 / 192 - 451 / 720,
    -2187 / 6784 - -12231 / 42400,
    11 / 84 - 649 / 6300,
    -1.0 / 60.0,
]
# The midpoint of the dense output (Shampine 1986).
_C_MID = [
    6025192743 / 30085553152 / 2,
    0,
    51252292925 / 65400821598 / 2,
    -2691868925 / 45128329728 / 2,
    187940372067 / 1594534317056 / 2,
    -1776094331 / 19743644256 / 2,
    11237099 / 235043384 / 2,
]


def runge_kutta_step(func: Callable, y0: Any, f0: Any, t0: Any, dt: Any) -> tuple:
    """One dopri5 step from (t0, y0) with f0 = func(y0, t0).

    Returns:
      `(y1, f1, y1_error, k)`: the 5th-order solution, its derivative, the embedded error
      estimate and the 7 stage derivatives.
    """
    alpha = jnp.array(_ALPHA, dtype=dt.dtype)
    beta = jnp.array(_BETA, dtype=f0.dtype)
    c_solution = jnp.array(_C_SOLUTION, dtype=f0.dtype)
    c_error = jnp.array(_C_ERROR, dtype=f0.dtype)
    step = dt.astype(f0.dtype)

    def stage(i, k):
        ti = t0 + dt * alpha[i - 1]
        yi = y0 + step * _dot(beta[i - 1, :], k)
        return k.at[i, :].set(func(yi, ti))

    k = jnp.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = lax.fori_loop(1, 7, stage, k)
    y1 = step * _dot(c_solution, k) + y0
    return y1, k[-1], step * _dot(c_error, k), k


def fit_4th_order_polynomial(y0, y1, y_mid, dy0, dy1, dt) -> tuple:
    """Coefficients (a, b, c, d, e) of the quartic through the step's ends and midpoint,
    with the end slopes dy0, dy1 (in the step's relative time)."""
    dt = dt.astype(y0.dtype)
    a = -2.0 * dt * dy0 + 2.0 * dt * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * dt * dy0 - 3.0 * dt * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * dt * dy0 + dt * dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return a, b, c, dt * dy0, y0


def interp_fit_dopri(y0: Any, y1: Any, k: Any, dt: Any) -> Any:
    """The dense-output quartic of one dopri5 step, as (5, n) coefficients for polyval."""
    c_mid = jnp.array(_C_MID, dtype=y0.dtype)
    y_mid = y0 + dt.astype(y0.dtype) * _dot(c_mid, k)
    return jnp.asarray(fit_4th_order_polynomial(y0, y1, y_mid, k[0], k[-1], dt))


def initial_step_size(fun, t0, y0, order, rtol, atol, f0) -> Any:
    """A first step size (Hairer, Norsett and Wanner, Solving ODEs I, section II.4)."""
    y0, f0 = promote_dtypes_inexact(y0, f0)
    dtype = y0.dtype
    scale = (atol + jnp.abs(y0) * rtol).astype(dtype)
    d0 = jnp.linalg.norm(y0 / scale)
    d1 = jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = fun(y0 + h0.astype(dtype) * f0, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = jnp.where(
        (d1 <= 1e-15) & (d2 <= 1e-15),
        jnp.maximum(1e-6, h0 * 1e-3),
        (0.01 / jnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)),
    )
    return jnp.minimum(100.0 * h0, h1)


def abs2(x: Any) -> Any:
    """|x|^2, without a square root for complex x."""
    if jnp.iscomplexobj(x):
        return x.real**2 + x.imag**2
    return x**2


def mean_error_ratio(error_estimate, rtol, atol, y0, y1) -> Any:
    """The RMS of the error estimate relative to the mixed tolerance."""
    tolerance = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    return jnp.sqrt(jnp.mean(abs2(error_estimate / tolerance.astype(error_estimate.dtype))))


def optimal_step_size(
    last_step, mean_error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0
) -> Any:
    """The next step size from the last one and its error ratio."""
    dfactor = jnp.where(mean_error_ratio < 1, 1.0, dfactor)
    factor = jnp.minimum(ifactor, jnp.maximum(mean_error_ratio ** (-1.0 / order) * safety, dfactor))
    return jnp.where(mean_error_ratio == 0, last_step * ifactor, last_step * factor)


def _horner(coefficients: Any, x: Any) -> Any:
    # Evaluates the polynomials in the columns of coefficients (highest degree first) at x.
    y = jnp.zeros_like(coefficients[0])
    for c in coefficients:
        y = y * x + c
    return y


# --- the integrator and its adjoint --------------------------------------------------------------


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    def derivative(y, t):
        return func(y, t, *args)

    def to_next_output(carry, target_t):
        def cond(state):
            i, _, _, t, dt, _, _ = state
            return (t < target_t) & (i < mxstep) & (dt > 0)

        def step(state):
            i, y, f, t, dt, last_t, coeff = state
            next_y, next_f, error, k = runge_kutta_step(derivative, y, f, t, dt)
            next_t = t + dt
            ratio = mean_error_ratio(error, rtol, atol, y, next_y)
            new_coeff = interp_fit_dopri(y, next_y, k, dt)
            dt = jnp.clip(optimal_step_size(dt, ratio), min=0.0, max=hmax)
            # A rejected step keeps the state and retries with the smaller dt.
            new = [i + 1, next_y, next_f, next_t, dt, t, new_coeff]
            old = [i + 1, y, f, t, dt, last_t, coeff]
            return safe_map(functools.partial(jnp.where, ratio <= 1.0), new, old)

        _, *carry = lax.while_loop(cond, step, [0, *carry])
        _, _, t, _, last_t, coeff = carry
        relative = (target_t - last_t) / (t - last_t)
        return carry, _horner(coeff, relative.astype(coeff.dtype))

    f0 = derivative(y0, ts[0])
    dt = jnp.clip(initial_step_size(derivative, ts[0], y0, 4, rtol, atol, f0), min=0.0, max=hmax)
    coeff = jnp.array([y0] * 5)
    _, ys = lax.scan(to_next_output, [y0, f0, ts[0], dt, ts[0], coeff], ts[1:])
    return jnp.concatenate((y0[None], ys))


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _odeint_bwd(func, rtol, atol, mxstep, hmax, residuals, g):
    ys, ts, args = residuals

    def augmented(state, minus_t, *args):
        # The system and its adjoints, run in negated time.
        y, y_bar, *_ = state
        y_dot, pullback = vjp(func, y, -minus_t, *args)
        return (-y_dot, *pullback(y_bar))

    def to_previous_output(carry, i):
        y_bar, t0_bar, args_bar = carry
        # Moving the output time t_i changes the loss by <f(y_i, t_i), g_i>.
        t_bar = _dot(func(ys[i], ts[i], *args), g[i]).real
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            augmented,
            (ys[i], y_bar, t0_bar, args_bar),
            jnp.array([-ts[i], -ts[i - 1]]),
            *args,
            rtol=rtol,
            atol=atol,
            mxstep=mxstep,
            hmax=hmax,
        )
        y_bar, t0_bar, args_bar = tree_util.tree_map(
            operator.itemgetter(1), (y_bar, t0_bar, args_bar)
        )
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], 0.0, tree_util.tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), reversed_ts_bar = lax.scan(
        to_previous_output, init, jnp.arange(len(ts) - 1, 0, -1)
    )
    ts_bar = jnp.concatenate([jnp.array([t0_bar]), reversed_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_bwd)


@jit(static_argnums=(0, 1, 2, 3, 4))
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    y0, unravel = ravel_pytree(y0)
    flat_func = ravel_first_arg(func, unravel)
    out = _odeint(flat_func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return vmap(unravel)(out)


def _is_array_like(x: Any) -> bool:
    return hasattr(x, "aval") or isinstance(x, (np.ndarray, np.generic, int, float, complex, bool))


def odeint(
    func: Callable,
    y0: Any,
    t: Any,
    *args: Any,
    rtol: float = 1.4e-8,
    atol: float = 1.4e-8,
    mxstep: float = jnp.inf,
    hmax: float = jnp.inf,
) -> Any:
    """Integrates dy/dt = func(y, t, *args) from y(t[0]) = y0 by adaptive dopri5 steps.

    Args:
      func: the time derivative, `func(y, t, *args)`, a pytree like y0.
      y0: the initial state (an array or a pytree of arrays).
      t: strictly increasing float times at which to report the solution.
      *args: extra arguments of func (arrays, scalars or pytrees of them).
      rtol, atol: relative and absolute local error tolerances.
      mxstep: at most this many steps between consecutive output times.
      hmax: the largest step size allowed.

    Returns:
      The solution at each time in t: y0's structure with a new leading axis of len(t).
      Differentiable in reverse mode (adjoint method) with respect to y0, t and args.
    """
    for arg in tree_util.tree_leaves(args):
        if not _is_array_like(arg):
            raise TypeError(
                f"The contents of odeint *args must be arrays or scalars, but got {arg}."
            )
    t = jnp.asarray(t)
    if not jnp.issubdtype(t.dtype, jnp.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    converted, consts = closure_convert(func, y0, t[0], *args)
    return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)
