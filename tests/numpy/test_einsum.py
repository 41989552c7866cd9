"""einsum (opt_einsum paths, lowered to dot_general) and the other contractions, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp
from stablax.test_util import check_grads

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-3, 4, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def close(got, expected, dtype=None):
    got = np.asarray(got)
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    if dtype is not None:
        assert got.dtype == dtype


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("...ij,...jk->...ik", [(1, 2, 3), (4, 3, 2)]),
    ("i,i", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
    ("ab,cd,bc->ad", [(2, 3), (4, 5), (3, 4)]),
    ("i,ij,j", [(3,), (3, 4), (4,)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,kl", [(2, 1), (3, 2)]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_against_numpy(subscripts, shapes):
    ops = [rand(*s) for s in shapes]
    expected = np.einsum(subscripts, *ops)
    for optimize in ("auto", True, False, "optimal"):
        close(jnp.einsum(subscripts, *ops, optimize=optimize), expected, np.float32)
    close(stablax.jit(lambda *o: jnp.einsum(subscripts, *o))(*ops), expected)


@pytest.mark.parametrize(
    "subscripts, shapes",
    [
        ("bqhd,bkhd->bhqk", [(2, 3, 4, 5), (2, 6, 4, 5)]),  # attention scores
        ("btd,de->bte", [(8, 6, 4), (4, 5)]),  # a weight applied to a batch of rows
        ("de,btd->bte", [(4, 5), (8, 6, 4)]),
    ],
)
def test_einsum_picks_the_operand_order_that_needs_no_transpose(subscripts, shapes):
    args = [np.ones(s, np.float32) for s in shapes]
    text = str(stablax.make_jaxpr(lambda *xs: jnp.einsum(subscripts, *xs))(*args))
    assert text.count("stablehlo.dot_general") == 1
    assert "stablehlo.transpose" not in text


def test_einsum_forms_and_options():
    a, b = rand(2, 3), rand(3, 4)
    close(jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), a @ b)
    close(jnp.einsum(a, [Ellipsis, 1], b, [1, 2]), np.einsum(a, [Ellipsis, 1], b, [1, 2]))
    ints = [rand(2, 3, dtype=np.int8), rand(3, 4, dtype=np.int8)]
    assert jnp.einsum("ij,jk", *ints).dtype == np.int8
    assert jnp.einsum("i,i", np.array([True, False]), np.array([True, True])).item() is True
    assert jnp.einsum("ij,jk", a, b, preferred_element_type=np.float32).dtype == np.float32
    ops = [rand(2, 3), rand(3, 4), rand(4, 5)]
    path, info = jnp.einsum_path("ij,jk,kl->il", *ops, optimize="optimal")
    assert all(isinstance(step, tuple) for step in path) and "Complete contraction" in str(info)
    close(jnp.einsum("ij,jk,kl->il", *ops, optimize=path), ops[0] @ ops[1] @ ops[2])
    with pytest.raises(ValueError, match="jnp.einsum"):
        jnp.einsum("ij,jk", a, a)


def test_einsum_grad_and_vmap():
    b = rand(3, 4)
    check_grads(
        lambda x: jnp.einsum("ij,jk,ik->", x, b, x @ b), (rand(2, 3),), order=1, modes=("rev",)
    )
    xs = rand(5, 2, 3)
    f = lambda x: jnp.einsum("ij,jk->ki", x, b)  # noqa: E731
    close(stablax.vmap(f)(xs), np.stack([np.einsum("ij,jk->ki", x, b) for x in xs]))


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2**16))
def test_einsum_hypothesis(m, n, k, seed):
    rng = np.random.default_rng(seed)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((m, n), (n, k), (k, m)))
    close(jnp.einsum("ij,jk,ki->i", a, b, c), np.einsum("ij,jk,ki->i", a, b, c))
    close(jnp.tensordot(a, b, 1), np.tensordot(a, b, 1))
    close(jnp.kron(a, b), np.kron(a, b))


@pytest.mark.parametrize(
    "axes,b_shape",
    [(0, (3,)), (1, (4, 5)), (2, (3, 4, 5)), (([1, 0], [0, 1]), (3, 2, 5)), (([-1], [0]), (4,))],
)
def test_tensordot(axes, b_shape):
    a, b = rand(2, 3, 4), rand(*b_shape)
    close(jnp.tensordot(a, b, axes), np.tensordot(a, b, axes))
    close(stablax.jit(lambda x, y: jnp.tensordot(x, y, axes))(a, b), np.tensordot(a, b, axes))


def test_kron_cross_vecdot_matvec():
    for sa, sb in (((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (3, 2)), ((), (2,))):
        a, b = rand(*sa), rand(*sb)
        close(jnp.kron(a, b), np.kron(a, b))
    ia, ib = rand(2, 2, dtype=np.int32), rand(3, dtype=np.int32)
    np.testing.assert_array_equal(jnp.kron(ia, ib), np.kron(ia, ib))
    for sa, sb, kw in (
        ((3,), (3,), {}),
        ((4, 3), (3,), {}),
        ((2,), (2,), {}),
        ((5, 2), (5, 3), {}),
        ((3, 4), (4, 3), {"axisa": 0, "axisb": 1, "axisc": 0}),
        ((4, 3), (4, 3), {"axis": 1}),
    ):
        a, b = rand(*sa), rand(*sb)
        close(jnp.cross(a, b, **kw), np.cross(a, b, **kw))
    a, b = rand(2, 3), rand(4, 1, 3)
    close(jnp.vecdot(a, b), np.vecdot(a, b))
    close(jnp.vecdot(a.T, a.T, axis=0), np.vecdot(a.T, a.T, axis=0))
    c = (rand(2, 3) + 1j * rand(2, 3)).astype(np.complex64)
    d = (rand(2, 3) + 1j * rand(2, 3)).astype(np.complex64)
    close(jnp.vecdot(c, d), np.vecdot(c, d))
    m = rand(4, 2, 3)
    w = rand(3)
    close(jnp.matvec(m, w), np.matvec(m, w))
    v = (rand(2) + 1j * rand(2)).astype(np.complex64)
    close(jnp.vecmat(v, m.astype(np.complex64)), np.vecmat(v, m.astype(np.complex64)))
