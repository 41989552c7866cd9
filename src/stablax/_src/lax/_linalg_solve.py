"""Solving with a factorization: the `triangular_solve` op with all of its rules, and
`lu_pivots_to_permutation`, which turns LU's row swaps into the permutation they amount to."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import ir as mlir
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.dispatch import bind
from stablax._src.interpreters.ad import is_undefined
from stablax._src.lax import _elementwise as ew
from stablax._src.lax import _elementwise_unary as unary
from stablax._src.lax import _linalg_util as u
from stablax._src.lax._control_flow_while import fori_loop
from stablax._src.lax._linalg_kernels import EXPANSIONS
from stablax._src.lax._linalg_markers import (
    TRIANGULAR_SOLVE,
    check_matrix,
    def_linalg_op,
    linalg_error,
)
from stablax._src.lax._reduce_monoids import reduce_sum
from stablax._src.lax._reshape_axes import expand_dims, squeeze
from stablax._src.lax._shapes import (
    broadcast_in_dim,
    broadcasted_iota,
    convert_element_type,
    full,
    reshape,
)
from stablax._src.lax._slicing import dynamic_slice

# --- triangular_solve: nonlinear in a, linear in b ---------------------------------------------


def _triangular_solve_rule(
    a: ShapedArray,
    b: ShapedArray,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> ShapedArray:
    name = "triangular_solve"
    # JAX's order: both ranks, then a's and b's matrix shapes, then batch sizes and dtypes.
    for x in (a, b):
        if x.ndim < 2:
            message = f"expected a matrix or a stack of matrices, got {x.str_short()}"
            raise linalg_error(name, message)
    batch_error = linalg_error(
        name,
        f"a and b must have equal ranks and batch dimensions, got {a.str_short()} "
        f"and {b.str_short()}",
    )
    if b.ndim != a.ndim:
        raise batch_error
    if a.shape[-2] != a.shape[-1]:
        raise linalg_error(name, f"expected square matrices, got {a.str_short()}", ValueError)
    solved = b.shape[-2] if left_side else b.shape[-1]
    if solved != a.shape[-1]:
        side = "rows" if left_side else "columns"
        raise linalg_error(
            name,
            f"b must have as many {side} as a has columns (left_side={left_side}), got "
            f"{a.str_short()} and {b.str_short()}",
            ValueError,
        )
    if b.shape[:-2] != a.shape[:-2]:  # JAX's class: its batching's ValueError
        raise linalg_error(
            name,
            f"a and b must have equal batch dimensions, got {a.str_short()} and {b.str_short()}",
            ValueError,
        )
    check_matrix(name, a, square=True)
    if a.dtype != b.dtype:
        raise linalg_error(
            name, f"a and b must have equal dtypes, got {a.str_short()} and {b.str_short()}"
        )
    return b.strip_weak_type()


def _triangular_solve_jvp(primals, tangents, **params):
    (a, b), (da, db) = primals, tangents
    x = bind(TRIANGULAR_SOLVE, a, b, **params)
    dx = None if db is None else bind(TRIANGULAR_SOLVE, a, db, **params)
    if da is not None:
        k = 1 if params["unit_diagonal"] else 0
        op_da = u.tril(da, -k) if params["lower"] else u.triu(da, k)
        op_da = u.mT(op_da) if params["transpose_a"] else op_da
        op_da = u.conj(op_da) if params["conjugate_a"] else op_da
        # op(A) X = B  =>  dX = -op(A)^-1 op(dA) X   (X op(A) = B: dX = -X op(dA) op(A)^-1)
        product = u.matmul(op_da, x) if params["left_side"] else u.matmul(x, op_da)
        from_a = unary.neg(bind(TRIANGULAR_SOLVE, a, product, **params))
        dx = from_a if dx is None else ew.add(dx, from_a)
    return x, dx


def _triangular_solve_transpose(ct, a, b, **params):
    if is_undefined(a):
        raise NotImplementedError("[transpose] triangular_solve is not linear in a")
    if ct is None:
        return [None, None]
    params = dict(params, transpose_a=not params["transpose_a"])
    return [None, bind(TRIANGULAR_SOLVE, a, ct, **params)]


def_linalg_op(
    "triangular_solve",
    _triangular_solve_rule,
    jvp=_triangular_solve_jvp,
    transpose=_triangular_solve_transpose,
    expand=EXPANSIONS["triangular_solve"],
)


def triangular_solve(
    a: Any,
    b: Any,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Any:
    """Solves op(a) x = b (left_side) or x op(a) = b for triangular a (LAPACK trsm on CPU).

    op(a) is a, its transpose or its conjugate transpose (`transpose_a`, `conjugate_a`); only
    the triangle named by `lower` is read, and with `unit_diagonal` its diagonal is taken as 1.
    Both operands share their batch dimensions; b may also be one vector (rank of a minus one)
    per matrix. Linear in b.
    """
    a_aval, b_aval = aval_of(a), aval_of(b)
    conjugate_a = bool(conjugate_a) and a_aval.dtype.kind == "c"
    singleton = b_aval.ndim == a_aval.ndim - 1
    if singleton:
        if b_aval.ndim == 0 and not left_side:  # JAX's expand_dims at axis -2 fails
            raise ValueError(
                f"lax.linalg.triangular_solve: a must be a matrix or a stack of matrices and b "
                f"of rank 1 or more, got {a_aval.str_short()} and {b_aval.str_short()}"
                f"{mlir.where_suffix()}"
            )
        b = expand_dims(b, (-1 if left_side else -2,))  # JAX's negative axes
    out = bind(
        TRIANGULAR_SOLVE,
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=conjugate_a,
        unit_diagonal=bool(unit_diagonal),
    )
    if singleton:
        nd = b_aval.ndim + 1
        out = squeeze(out, (nd - 1 if left_side else nd - 2,))
    return out


# --- LU pivots ---------------------------------------------------------------------------------


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation that applying the row swaps `pivots` (..., k) to range(size) produces."""
    pivots_aval = aval_of(pivots)
    # The size is checked before the dtype, in JAX's order (its shape rule runs first), and
    # compared before it must be an integer: a float too small is JAX's ValueError too.
    comparable = isinstance(permutation_size, (int, float, np.integer, np.floating))
    bound = permutation_size if comparable else operator.index(permutation_size)
    if pivots_aval.ndim >= 1 and pivots_aval.shape[-1] > bound:
        raise ValueError(
            f"lax.linalg.lu_pivots_to_permutation: {pivots_aval.shape[-1]} pivots exceed "
            f"permutation_size={permutation_size}{mlir.where_suffix()}"
        )
    size = operator.index(permutation_size)
    if pivots_aval.ndim < 1 or pivots_aval.dtype != np.int32:
        raise TypeError(
            f"lax.linalg.lu_pivots_to_permutation: pivots must be an int32 array of rank >= 1, "
            f"got {pivots_aval.str_short()}{mlir.where_suffix()}"
        )
    *batch, k = pivots_aval.shape
    shp = (*batch, size)
    nd = len(shp)
    positions = broadcasted_iota(np.int32, shp, nd - 1)
    zeros = full(shp, 0, np.int32)

    def entry(table, where):  # table[..., where[...]] spread over the last axis
        return _spread_last(reduce_sum(ew.select(where, table, zeros), (nd - 1,)), shp)

    size_grid = full(shp, size, np.int32)

    def swap(i, permutation):  # swap entries i and pivots[..., i]
        i = convert_element_type(i, np.int32)  # the loop index is int64 under x64
        start = (*(0 for _ in batch), i)
        j = _spread_last(reshape(dynamic_slice(pivots, start, (*batch, 1)), batch), shp)
        # As JAX: a negative pivot counts from the end; out of range, it reads the nearest
        # entry and its write is dropped.
        j = ew.select(ew.lt(j, zeros), ew.add(j, size_grid), j)
        j_read = ew.clamp(zeros, j, ew.sub(size_grid, full(shp, 1, np.int32)))
        at_i, at_j = ew.eq(positions, broadcast_in_dim(i, shp, ())), ew.eq(positions, j)
        value_i, value_j = entry(permutation, at_i), entry(permutation, ew.eq(positions, j_read))
        return ew.select(at_i, value_j, ew.select(at_j, value_i, permutation))

    # A loop, not k unrolled steps: an unrolled 500x500 solve took 24 s to trace and compile.
    return fori_loop(0, k, swap, positions) if k else positions


def _spread_last(v: Any, shp: tuple[int, ...]) -> Any:
    return broadcast_in_dim(v, shp, tuple(range(len(shp) - 1)))
