"""`check_grads`: derivatives checked numerically, for users and for stablax's own tests.

Forward mode is compared with central finite differences along random directions; reverse mode
with forward mode through the identity <vjp(c), t> == <c, jvp(t)>. Higher orders recurse on the
jvp/vjp functions, so grad-of-grad is checked the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, tree_util
from stablax._src.transforms import ad_forward, ad_reverse

_DEFAULT_EPS = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-2, np.dtype(np.float64): 1e-5}
_DEFAULT_TOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 2e-2, np.dtype(np.float64): 1e-5}


def _leaves(tree: Any) -> list[np.ndarray]:
    return [np.asarray(x) for x in tree_util.tree_leaves(tree)]


def _inner(xs: Any, ys: Any) -> float:
    # The real part of the bilinear pairing sum(x * y): stablax (like JAX) transposes without
    # conjugating, so <vjp(c), t> == <c, jvp(t)> holds in this form for complex values too.
    total = 0.0
    for x, y in zip(_leaves(xs), _leaves(ys), strict=True):
        if _is_float0(x) or _is_float0(y):
            continue
        total += float(np.real(np.sum(np.asarray(x, np.complex128) * np.asarray(y, np.complex128))))
    return total


def _random_like(rng: np.random.Generator, tree: Any) -> Any:
    def draw(x):
        x = np.asarray(x)
        if x.dtype.kind == "c":
            return (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)).astype(
                x.dtype
            )
        if _real_dtype(x.dtype) is not None:
            return rng.standard_normal(x.shape).astype(x.dtype)
        return np.zeros(x.shape, dtype=[("float0", np.void, 0)])

    return tree_util.tree_map(draw, tree)


def _scaled_add(xs: Any, ts: Any, scale: float) -> Any:
    def add(x, t):
        x = np.asarray(x)
        t = np.asarray(t)
        if _is_float0(t):
            return x
        return (x.astype(np.float64 if x.dtype.kind == "f" else x.dtype) + scale * t).astype(
            x.dtype
        )

    return tree_util.tree_map(add, xs, ts)


def _is_float0(x: np.ndarray) -> bool:
    return x.dtype == dtypes.float0


def _real_dtype(dtype: np.dtype) -> np.dtype | None:
    """The precision class of a differentiable dtype (complex -> its real part), else None."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    if dtypes.issubdtype(dtype, np.floating):
        return dtype if dtype in _DEFAULT_EPS else np.dtype(np.float16)  # bfloat16, float8
    return None


def _tolerance(args: Any, given: float | None, table: dict) -> float:
    """The loosest entry of `table` over the floating-point leaves of `args`."""
    if given is not None:
        return given
    worst = 0.0
    for x in _leaves(args):
        real = _real_dtype(x.dtype)
        if real is not None:
            worst = max(worst, table[real])
    return worst or table[np.dtype(np.float32)]


def _assert_close(a: Any, b: Any, atol: float, rtol: float, what: str) -> None:
    for x, y in zip(_leaves(a), _leaves(b), strict=True):
        if _is_float0(x) or _is_float0(y):
            continue
        np.testing.assert_allclose(
            np.asarray(x, np.complex128),
            np.asarray(y, np.complex128),
            atol=atol,
            rtol=rtol,
            err_msg=what,
        )


def _tolerances(args: Any, atol: float | None, rtol: float | None) -> tuple[float, float]:
    """(tol, rtol): `atol`, else the default tolerance of `args`' dtypes; `rtol`, else tol."""
    tol = _tolerance(args, atol, _DEFAULT_TOL)
    return tol, tol if rtol is None else rtol


def _assert_pairings_close(lhs: float, rhs: float, tol: float, rtol: float, what: str) -> None:
    """<vjp(ct), t> (lhs) against <ct, jvp(t)> (rhs), relative to the larger (at least 1)."""
    scale = max(1.0, abs(lhs), abs(rhs))
    if abs(lhs - rhs) > (tol + rtol) * scale:
        raise AssertionError(f"{what}: <vjp(ct), t> = {lhs}, <ct, jvp(t)> = {rhs}")


def _numerical_jvp(f: Callable, args: tuple, tangents: Any, out: Any, eps: float | None):
    # Central differences (f(x + eps t) - f(x - eps t)) / 2 eps; the default step is also coarse
    # enough for the outputs' precision (e.g. f32 -> bf16).
    if eps is None:
        eps = max(_tolerance(args, None, _DEFAULT_EPS), _tolerance(out, None, _DEFAULT_EPS))
    plus = f(*_scaled_add(args, tangents, eps))
    minus = f(*_scaled_add(args, tangents, -eps))
    return tree_util.tree_map(
        lambda p, m: (np.asarray(p, np.complex128) - np.asarray(m, np.complex128)) / (2 * eps),
        plus,
        minus,
    )


