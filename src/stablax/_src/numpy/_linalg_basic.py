"""Products: matmul (with NumPy's batching and broadcasting), dot, vdot, inner, outer,
tensordot, kron, cross, vecdot, matvec, vecmat."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from stablax._src import dtypes, lax, runtime
from stablax._src import ir as mlir
from stablax._src.jit import jit as _eager
from stablax._src.lax._argcheck import axis_arg, int_arg, int_or_int_sequence
from stablax._src.lax._dot import canonicalize_precision
from stablax._src.numpy import _ufuncs as uf
from stablax._src.numpy._asarray import asarray
from stablax._src.numpy._promotion import broadcast_shapes, check_out_none, promote_dtypes
from stablax._src.numpy._shape import broadcast_to, moveaxis, stack


def _operands(a, b, preferred_element_type):
    # As JAX: with a preferred_element_type, lax.dot_general converts operands whose dtypes
    # differ to it; without, they are promoted.
    a, b = asarray(a), asarray(b)
    return promote_dtypes(a, b) if preferred_element_type is None else (a, b)


def _matmul_impl(a, b, precision=None, preferred_element_type=None):
    canonicalize_precision(precision)  # the precision first, in JAX's order
    a, b = _operands(a, b, preferred_element_type)
    a_shape, b_shape = a.aval.shape, b.aval.shape
    if not a_shape or not b_shape:
        raise ValueError(
            f"jnp.matmul: operands must be at least 1-D, got shapes {a_shape}"
            f" and {b_shape}{mlir.where_suffix()}"
        )
    a_mat, b_mat = len(a_shape) > 1, len(b_shape) > 1
    batch = broadcast_shapes("jnp.matmul", a_shape[:-2], b_shape[:-2])  # first, as JAX
    if a_shape[-1] != b_shape[-2 if b_mat else 0]:
        raise TypeError(
            f"jnp.matmul: contracting dimensions differ: {a_shape} @ {b_shape}{mlir.where_suffix()}"
        )
    a_batch = (None,) * (len(batch) - len(a_shape[:-2])) + a_shape[:-2]
    b_batch = (None,) * (len(batch) - len(b_shape[:-2])) + b_shape[:-2]
    # A batch axis that only one operand has (missing or 1 in the other) is a free axis of that
    # operand, so a weight matrix applied to a batch of rows is never broadcast (JAX does this).
    a_drop, b_drop, a_dims, b_dims = [], [], [], []
    out_batch, out_a, out_b = [], [], []
    for i, (da, db) in enumerate(zip(a_batch, b_batch, strict=True)):
        a_pos = i - a_batch[:i].count(None)
        b_pos = i - b_batch[:i].count(None)
        if da is None:
            out_b.append(i)
        elif db is None:
            out_a.append(i)
        elif da == db:
            a_dims.append(a_pos)
            b_dims.append(b_pos)
            out_batch.append(i)
        elif db == 1:
            out_a.append(i)
            b_drop.append(b_pos)
        else:
            out_b.append(i)
            a_drop.append(a_pos)
    if a_drop:
        a = lax.squeeze(a, a_drop)
        a_dims = [d - sum(x < d for x in a_drop) for d in a_dims]
    if b_drop:
        b = lax.squeeze(b, b_drop)
        b_dims = [d - sum(x < d for x in b_drop) for d in b_dims]
    nb = len(batch)
    if a_mat:
        out_a.append(nb)
    if b_mat:
        out_b.append(nb + a_mat)
    b_contract = b.aval.ndim - 2 if b_mat else 0
    out = lax.dot_general(
        a,
        b,
        (((a.aval.ndim - 1,), (b_contract,)), (tuple(a_dims), tuple(b_dims))),
        precision,
        preferred_element_type,
    )
    perm = tuple(int(i) for i in np.argsort(out_batch + out_a + out_b))
    if perm != tuple(range(len(perm))):
        out = lax.transpose(out, perm)
    return out


_matmul = _eager(_matmul_impl, static_argnames=("precision", "preferred_element_type"))


def matmul(a, b, precision=None, preferred_element_type=None, *, out_sharding=None):
    """Matrix product with NumPy's broadcasting of the batch dimensions (`np.matmul`); one
    `stablehlo.dot_general`. `out_sharding` is None or a sharding on stablax's one device."""
    runtime.check_sharding(out_sharding, "jnp.matmul")
    return _matmul(a, b, precision=precision, preferred_element_type=preferred_element_type)


def _dot_impl(a, b, precision=None, preferred_element_type=None):
    a, b = _operands(a, b, preferred_element_type)
    if a.aval.ndim == 0 or b.aval.ndim == 0:
        if preferred_element_type is None:
            canonicalize_precision(precision)  # checked, though a product has no precision
            return lax.mul(a, b)
        dtypes.check_user_dtype(preferred_element_type, "jnp.dot")
        return lax.dot_general(a, b, (((), ()), ((), ())), precision, preferred_element_type)
    if b.aval.ndim == 1 or a.aval.ndim == 1 and b.aval.ndim <= 2:
        return _matmul_impl(a, b, precision, preferred_element_type)
    # N-D: sum over a's last axis and b's second-to-last, NumPy's dot.
    return lax.dot_general(
        a,
        b,
        (((a.aval.ndim - 1,), (b.aval.ndim - 2,)), ((), ())),
        precision,
        preferred_element_type,
    )


