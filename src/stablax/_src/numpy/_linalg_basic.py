"""Products: matmul (with NumPy's batching and broadcasting), dot, vdot, inner, outer."""

from __future__ import annotations

from stablax._src import ir as mlir
from stablax._src import lax
from stablax._src.jit import jit as _eager
from stablax._src.numpy._creation import asarray
from stablax._src.numpy._promotion import broadcast_shapes, broadcast_to_shape, promote_dtypes


def _matmul_impl(a, b, precision=None, preferred_element_type=None):
    a, b = promote_dtypes(asarray(a), asarray(b))
    a_nd, b_nd = a.aval.ndim, b.aval.ndim
    if a_nd == 0 or b_nd == 0:
        raise ValueError(
            f"jnp.matmul: operands must be at least 1-D, got shapes {a.aval.shape}"
            f" and {b.aval.shape}{mlir.where_suffix()}"
        )
    if a_nd == 1:
        a = lax.reshape(a, (1, a.aval.shape[0]))
    if b_nd == 1:
        b = lax.reshape(b, (b.aval.shape[0], 1))
    if a.aval.shape[-1] != b.aval.shape[-2]:
        raise TypeError(
            f"jnp.matmul: contracting dimensions differ: {a.aval.shape} @ "
            f"{b.aval.shape}{mlir.where_suffix()}"
        )
    batch = broadcast_shapes("jnp.matmul", a.aval.shape[:-2], b.aval.shape[:-2])
    a = broadcast_to_shape(a, batch + a.aval.shape[-2:])
    b = broadcast_to_shape(b, batch + b.aval.shape[-2:])
    nb = len(batch)
    out = lax.dot_general(
        a,
        b,
        (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))),
        precision,
        preferred_element_type,
    )
    shape = out.aval.shape
    if a_nd == 1:
        shape = shape[:-2] + shape[-1:]
    if b_nd == 1:
        shape = shape[:-1]
    return lax.reshape(out, shape)


matmul = _eager(_matmul_impl, static_argnames=("precision", "preferred_element_type"))


def _dot_impl(a, b, precision=None, preferred_element_type=None):
    a, b = promote_dtypes(asarray(a), asarray(b))
    if a.aval.ndim == 0 or b.aval.ndim == 0:
        return lax.mul(a, b)
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


dot = _eager(_dot_impl, static_argnames=("precision", "preferred_element_type"))


@_eager
def vdot(a, b):
    """Dot product of flattened arrays, conjugating the first."""
    a, b = promote_dtypes(asarray(a), asarray(b))
    a = lax.reshape(lax.conj(a), (a.aval.size,))
    b = lax.reshape(b, (b.aval.size,))
    return lax.dot_general(a, b, (((0,), (0,)), ((), ())))


@_eager
def inner(a, b):
    """Sum product over the last axes."""
    a, b = promote_dtypes(asarray(a), asarray(b))
    if a.aval.ndim == 0 or b.aval.ndim == 0:
        return lax.mul(a, b)
    return lax.dot_general(a, b, (((a.aval.ndim - 1,), (b.aval.ndim - 1,)), ((), ())))


@_eager
def outer(a, b):
    """Outer product of the flattened inputs."""
    a, b = promote_dtypes(asarray(a), asarray(b))
    a = lax.reshape(a, (a.aval.size, 1))
    b = lax.reshape(b, (1, b.aval.size))
    return lax.dot_general(a, b, (((1,), (0,)), ((), ())))