def check_jvp(
    f: Callable,
    f_jvp: Callable,
    args: Sequence[Any],
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
    err_msg: str = "",
    *,
    rng: np.random.Generator | None = None,
) -> None:
    """Checks `f_jvp` (usually `functools.partial(jax.jvp, f)`) against `f` and against central
    differences of `f` along one random tangent, as `jax.test_util.check_jvp`.

    Args:
      f: the function, called as `f(*args)`.
      f_jvp: called as `f_jvp(args, tangents)`, returning `(f(*args), tangent out)`.
      args: the point (a tuple of arguments).
      atol, rtol: tolerances (None: per dtype).
      eps: the finite-difference step (None: per dtype).
      err_msg: prefixed to the failure message.
      rng: the random tangent's generator (default: seeded).

    Raises:
      AssertionError: the primal or the tangent output does not match.
    """
    rng = np.random.default_rng(0) if rng is None else rng
    args = tuple(args)
    tol, rtol = _tolerances(args, atol, rtol)
    tangents = _random_like(rng, args)
    out, out_tangent = f_jvp(args, tangents)
    prefix = f"{err_msg} " if err_msg else ""
    _assert_close(out, f(*args), tol, rtol, f"{prefix}JVP primal output does not match f")
    numeric = _numerical_jvp(f, args, tangents, out, eps)
    _assert_close(out_tangent, numeric, tol, rtol, f"{prefix}JVP does not match finite differences")


def check_vjp(
    f: Callable,
    f_vjp: Callable,
    args: Sequence[Any],
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
    err_msg: str = "",
    *,
    rng: np.random.Generator | None = None,
) -> None:
    """Checks `f_vjp` (usually `functools.partial(jax.vjp, f)`) as `jax.test_util.check_vjp`:
    its primal output against `f`, and <vjp(ct), t> against <ct, numerical jvp(t)> for a random
    tangent t and cotangent ct, the JVP by central differences of step `eps` (None: per dtype).

    Raises:
      AssertionError: the primal output or the inner products do not match.
    """
    rng = np.random.default_rng(1) if rng is None else rng
    args = tuple(args)
    tol, rtol = _tolerances(args, atol, rtol)
    out, vjp_fun = f_vjp(*args)
    prefix = f"{err_msg} " if err_msg else ""
    _assert_close(out, f(*args), tol, rtol, f"{prefix}VJP primal output does not match f")
    tangents = _random_like(rng, args)
    out_tangent = _numerical_jvp(f, args, tangents, out, eps)
    cotangent = _random_like(rng, out)
    lhs, rhs = _inner(vjp_fun(cotangent), tangents), _inner(cotangent, out_tangent)
    _assert_pairings_close(lhs, rhs, tol, rtol, f"{prefix}VJP does not match finite differences")


def _check_vjp_against_jvp(
    f: Callable,
    args: Sequence[Any],
    atol: float | None = None,
    rtol: float | None = None,
    rng: np.random.Generator | None = None,
) -> None:
    """<vjp(ct), t> == <ct, jvp(t)> for random t and ct (check_grads' reverse check: the exact
    JVP, already checked against differences in forward mode)."""
    rng = np.random.default_rng(1) if rng is None else rng
    args = tuple(args)
    tol, rtol = _tolerances(args, atol, rtol)
    tangents = _random_like(rng, args)
    out, out_tangent = ad_forward.jvp(f, args, tangents)
    cotangent = _random_like(rng, out)
    _, vjp_fun = ad_reverse.vjp(f, *args)
    lhs, rhs = _inner(vjp_fun(cotangent), tangents), _inner(cotangent, out_tangent)
    _assert_pairings_close(lhs, rhs, tol, rtol, "VJP does not match JVP")


def check_grads(
    f: Callable,
    args: Sequence[Any],
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
) -> None:
    """Checks derivatives of f at args up to `order` in the given modes; raises AssertionError.

    Args:
      f: a function of arrays returning arrays (pytrees allowed).
      args: the point to check at (a tuple of arguments).
      order: 1 for first derivatives, 2 adds second derivatives, and so on.
      modes: "fwd" (JVP vs finite differences) and/or "rev" (VJP vs JVP).
    """
    args = tuple(args)
    rng = np.random.default_rng(0)
    if "fwd" in modes:
        check_jvp(f, functools.partial(ad_forward.jvp, f), args, atol, rtol, eps, rng=rng)
        if order > 1:
            tangents = _random_like(rng, args)

            def f_jvp(*primals):
                return ad_forward.jvp(f, primals, tangents)[1]

            check_grads(f_jvp, args, order - 1, ("fwd",), atol, rtol, eps)
    if "rev" in modes:
        _check_vjp_against_jvp(f, args, atol, rtol, rng)
        if order > 1:
            cotangent = _random_like(rng, f(*args))

            def f_vjp(*primals):
                return ad_reverse.vjp(f, *primals)[1](cotangent)

            check_grads(f_vjp, args, order - 1, ("rev",), atol, rtol, eps)
