"""A linear solve x = A^-1 b differentiated implicitly, whatever the solver inside.

The operator's closed-over arrays are made explicit arguments (closure conversion), so that
reverse mode yields cotangents for b and for them: b_bar = A^-T x_bar (the transpose solve)
and c_bar = -(d(A_c x)/dc)^T b_bar. The iterations themselves are never differentiated.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from stablax._src.closure_convert import closure_convert
from stablax._src.interpreters.custom_vjp import custom_vjp
from stablax._src.transforms.ad_reverse import linear_transpose, vjp


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3))
def _linear_solve(matvec, solve, transpose_solve, symmetric, consts, b):
    operator_consts, solve_consts, _ = consts
    return solve(operator_consts, b, *solve_consts)


def _linear_solve_fwd(matvec, solve, transpose_solve, symmetric, consts, b):
    operator_consts, solve_consts, _ = consts
    x = solve(operator_consts, b, *solve_consts)
    return x, (consts, x)


def _linear_solve_bwd(matvec, solve, transpose_solve, symmetric, residuals, x_bar):
    (operator_consts, solve_consts, transpose_consts), x = residuals
    if symmetric:
        b_bar = solve(operator_consts, x_bar, *solve_consts)
    else:
        b_bar = transpose_solve(operator_consts, x_bar, *transpose_consts)
    operator_bar: list[Any] = []
    if operator_consts:  # -(d(A_c x)/dc)^T b_bar
        _, pullback = vjp(lambda c: matvec(x, *c), list(operator_consts))
        (operator_bar,) = pullback(b_bar)
        operator_bar = [-c for c in operator_bar]
    # The solvers' own arrays (starting guesses, tolerances, preconditioners) get no cotangent.
    none = [None] * len(solve_consts), [None] * len(transpose_consts)
    return (operator_bar, *none), b_bar


_linear_solve.defvjp(_linear_solve_fwd, _linear_solve_bwd)


def linear_solve(
    matvec: Callable[[Any], Any],
    b: Any,
    solve: Callable[[Callable, Any], Any],
    transpose_solve: Callable[[Callable, Any], Any] | None = None,
    symmetric: bool = False,
) -> Any:
    """x with matvec(x) == b, found by `solve(matvec, b)`, differentiable by implicit
    differentiation in reverse mode (with respect to b and the arrays matvec closes over).

    `transpose_solve(vecmat, y)` solves the transposed system (not needed when `symmetric`).
    """
    converted, operator_consts = closure_convert(matvec, b)

    def operator(consts):
        return lambda x: converted(x, *consts)

    def primal(consts, rhs):
        return solve(operator(consts), rhs)

    solve_converted, solve_consts = closure_convert(primal, operator_consts, b)
    transpose_converted, transpose_consts = None, []
    if not symmetric:
        if transpose_solve is None:
            raise ValueError("linear_solve: transpose_solve is required unless symmetric")

        def transposed(consts, rhs):
            transpose = linear_transpose(operator(consts), b)
            return transpose_solve(lambda y: transpose(y)[0], rhs)

        transpose_converted, transpose_consts = closure_convert(transposed, operator_consts, b)
    consts = (operator_consts, solve_consts, transpose_consts)
    return _linear_solve(
        converted, solve_converted, transpose_converted, bool(symmetric), consts, b
    )