_dot = _eager(_dot_impl, static_argnames=("precision", "preferred_element_type"))


def dot(a, b, precision=None, preferred_element_type=None, *, out_sharding=None):
    """`np.dot`: a product over the last axis of `a` and the second-to-last of `b` (a scalar
    operand multiplies). `out_sharding` is None or a sharding on stablax's one device."""
    runtime.check_sharding(out_sharding, "jnp.dot")
    return _dot(a, b, precision=precision, preferred_element_type=preferred_element_type)


def _vdot_impl(a, b, precision=None, preferred_element_type=None):
    a, b = _operands(a, b, preferred_element_type)
    a = lax.reshape(lax.conj(a) if _is_complex(a) else a, (a.aval.size,))
    b = lax.reshape(b, (b.aval.size,))
    return lax.dot_general(
        a, b, (((0,), (0,)), ((), ())), precision, preferred_element_type=preferred_element_type
    )


_vdot = _eager(_vdot_impl, static_argnames=("precision", "preferred_element_type"))


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of flattened arrays, conjugating the first (`precision` and
    `preferred_element_type` as in `lax.dot_general`)."""
    return _vdot(a, b, precision=precision, preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Sum product over the last axes (`np.inner`); `precision` and `preferred_element_type`
    as in `lax.dot_general` (with a scalar operand: both cast to `preferred_element_type`)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_inner(a, b, preferred_element_type=preferred_element_type)
    return tensordot(
        a, b, (-1, -1), precision=precision, preferred_element_type=preferred_element_type
    )


@_eager(static_argnames=("preferred_element_type",))
def _scalar_inner(a, b, preferred_element_type):
    a, b = asarray(a), asarray(b)
    if preferred_element_type is not None:
        a = a.astype(preferred_element_type)
        b = b.astype(preferred_element_type)
    a, b = promote_dtypes(a, b)
    return lax.mul(a, b)


def outer(a, b, out=None):
    """Outer product of the flattened inputs (`np.outer`; `out` must be None, as JAX)."""
    check_out_none("jnp.outer", out)
    return _outer(a, b)


@_eager
def _outer(a, b):
    a, b = promote_dtypes(asarray(a), asarray(b))
    a = lax.reshape(a, (a.aval.size, 1))
    b = lax.reshape(b, (1, b.aval.size))
    return lax.dot_general(a, b, (((1,), (0,)), ((), ())))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Sums products over the last `axes` axes of `a` and the first of `b`, or over the given
    pairs of axes (`np.tensordot`, one `stablehlo.dot_general`). `out_sharding` is accepted as
    in JAX (optax passes it); on stablax's one device any sharding holds, so it changes nothing."""
    a, b = _operands(a, b, preferred_element_type)
    dtypes.check_user_dtype(preferred_element_type, "jnp.tensordot")  # before the axes, as JAX
    a_nd, b_nd = a.aval.ndim, b.aval.ndim
    if isinstance(axes, int) or (hasattr(axes, "__index__") and not hasattr(axes, "__len__")):
        n = operator.index(axes)
        if n > min(a_nd, b_nd):
            raise TypeError(
                f"jnp.tensordot: number of contracting axes must be at most "
                f"{min(a_nd, b_nd)}, got {n}{mlir.where_suffix()}"
            )
        n = max(n, 0)  # a negative count contracts nothing (an outer product), as NumPy and JAX
        a_axes, b_axes = tuple(range(a_nd - n, a_nd)), tuple(range(n))
    else:
        if not isinstance(axes, (list, tuple)) or len(axes) != 2:
            raise TypeError(
                f"jnp.tensordot: axes must be an int or a pair of sequences, got {axes!r}"
            )
        a_axes, b_axes = (int_or_int_sequence(x, "axes", "jnp.tensordot") for x in axes)
        if len(a_axes) != len(b_axes):
            raise TypeError(
                f"jnp.tensordot: axes lists must have the same length, got {axes}"
                f"{mlir.where_suffix()}"
            )
        a_axes = tuple(axis_arg(x, a_nd, "jnp.tensordot") for x in a_axes)
        b_axes = tuple(axis_arg(x, b_nd, "jnp.tensordot") for x in b_axes)
    dims = ((a_axes, b_axes), ((), ()))
    return lax.dot_general(a, b, dims, precision, preferred_element_type, out_sharding=out_sharding)


