"""jnp.linalg norms, condition numbers and ranks, products and the array-API helpers.

`norm` follows numpy.linalg.norm (vector norms over one axis, matrix norms over two);
`vector_norm`/`matrix_norm` are the array API's split of it.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from stablax._src import dtypes, lax
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import RANK, axes_arg, axis_arg, int_sequence
from stablax._src.numpy import _reductions as red
from stablax._src.numpy import _ufuncs as uf
from stablax._src.numpy import _ufuncs_division as division
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._linalg import inv, matrices, solve, svd
from stablax._src.numpy._linalg_basic import cross as cross_
from stablax._src.numpy._linalg_basic import matmul
from stablax._src.numpy._linalg_basic import outer as outer_
from stablax._src.numpy._linalg_basic import vecdot as vecdot_
from stablax._src.numpy._promotion import promote_dtypes_inexact
from stablax._src.numpy._shape import matrix_transpose as matrix_transpose_
from stablax._src.numpy._shape_diag import diagonal as diagonal_
from stablax._src.numpy._shape_diag import trace as trace_

# An axis of jnp.linalg: lax's words for one out of bounds, Python's TypeError for a non-integer.
_axis = functools.partial(axis_arg, array=RANK, convert=operator.index)


def _vector_norm(x, axes, keepdims, ord):  # noqa: A002 (NumPy's name)
    magnitude = uf.abs(x)
    if ord is None or ord == 2:
        return uf.sqrt(red.sum(uf.real(uf.multiply(x, uf.conj(x))), axis=axes, keepdims=keepdims))
    if ord == np.inf:
        return red.max(magnitude, axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return red.min(magnitude, axis=axes, keepdims=keepdims)
    if ord == 0:
        nonzero = uf.not_equal(magnitude, 0)
        return red.sum(
            lax.convert_element_type(nonzero, magnitude.dtype), axis=axes, keepdims=keepdims
        )
    if ord == 1:
        return red.sum(magnitude, axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"jnp.linalg.norm: invalid order {ord!r} for vectors{mlir.where_suffix()}")
    p = float(ord)
    powered = division.power(magnitude, p)
    return division.power(red.sum(powered, axis=axes, keepdims=keepdims), 1.0 / p)


def _matrix_norm(x, axes, keepdims, ord):  # noqa: A002
    row, col = axes
    if ord in (None, "fro", "f"):
        return uf.sqrt(red.sum(uf.real(uf.multiply(x, uf.conj(x))), axis=axes, keepdims=keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        summed_axis, reduced_axis = (row, col) if ord in (1, -1) else (col, row)
        sums = red.sum(uf.abs(x), axis=summed_axis, keepdims=True)
        if ord in (1, np.inf):  # JAX's initial=0: an empty matrix has norm 0 (its min raises)
            out = red.max(sums, axis=reduced_axis, keepdims=True, initial=0)
        else:
            out = red.min(sums, axis=reduced_axis, keepdims=True)
        return out if keepdims else lax.squeeze(out, tuple(sorted(axes)))
    if ord in (2, -2, "nuc"):
        moved = uf_moveaxis(x, axes)
        s = svd(moved, compute_uv=False)
        if ord == "nuc":
            out = red.sum(s, axis=-1)
        else:
            # The 2-norm of an empty matrix is 0, as NumPy's and JAX's (the -2 one has none).
            out = red.max(s, axis=-1, initial=0) if ord == 2 else red.min(s, axis=-1)
        if keepdims:
            out = lax.expand_dims(out, tuple(sorted(axes)))
        return out
    raise ValueError(f"jnp.linalg.norm: invalid order {ord!r} for matrices{mlir.where_suffix()}")


def uf_moveaxis(x, axes):
    """x with the two `axes` moved last (rows, then columns)."""
    row, col = axes
    rest = [i for i in range(x.aval.ndim) if i not in (row, col)]
    return lax.transpose(x, (*rest, row, col))


def _norm_impl(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    (x,) = promote_dtypes_inexact(asarray(x))
    ndim = x.aval.ndim
    if axis is None:
        if ord is None:  # the 2-norm of the flattened array
            out = _vector_norm(lax.reshape(x, (x.aval.size,)), (0,), False, None)
            return lax.reshape(out, (1,) * ndim) if keepdims else out
        axes = tuple(range(ndim))
    elif isinstance(axis, int) or np.ndim(axis) == 0:
        axes = (_axis(axis, ndim, "jnp.linalg.norm"),)
    else:
        axes = tuple(_axis(a, ndim, "jnp.linalg.norm") for a in axis)
    if len(axes) == 1:
        return _vector_norm(x, axes, keepdims, ord)
    if len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError(f"jnp.linalg.norm: duplicate axes {axis}{mlir.where_suffix()}")
        return _matrix_norm(x, axes, keepdims, ord)
    raise ValueError(
        f"jnp.linalg.norm: improper number of axes for a norm, got {axis}{mlir.where_suffix()}"
    )


norm = _eager(_norm_impl, static_argnames=("ord", "axis", "keepdims"))


def vector_norm(
    x: Any,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: Any = 2,  # noqa: A002 (NumPy's name)
) -> Any:
    """The vector norm of order `ord` over `axis` (all axes, flattened, by default).

    Composed as JAX composes it, so integer inputs keep JAX's result types (the sum's type for
    the 2-norm and the 1-norm, the input's for the infinity norms).
    """
    x = asarray(x)
    if axis is not None:
        axis = axes_arg(axis, x.aval.ndim, "jnp.linalg.vector_norm", array=RANK)
    if ord is None or ord == 2:
        squares = uf.real(uf.multiply(x, uf.conj(x)))
        return uf.sqrt(red.sum(squares, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return red.max(uf.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return red.min(uf.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        # The count is in the real type of the inexact input (float32 for complex64), as JAX;
        # an integer input counts in its float type, as NumPy (JAX refuses it, see
        # known_differences' vector-norm-integer-orders).
        (x,) = promote_dtypes_inexact(x)
        count_dtype = dtypes.finfo(x.aval.dtype).dtype
        return red.sum(uf.not_equal(x, 0), axis=axis, keepdims=keepdims, dtype=count_dtype)
    if ord == 1:
        return red.sum(uf.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"jnp.linalg.vector_norm: invalid order {ord!r} for a vector norm")
    magnitude = uf.abs(x)
    out = red.sum(division.power(magnitude, float(ord)), axis=axis, keepdims=keepdims)
    return division.power(out, 1.0 / float(ord))


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:  # noqa: A002
    """The matrix norm of order `ord` over the last two axes."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def _cond_impl(x, p=None):
    x = matrices("cond", x, square=p not in (None, 2, -2))
    # JAX's check and class (NumPy raises LinAlgError, a ValueError); an empty batch of
    # matrices is no error, its condition numbers an empty array.
    if 0 in x.aval.shape[-2:]:
        raise ValueError(
            f"jnp.linalg.cond: input array must not be empty, got shape {x.aval.shape}"
            f"{mlir.where_suffix()}"
        )
    if p in (None, 2, -2):
        s = svd(x, compute_uv=False)
        first, last = lax.index_in_dim(s, 0, -1, False), lax.index_in_dim(s, -1, -1, False)
        r = division.divide(first, last) if p != -2 else division.divide(last, first)
    else:
        r = uf.multiply(norm(x, ord=p, axis=(-2, -1)), norm(inv(x), ord=p, axis=(-2, -1)))
    # A singular matrix has an infinite condition number, not a NaN.
    input_nan = red.any(uf.isnan(x), axis=(-2, -1))
    return uf.where(uf.logical_and(uf.isnan(r), uf.logical_not(input_nan)), np.inf, r)


