"""Solvers with implicit derivatives: `lax.custom_linear_solve` and `lax.custom_root`.

The solver's own iterations are never differentiated. Derivatives come from the equations
solved: for A(θ) x = b, dx = A⁻¹ (db - dA x); for f(x, θ) = 0, dx = -(∂f/∂x)⁻¹ ∂f/∂θ dθ.
Every user function is traced once, when the solve is called, into a closed function whose
captured arrays (θ among them) are explicit operands: the derivative rules, which run later
while the program is rewritten, only evaluate those closed functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from stablax._src import core, dtypes, tree_util
from stablax._src.avals import aval_of
from stablax._src.interpreters.ad import jvp_traced, stop_gradient
from stablax._src.interpreters.control_flow import close, is_split_mode
from stablax._src.interpreters.custom_jvp import custom_jvp
from stablax._src.interpreters.custom_vjp import custom_vjp
from stablax._src.interpreters.interpret import call_traced
from stablax._src.lax._argcheck import check_callable
from stablax._src.transforms.ad_forward import jvp, linearize
from stablax._src.transforms.ad_reverse import linear_transpose


class _Closed:
    """`fun(*args)` traced once; `self(captured, *args)` evaluates it with `captured` (values
    in the order of `self.captured`) in place of the arrays it closed over."""

    def __init__(self, name: str, fun: Callable, args: tuple) -> None:
        leaves, self.in_tree = tree_util.tree_flatten(args)
        out_tree: list[Any] = []

        def flat(*xs):
            out = fun(*tree_util.tree_unflatten(self.in_tree, list(xs)))
            out_leaves, tree = tree_util.tree_flatten(out)
            out_tree.append(tree)
            return out_leaves

        traced = core.trace_to_func(flat, [aval_of(x) for x in leaves], name=name)
        self.out_tree = out_tree[0]
        self.closed = close(traced)
        self.captured = list(traced.captured)

    def __call__(self, captured: list, *args: Any) -> Any:
        leaves = tree_util.tree_leaves(args)
        outs = call_traced(self.closed, [*leaves, *captured])
        return tree_util.tree_unflatten(self.out_tree, outs)


def _split(values: list) -> tuple[list, list, list[bool]]:
    """(inexact values, the others, which is which): only inexact values carry derivatives."""
    mask = [dtypes.issubdtype(aval_of(v).dtype, np.inexact) for v in values]
    return (
        [v for v, m in zip(values, mask, strict=True) if m],
        [v for v, m in zip(values, mask, strict=True) if not m],
        mask,
    )


def _merge(inexact: list, others: list, mask: list[bool]) -> list:
    a, b = iter(inexact), iter(others)
    return [next(a) if m else next(b) for m in mask]


def _check_structure(name: str, what: str, got: Any, want: Any) -> None:
    if got != want:
        raise TypeError(f"{name}: {what} must have the tree structure {want}, got {got}")


def _split_aux(out: Any, has_aux: bool) -> tuple[Any, Any]:
    return out if has_aux else (out, None)


def custom_linear_solve(
    matvec: Callable,
    b: Any,
    solve: Callable[[Callable, Any], Any],
    transpose_solve: Callable[[Callable, Any], Any] | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """Solves `matvec(x) = b` with `solve`, differentiated through the equation, not the solver.

    Args:
      matvec: a linear function `x -> A x` (pytree to pytree of b's structure); it may close
        over arrays, and the solution is differentiable in them.
      b: the right-hand side, a pytree of arrays.
      solve: `solve(matvec, b) -> x` (plus aux if `has_aux`), e.g. conjugate gradients.
      transpose_solve: `transpose_solve(vecmat, b) -> x` solving with the transposed operator;
        needed for reverse mode unless `symmetric`.
      symmetric: A is symmetric, so `solve` serves as `transpose_solve`.
      has_aux: `solve` returns `(x, aux)`; aux is returned as is, without derivatives.

    Returns:
      x (or `(x, aux)`), with derivatives dx = solve(matvec, db - dA x) and, in reverse mode,
      cotangents from `transpose_solve`.
    """
    name = "custom_linear_solve"
    for what, fn in (("matvec", matvec), ("solve", solve), ("transpose_solve", transpose_solve)):
        if fn is not None or what != "transpose_solve":
            check_callable(f"lax.{name}", fn, what)
    operator = _Closed("matvec", matvec, (b,))
    _check_structure(name, "matvec's output", operator.out_tree, tree_util.tree_structure(b))
    theta, fixed, mask = _split(operator.captured)
    aux_box: list[Any] = []

    def solve_with(consts, rhs):
        x, aux = _split_aux(solve(lambda v: operator(consts, v), rhs), has_aux)
        aux_box.append(aux)
        return x

    forward = _Closed("solve", solve_with, (operator.captured, b))
    if symmetric:
        transpose_solve = solve
    backward = None
    if transpose_solve is not None:

        def transpose_with(consts, ct):
            if symmetric:
                vecmat = lambda v: operator(consts, v)  # noqa: E731
            else:
                transposed = linear_transpose(lambda v: operator(consts, v), ct)
                vecmat = lambda v: transposed(v)[0]  # noqa: E731
            return _split_aux(transpose_solve(vecmat, ct), has_aux)[0]

        backward = _Closed("transpose_solve", transpose_with, (operator.captured, b))
    statics = [fixed, forward.captured, [] if backward is None else backward.captured]

    def apply_inverse(rhs, theta, statics):
        fixed, solve_captured, _ = statics
        return forward(solve_captured, _merge(theta, fixed, mask), rhs)

    @custom_jvp
    def solution(rhs, theta, statics):
        return apply_inverse(rhs, theta, statics)

    @solution.defjvp
    def solution_jvp(primals, tangents):
        rhs, theta, statics = primals
        rhs_dot, theta_dot, _ = tangents
        x = solution(rhs, theta, statics)
        fixed = statics[0]
        _, matvec_dot = jvp(lambda t: operator(_merge(t, fixed, mask), x), (theta,), (theta_dot,))
        residual = tree_util.tree_map(lambda d, m: d - m, rhs_dot, matvec_dot)
        if not is_split_mode():  # forward mode: just solve for the tangent
            return x, apply_inverse(residual, theta, statics)
        # Reverse mode: the tangent map must be transposable, so it is a custom_vjp whose
        # transpose solves with Aᵀ (the solver's iterations are never transposed).
        inverse = _inverse_map(apply_inverse, backward, mask, theta, statics)
        return x, _linear_part(inverse, rhs, residual)

    solution.rule_at_rewrite = True  # the rule tells forward from reverse mode
    x = solution(b, theta, statics)
    if has_aux:
        return x, aux_box[-1] if aux_box else None
    return x


def _linear_part(fun: Callable, primal: Any, tangent: Any) -> Any:
    """The tangent output of `fun` at `primal` along `tangent`, emitted as the linearization
    being built (for a custom_vjp `fun`: its transposable marker)."""
    leaves, tree = tree_util.tree_flatten(primal)
    out_tree: list[Any] = []

    def flat(*xs):
        out_leaves, out_tree_ = tree_util.tree_flatten(
            fun(tree_util.tree_unflatten(tree, list(xs)))
        )
        out_tree.append(out_tree_)
        return out_leaves

    traced = core.trace_to_func(flat, [aval_of(x) for x in leaves])
    _, tangents = jvp_traced(traced, leaves, tree_util.tree_leaves(tangent))
    return tree_util.tree_unflatten(out_tree[0], tangents)


def _inverse_map(apply_inverse, backward, mask, theta, statics) -> Callable:
    """rhs -> A⁻¹ rhs as a custom_vjp whose transpose solves with Aᵀ (the solve itself need not
    be transposable). Built inside the jvp rule: theta and statics are that moment's values."""

    @custom_vjp
    def inverse(rhs):
        return apply_inverse(rhs, theta, statics)

    def fwd(rhs):
        return inverse(rhs), (theta, statics)

    def bwd(residuals, ct):
        theta_now, (fixed, _, transpose_captured) = residuals
        if backward is None:
            raise TypeError(
                "transpose_solve required for backwards mode automatic differentiation of "
                "custom_linear_solve"
            )
        return (backward(transpose_captured, _merge(theta_now, fixed, mask), ct),)

    inverse.defvjp(fwd, bwd)
    return inverse


def custom_root(
    f: Callable,
    initial_guess: Any,
    solve: Callable[[Callable, Any], Any],
    tangent_solve: Callable[[Callable, Any], Any],
    has_aux: bool = False,
) -> Any:
    """Finds x with `f(x) = 0` using `solve`, differentiated by the implicit function theorem.

    Args:
      f: the function whose root is sought (pytree to pytree of the same structure); it may
        close over arrays, and the root is differentiable in them.
      initial_guess: where `solve` starts (not differentiated).
      solve: `solve(f, initial_guess) -> x` (plus aux if `has_aux`), e.g. Newton's method.
      tangent_solve: `tangent_solve(g, y) -> z` solving the linear `g(z) = y`, where g is f's
        linearization in x at the root; e.g. `lambda g, y: y / g(1.0)` for scalars. It must be
        linear in y (for reverse mode, built from transposable operations).
      has_aux: `solve` returns `(x, aux)`; aux is returned as is, without derivatives.

    Returns:
      The root (or `(root, aux)`), with derivative dx = -tangent_solve(∂f/∂x, ∂f/∂θ dθ).
    """
    name = "custom_root"
    for what, fn in (("f", f), ("solve", solve), ("tangent_solve", tangent_solve)):
        check_callable(f"lax.{name}", fn, what)
    guess = stop_gradient(initial_guess)
    equation = _Closed("root_f", f, (guess,))
    _check_structure(name, "f's output", equation.out_tree, tree_util.tree_structure(guess))
    theta, fixed, mask = _split(equation.captured)
    aux_box: list[Any] = []

    def solve_with(consts):
        x, aux = _split_aux(solve(lambda v: equation(consts, v), guess), has_aux)
        aux_box.append(aux)
        return x

    def newton_step(consts, x, y):
        _, f_x = linearize(lambda v: equation(consts, v), x)
        return tangent_solve(f_x, y)

    forward = _Closed("root_solve", solve_with, (equation.captured,))
    tangent = _Closed("tangent_solve", newton_step, (equation.captured, guess, guess))
    statics = [fixed, forward.captured, tangent.captured]

    @custom_jvp
    def root(theta, statics):
        fixed, solve_captured, _ = statics
        return forward(solve_captured, _merge(theta, fixed, mask))

    @root.defjvp
    def root_jvp(primals, tangents):
        (theta, statics), (theta_dot, _) = primals, tangents
        x = root(theta, statics)
        fixed, _, tangent_captured = statics
        consts = _merge(theta, fixed, mask)
        _, f_dot = jvp(lambda t: equation(_merge(t, fixed, mask), x), (theta,), (theta_dot,))
        step = tangent(tangent_captured, consts, x, f_dot)
        return x, tree_util.tree_map(lambda t: -t, step)

    x = root(theta, statics)
    if has_aux:
        return x, aux_box[-1] if aux_box else None
    return x