def kron(a, b):
    """The Kronecker product: every element of `a` scales a copy of `b` (`np.kron`)."""
    a, b = promote_dtypes(asarray(a), asarray(b))
    nd = max(a.aval.ndim, b.aval.ndim)
    a_shape = (1,) * (nd - a.aval.ndim) + a.aval.shape
    b_shape = (1,) * (nd - b.aval.ndim) + b.aval.shape
    # Outer product in an interleaved (a0, b0, a1, b1, ...) layout, then merge each pair.
    inter = [v for pair in zip(a_shape, b_shape, strict=True) for v in pair]
    a_b = lax.broadcast_in_dim(lax.reshape(a, a_shape), inter, tuple(range(0, 2 * nd, 2)))
    b_b = lax.broadcast_in_dim(lax.reshape(b, b_shape), inter, tuple(range(1, 2 * nd, 2)))
    out = lax.mul(a_b, b_b)
    return lax.reshape(out, tuple(x * y for x, y in zip(a_shape, b_shape, strict=True)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-element vectors along the given axes (`np.cross`)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    axisa, axisb, axisc = (int_arg(ax, "each axis", "jnp.cross") for ax in (axisa, axisb, axisc))
    a, b = promote_dtypes(asarray(a), asarray(b))
    if a.aval.ndim == 0 or b.aval.ndim == 0:
        raise ValueError(f"jnp.cross: inputs must be at least 1-D arrays{mlir.where_suffix()}")
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.aval.shape[-1] not in (2, 3) or b.aval.shape[-1] not in (2, 3):
        raise ValueError(
            "jnp.cross: incompatible dimensions for cross product (dimension must be 2 or 3)"
        )

    def comp(x, i):
        if i >= x.aval.shape[-1]:
            return lax.full(x.aval.shape[:-1], 0, x.aval.dtype)
        return lax.index_in_dim(x, i, -1 % x.aval.ndim, keepdims=False)

    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    z = uf.subtract(uf.multiply(a0, b1), uf.multiply(a1, b0))
    if a.aval.shape[-1] == 2 and b.aval.shape[-1] == 2:
        return z
    x = uf.subtract(uf.multiply(a1, b2), uf.multiply(a2, b1))
    y = uf.subtract(uf.multiply(a2, b0), uf.multiply(a0, b2))
    return moveaxis(stack([x, y, z], -1), -1, axisc)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Conjugated dot product of vectors along `axis`, broadcasting the rest (Array API).

    As NumPy's and JAX's gufunc `(n),(n)->()`: `axis` counts in each operand's own shape, and
    the remaining dimensions broadcast (so (3,) and (3, 1) along axis 0 give shape (1,))."""
    x1, x2 = _operands(x1, x2, preferred_element_type)
    sizes = [x.aval.shape[axis] if -x.aval.ndim <= axis < x.aval.ndim else None for x in (x1, x2)]
    if None not in sizes and sizes[0] != sizes[1]:  # no broadcasting along `axis`, as JAX
        raise ValueError(
            f"jnp.vecdot: axes must match, got shapes {x1.aval.shape} and {x2.aval.shape} with "
            f"axis={axis}{mlir.where_suffix()}"
        )
    x1 = moveaxis(x1, axis_arg(axis, x1.aval.ndim, "jnp.vecdot"), -1)
    x2 = moveaxis(x2, axis_arg(axis, x2.aval.ndim, "jnp.vecdot"), -1)
    loop = broadcast_shapes("jnp.vecdot", x1.aval.shape[:-1], x2.aval.shape[:-1])
    x1 = broadcast_to(x1, (*loop, x1.aval.shape[-1]))
    x2 = broadcast_to(x2, (*loop, x2.aval.shape[-1]))
    nb = len(loop)
    batch = tuple(range(nb))
    return lax.dot_general(
        lax.conj(x1) if _is_complex(x1) else x1,
        x2,
        (((nb,), (nb,)), (batch, batch)),
        precision,
        preferred_element_type,
    )


def _core_ranks(name: str, x1: Any, x2: Any, ranks: tuple[int, int]) -> None:
    for x, rank, which in ((x1, ranks[0], "x1"), (x2, ranks[1], "x2")):
        if x.aval.ndim < rank:
            raise ValueError(
                f"jnp.{name}: {which} of shape {x.aval.shape} needs at least {rank} dimensions"
                f"{mlir.where_suffix()}"
            )


def _core_size(name: str, n1: int, n2: int) -> None:
    if n1 != n2:  # JAX's class (its vectorize's core dimension check)
        raise ValueError(
            f"jnp.{name}: inconsistent size for the contracted dimension: {n1} vs {n2}"
            f"{mlir.where_suffix()}"
        )


def matvec(x1, x2, /):
    """Matrix-vector products over broadcast batches: (..., m, n) x (..., n) -> (..., m)."""
    x1, x2 = asarray(x1), asarray(x2)
    _core_ranks("matvec", x1, x2, (2, 1))
    _core_size("matvec", x1.aval.shape[-1], x2.aval.shape[-1])
    return matmul(x1, x2[..., None])[..., 0]


def vecmat(x1, x2, /):
    """Conjugated vector-matrix products: (..., m) x (..., m, n) -> (..., n)."""
    x1, x2 = promote_dtypes(asarray(x1), asarray(x2))
    _core_ranks("vecmat", x1, x2, (1, 2))
    _core_size("vecmat", x1.aval.shape[-1], x2.aval.shape[-2])
    x1 = lax.conj(x1) if _is_complex(x1) else x1
    return matmul(x1[..., None, :], x2)[..., 0, :]


def _is_complex(x):
    return np.issubdtype(x.aval.dtype, np.complexfloating)
