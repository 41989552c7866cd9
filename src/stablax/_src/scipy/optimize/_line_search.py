"""A line search satisfying the strong Wolfe conditions (Nocedal and Wright, algorithms 3.5 and
3.6), as a pair of `lax.while_loop`s so that it runs inside jit and vmap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from stablax import numpy as jnp
from stablax._src import dtypes, lax
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.transforms.ad_reverse import value_and_grad


def _dot(a: Any, b: Any) -> Any:
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
    # The minimizer of the cubic through (a, fa) with slope fpa at a, (b, fb) and (c, fc).
    dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denominator = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc**2, -(db**2)], [-(dc**3), db**3]], dtype=dtype)
    d2 = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    coef_a, coef_b = _dot(d1, d2) / denominator
    radical = coef_b * coef_b - 3.0 * coef_a * fpa
    return a + (-coef_b + jnp.sqrt(radical)) / (3.0 * coef_a)


def _quadratic_minimizer(a, fa, fpa, b, fb):
    # The minimizer of the parabola through (a, fa) with slope fpa at a, and (b, fb).
    db = b - a
    curvature = (fb - fa - fpa * db) / db**2
    return a - fpa / (2.0 * curvature)


def _where_fields(condition, state: NamedTuple, **values) -> NamedTuple:
    """state with each named field replaced by its new value where `condition` holds."""
    current = state._asdict()
    return state._replace(**{k: jnp.where(condition, v, current[k]) for k, v in values.items()})


def _stop_at(condition, state: NamedTuple, a, phi, dphi, g) -> NamedTuple:
    """state done where `condition` holds, there with the step `a` (phi, its slope dphi and the
    gradient g there) as its result."""
    state = state._replace(done=condition | state.done)
    return _where_fields(condition, state, a_star=a, phi_star=phi, dphi_star=dphi, g_star=g)


class _ZoomState(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(
    func_and_grad: Callable,
    sufficient_decrease_fails: Callable,
    curvature_holds: Callable,
    a_lo,
    phi_lo,
    dphi_lo,
    a_hi,
    phi_hi,
    dphi_hi,
    g_0,
    pass_through,
):
    """Shrinks the bracket [a_lo, a_hi] until a step satisfies the strong Wolfe conditions."""
    state = _ZoomState(
        done=False, failed=False, j=0,
        a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
        a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi,
        a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
        a_star=1.0, phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0,
        nfev=0, ngev=0,
    )  # fmt: skip
    cubic_margin, quadratic_margin = 0.2, 0.1

    def body(state):
        width = state.a_hi - state.a_lo
        low, high = jnp.minimum(state.a_hi, state.a_lo), jnp.maximum(state.a_hi, state.a_lo)
        cubic_check, quadratic_check = cubic_margin * width, quadratic_margin * width
        threshold = jnp.where(dtypes.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
        state = state._replace(failed=state.failed | (width <= threshold))
        # Interpolate: a cubic (after the first step), else a quadratic, else bisect.
        a_cubic = _cubic_minimizer(
            state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi,
            state.a_rec, state.phi_rec,
        )  # fmt: skip
        use_cubic = (state.j > 0) & (a_cubic > low + cubic_check) & (a_cubic < high - cubic_check)
        a_quadratic = _quadratic_minimizer(
            state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi
        )
        use_quadratic = (
            ~use_cubic
            & (a_quadratic > low + quadratic_check)
            & (a_quadratic < high - quadratic_check)
        )
        a_j = jnp.where(use_cubic, a_cubic, state.a_rec)
        a_j = jnp.where(use_quadratic, a_quadratic, a_j)
        a_j = jnp.where(~use_cubic & ~use_quadratic, (state.a_lo + state.a_hi) / 2.0, a_j)

        phi_j, dphi_j, g_j = func_and_grad(a_j)
        phi_j = phi_j.astype(state.phi_lo.dtype)
        dphi_j = dphi_j.astype(state.dphi_lo.dtype)
        g_j = g_j.astype(state.g_star.dtype)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)

        hi_to_j = sufficient_decrease_fails(a_j, phi_j) | (phi_j >= state.phi_lo)
        star_to_j = curvature_holds(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (state.a_hi - state.a_lo) >= 0.0) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j
        state = _where_fields(
            hi_to_j, state, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
            a_rec=state.a_hi, phi_rec=state.phi_hi,
        )  # fmt: skip
        state = _stop_at(star_to_j, state, a_j, phi_j, dphi_j, g_j)
        state = _where_fields(
            hi_to_lo, state, a_hi=state.a_lo, phi_hi=state.phi_lo, dphi_hi=state.dphi_lo,
            a_rec=state.a_hi, phi_rec=state.phi_hi,
        )  # fmt: skip
        state = _where_fields(lo_to_j & ~hi_to_lo, state, a_rec=state.a_lo, phi_rec=state.phi_lo)
        state = _where_fields(lo_to_j, state, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        state = state._replace(j=state.j + 1)
        return state._replace(failed=state.failed | (state.j >= 30))

    return lax.while_loop(lambda s: ~s.done & ~pass_through & ~s.failed, body, state)


class _LineSearchState(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class LineSearchResults(NamedTuple):
    """The outcome of `line_search`: the step a_k, f and its gradient there, and counters."""

    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(
    f: Callable,
    xk: Any,
    pk: Any,
    old_fval: Any = None,
    old_old_fval: Any = None,
    gfk: Any = None,
    c1: float = 1e-4,
    c2: float = 0.9,
    maxiter: int = 20,
) -> LineSearchResults:
    """A step size along pk from xk satisfying the strong Wolfe conditions.

    Args:
      f: the function to minimize (of one array).
      xk, pk: the current point and the search direction.
      old_fval, gfk: f and its gradient at xk, if known.
      old_old_fval: f at the previous point (sets the first trial step).
      c1, c2: the sufficient-decrease and curvature constants.
      maxiter: at most this many bracketing steps.
    """
    xk, pk = promote_dtypes_inexact(xk, pk)

    def func_and_grad(t):
        t = jnp.array(t, dtype=pk.dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(_dot(g, pk)), g

    fresh = old_fval is None or gfk is None
    if fresh:
        phi_0, dphi_0, gfk = func_and_grad(0)
    else:
        phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start_value = jnp.where(candidate > 1, 1.0, candidate)
    else:
        start_value = 1

    def sufficient_decrease_fails(a_i, phi_i):
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def curvature_holds(dphi_i):
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    state = _LineSearchState(
        done=jnp.array(False, dtype=bool), failed=jnp.array(False, dtype=bool), i=1,
        a_i1=0.0, phi_i1=phi_0, dphi_i1=dphi_0,
        nfev=1 if fresh else 0, ngev=1 if fresh else 0,
        a_star=0.0, phi_star=phi_0, dphi_star=dphi_0, g_star=gfk,
    )  # fmt: skip

    def zoom_into(state, chosen, lo, hi):
        # Zooms into the bracket [lo, hi] (each an (a, phi, dphi) triple), counting its
        # evaluations; where `chosen`, the line search stops with the zoom's step and outcome.
        zoom = _zoom(
            func_and_grad, sufficient_decrease_fails, curvature_holds, *lo, *hi, gfk, ~chosen
        )
        state = state._replace(
            nfev=state.nfev + zoom.nfev,
            ngev=state.ngev + zoom.ngev,
            failed=chosen & zoom.failed | state.failed,
        )
        return _stop_at(chosen, state, zoom.a_star, zoom.phi_star, zoom.dphi_star, zoom.g_star)

    def body(state):
        a_i = jnp.where(state.i == 1, start_value, state.a_i1 * 2.0)
        phi_i, dphi_i, g_i = func_and_grad(a_i)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)
        to_zoom_low = sufficient_decrease_fails(a_i, phi_i) | (
            (phi_i >= state.phi_i1) & (state.i > 1)
        )
        accept = curvature_holds(dphi_i) & ~to_zoom_low
        to_zoom_high = (dphi_i >= 0.0) & ~to_zoom_low & ~accept
        # The three outcomes exclude one another; a zoom not chosen passes through at once.
        state = zoom_into(
            state, to_zoom_low, (state.a_i1, state.phi_i1, state.dphi_i1), (a_i, phi_i, dphi_i)
        )
        state = _stop_at(accept, state, a_i, phi_i, dphi_i, g_i)
        state = zoom_into(
            state, to_zoom_high, (a_i, phi_i, dphi_i), (state.a_i1, state.phi_i1, state.dphi_i1)
        )
        return state._replace(i=state.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = lax.while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)
    status = jnp.where(
        state.failed, jnp.array(1), jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0))
    )
    alpha = jnp.asarray(state.a_star)
    # Outside float64, a vanishing step is raised to 1e-8 (keeping its sign), as in JAX.
    alpha = jnp.where(
        (dtypes.finfo(alpha.dtype).bits != 64) & (jnp.abs(alpha) < 1e-8),
        jnp.sign(alpha) * 1e-8,
        alpha,
    )
    return LineSearchResults(
        failed=state.failed | ~state.done,
        nit=state.i - 1,
        nfev=state.nfev,
        ngev=state.ngev,
        k=state.i,
        a_k=alpha,
        f_k=state.phi_star,
        g_k=state.g_star,
        status=status,
    )