cond = _eager(_cond_impl, static_argnames=("p",))


def _matrix_rank_impl(M, rtol=None, hermitian=False, tol=None):  # noqa: N803 (NumPy's name)
    (M,) = promote_dtypes_inexact(asarray(M))  # noqa: N806
    if tol is not None and rtol is not None:  # JAX's check
        raise ValueError(f"jnp.linalg.matrix_rank: give tol or rtol, not both{mlir.where_suffix()}")
    if M.aval.ndim < 2:
        return lax.convert_element_type(red.any(uf.not_equal(M, 0)), np.int32)
    s = svd(M, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(M.aval.shape[-2:]) * dtypes.finfo(s.dtype).eps
        tol = uf.multiply(rtol, red.max(s, axis=-1))
    tol = asarray(tol)
    if tol.aval.ndim:  # one tolerance per matrix
        tol = lax.expand_dims(tol, (tol.aval.ndim,))
    return red.sum(uf.greater(s, tol), axis=-1)  # the default int type, as JAX


matrix_rank = _eager(_matrix_rank_impl, static_argnames=("hermitian",))


# --- products and array-API helpers ------------------------------------------------------------


def multi_dot(arrays: Sequence[Any], *, precision: Any = None) -> Any:
    """The product of several matrices, in the cheapest order (numpy.linalg.multi_dot).

    The first and last arrays may be vectors; the order is chosen by dynamic programming on the
    shapes, as NumPy does.
    """
    arrays = [asarray(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError(f"jnp.linalg.multi_dot: expected at least two arrays{mlir.where_suffix()}")
    first_vector, last_vector = arrays[0].ndim == 1, arrays[-1].ndim == 1
    inner_ok = all(a.ndim == 2 for a in arrays[1:-1])
    if not (inner_ok and arrays[0].ndim in (1, 2) and arrays[-1].ndim in (1, 2)):
        raise ValueError(
            "jnp.linalg.multi_dot: input arrays must all be two-dimensional, except for the first "
            "and last array which may be 1 or 2 dimensional. Got array shapes "
            f"{[a.shape for a in arrays]}{mlir.where_suffix()}"
        )
    shapes = [a.shape for a in arrays]
    if first_vector:
        arrays[0] = lax.expand_dims(arrays[0], (0,))
    if last_vector:
        arrays[-1] = lax.expand_dims(arrays[-1], (1,))
    if any(a.shape[1] != b.shape[0] for a, b in zip(arrays, arrays[1:])):
        raise ValueError(
            "jnp.linalg.multi_dot: last dimension of each array must match first dimension of "
            f"following array. Got array shapes {shapes}{mlir.where_suffix()}"
        )
    dims = [a.shape[0] for a in arrays] + [arrays[-1].shape[1]]
    count = len(arrays)
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return arrays[i]
        k = split[i][j]
        return matmul(product(i, k), product(k + 1, j), precision=precision)

    out = product(0, count - 1)
    if first_vector:
        out = lax.squeeze(out, (0,))
    if last_vector:
        out = lax.squeeze(out, (out.ndim - 1,))
    return out


def tensorinv(a: Any, ind: int = 2) -> Any:
    """The inverse of `a` seen as a linear map from its last dims to its first `ind` dims."""
    a = asarray(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(
            f"jnp.linalg.tensorinv: ind must be positive, got {ind}{mlir.where_suffix()}"
        )
    head, tail = a.shape[:ind], a.shape[ind:]
    rows = int(np.prod(head))
    if rows != int(np.prod(tail)):
        raise ValueError(
            f"jnp.linalg.tensorinv: a's first {ind} dims {head} and the rest {tail} must have "
            f"equal sizes{mlir.where_suffix()}"
        )
    return lax.reshape(inv(lax.reshape(a, (rows, rows))), (*tail, *head))


def tensorsolve(a: Any, b: Any, axes: tuple[int, ...] | None = None) -> Any:
    """Solves tensordot(a, x, x.ndim) = b for x (numpy.linalg.tensorsolve)."""
    a, b = asarray(a), asarray(b)
    if axes is not None:
        moved = [
            _axis(i, a.ndim, "jnp.linalg.tensorsolve")
            for i in int_sequence(axes, "axes", "tensorsolve")
        ]
        keep = [i for i in range(a.ndim) if i not in moved]
        a = lax.transpose(a, (*keep, *moved))
    if a.shape[: b.ndim] != b.shape:  # JAX's check
        raise ValueError(
            f"jnp.linalg.tensorsolve: after moving axes to the end, the leading shape of a must "
            f"match the shape of b, got a.shape={a.shape}, b.shape={b.shape}{mlir.where_suffix()}"
        )
    x_shape = a.shape[b.ndim :]
    size = int(np.prod(x_shape))
    if int(np.prod(a.shape[: b.ndim])) != size:
        raise ValueError(
            f"jnp.linalg.tensorsolve: a's shape {a.shape} does not split into b's shape "
            f"{b.shape} and a square system{mlir.where_suffix()}"
        )
    x = solve(lax.reshape(a, (size, size)), lax.reshape(b, (size,)))
    return lax.reshape(x, x_shape)


def matrix_transpose(x: Any, /) -> Any:
    """Swaps the last two axes: `jnp.matrix_transpose`."""
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(
            f"jnp.linalg.matrix_transpose: expected at least 2 dimensions, got {x.shape}"
            f"{mlir.where_suffix()}"
        )
    return matrix_transpose_(x)


def outer(x1: Any, x2: Any, /) -> Any:
    """The outer product of two vectors (the array API's version: 1-D inputs only)."""
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(
            f"jnp.linalg.outer: input arrays must be one-dimensional, got {x1.shape} and "
            f"{x2.shape}{mlir.where_suffix()}"
        )
    return outer_(x1, x2)


def vecdot(
    x1: Any,
    x2: Any,
    /,
    *,
    axis: int = -1,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """sum(conj(x1) * x2) over `axis`, broadcasting the other axes: `jnp.vecdot`."""
    return vecdot_(
        x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type
    )


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """The cross product of 3-vectors along `axis` (array API: no 2-vectors)."""
    x1, x2 = asarray(x1), asarray(x2)
    axis1, axis2 = (_axis(axis, x.ndim, "jnp.linalg.cross") for x in (x1, x2))
    if x1.shape[axis1] != 3 or x2.shape[axis2] != 3:
        raise ValueError(
            f"jnp.linalg.cross: both inputs must have size 3 along axis {axis}, got {x1.shape} "
            f"and {x2.shape}{mlir.where_suffix()}"
        )
    return cross_(x1, x2, axis=axis)


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """The diagonals of the last two axes (shifted by `offset`): `jnp.diagonal` there."""
    return diagonal_(x, offset, -2, -1)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """The sum of the diagonals of the last two axes: `jnp.trace` there."""
    return trace_(x, offset, -2, -1, dtype)
