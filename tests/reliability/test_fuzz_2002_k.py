"""Findings of the full seed-2002 comparison fuzz (`fuzz_runner --calls 100000 --seed 2002
--compare-jax`) beyond those of its first 62,000 calls, one row each, with JAX 0.10.2's answer
as the expected outcome: (id, call, expected value or exception class).
"""

from __future__ import annotations

import pytest

import stablax
import stablax.lax.linalg
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding

_ONES, _KERNEL = jnp.ones((1, 2, 4)), jnp.ones((2, 2, 1))


def _conv_transpose(strides, padding):
    return lax.conv_transpose(jnp.ones((1, 4, 2)), jnp.ones((1, 2, 2)), strides, padding)


_FINDINGS = [
    # mask_indices takes the indices with jnp.nonzero, as JAX: a traced mask works under jit
    # when `size` is given (it went through NumPy and needed a concrete mask).
    (
        "mask_indices under jit with size",
        lambda: stablax.jit(lambda: jnp.mask_indices(3, jnp.tril, size=4))(),
        ([0, 1, 1, 2], [0, 0, 1, 0]),
    ),
    (
        "mask_indices of a traced mask with size",
        lambda: stablax.jit(lambda: jnp.mask_indices(1, lambda a, k: a, k=6, size=True))(),
        ([0], [0]),
    ),
    ("mask_indices of a 1-d mask", lambda: jnp.mask_indices(2, lambda a, k: a[0]), ValueError),
    # where checks its arguments' types before refusing size/fill_value in the 3-term form.
    ("where None with size", lambda: jnp.where(None, jnp.ones(3), 1.0, size=0), TypeError),
    ("where with size", lambda: jnp.where(True, jnp.ones(3), 1.0, size=0), ValueError),
    # conv_transpose/conv_general_dilated raise JAX's classes for dilations and pads: a
    # non-positive dilation (strides are conv_transpose's lhs dilation) or too few pads is a
    # TypeError, a window stride or a length XLA's verifier refuses a ValueError.
    ("conv_transpose no strides", lambda: _conv_transpose((), "SAME"), TypeError),
    ("conv_transpose negative stride", lambda: _conv_transpose((-1, 2), "SAME"), TypeError),
    ("conv_transpose too many strides", lambda: _conv_transpose((1, 1), "VALID"), ValueError),
    (
        "conv_general_dilated zero rhs_dilation",
        lambda: lax.conv_general_dilated(_ONES, _KERNEL, (1,), "SAME", rhs_dilation=(0,)),
        TypeError,
    ),
    (
        "conv_general_dilated two pads for one dimension",
        lambda: lax.conv_general_dilated(_ONES, _KERNEL, (1,), [(0, 0), (1, 1)]),
        TypeError,
    ),
    # Row permutations of matrices with no rows (inv, solve, lu of empty matrices; a gather of
    # one-row slices from no rows was refused).
    ("inv of an empty matrix", lambda: jnp.linalg.inv(jnp.ones((0, 0))).shape, (0, 0)),
    (
        "solve of empty batched matrices",
        lambda: jnp.linalg.solve(jnp.ones((3, 0, 0)), jnp.ones((3, 0, 2))).shape,
        (3, 0, 2),
    ),
    # broadcast_shapes reads a 0-d integer array as an int, as JAX (a float one is refused).
    ("broadcast_shapes of a 0-d array", lambda: jnp.broadcast_shapes(jnp.array(7), (1,)), (7,)),
    ("broadcast_shapes of a 0-d float", lambda: jnp.broadcast_shapes(jnp.array(7.5)), TypeError),
    # convolve/correlate with preferred_element_type keep the operands' own promoted type, as
    # JAX (bools and integers accumulate in it); without, they are inexact.
    (
        "convolve bools into bool",
        lambda: jnp.convolve(
            jnp.array([True, False, True]), jnp.array([True, True]), preferred_element_type=bool
        ),
        [True, True, True, True],
    ),
    (
        "convolve ints into int32",
        lambda: jnp.convolve(
            jnp.array([1, 2, 3]), jnp.array([1, 1]), preferred_element_type=jnp.int32
        ),
        [1, 3, 5, 3],
    ),
    # ptp checks its input before refusing `out`; triangular_solve's batch mismatch is JAX's
    # ValueError.
    ("ptp of a string with out", lambda: jnp.ptp("a", out="a"), TypeError),
    (
        "triangular_solve batch mismatch",
        lambda: lax.linalg.triangular_solve(
            jnp.ones((3, 2, 2)), jnp.ones((2, 2, 2)), left_side=True
        ),
        ValueError,
    ),
    # absolute of unsigned 4- and 2-bit integers is the input (NumPy's kind letter for them is
    # "V", so they reached lax.abs, which refuses unsigned types).
    ("absolute of uint4", lambda: jnp.absolute(jnp.array([3, 5], "uint4")), [3, 5]),
    ("vmap of abs of uint2", lambda: stablax.vmap(jnp.abs)(jnp.array([3, 1], "uint2")), [3, 1]),
    # out_sharding that is no sharding at all is JAX's TypeError (a sharding over devices
    # stablax does not run on stays NotImplementedError).
    ("zeros out_sharding string", lambda: jnp.zeros(3, out_sharding="a"), TypeError),
    (
        "dot out_sharding float",
        lambda: jnp.dot(jnp.ones(2), jnp.ones(2), out_sharding=1.5),
        TypeError,
    ),
    # Creation functions refuse device and out_sharding together first (JAX's ValueError);
    # asarray checks the dtype before order and the device.
    (
        "empty with device and out_sharding",
        lambda: jnp.empty(2, device=1j, out_sharding="a"),
        ValueError,
    ),
    (
        "asarray dtype before device",
        lambda: jnp.asarray(jnp.ones(2), dtype="foo", device=0.5),
        TypeError,
    ),
    ("asarray dtype before order", lambda: jnp.asarray([1.0], dtype="foo", order="X"), TypeError),
    (
        "broadcasted_iota dtype None first",
        lambda: lax.broadcasted_iota(None, (2,), 0, out_sharding="a"),
        ValueError,
    ),
    # Found by the rerun of the changed functions: empty batches of row permutations, a
    # complex cond predicate, asarray's order before the sharding, einsum's subscripts before
    # the sharding, conv_transpose's padding kind before its strides, argmax's index dtype first.
    (
        "solve of an empty batch",
        lambda: jnp.linalg.solve(jnp.ones((2, 0, 2, 2)), jnp.ones((2, 0, 2, 2))).shape,
        (2, 0, 2, 2),
    ),
    ("cond of a complex pred", lambda: lax.cond(0.5j, lambda x: x, lambda x: x, 1.0), TypeError),
    (
        "asarray order before sharding",
        lambda: jnp.asarray(jnp.ones(2), order="C", out_sharding=-1),
        NotImplementedError,
    ),
    (
        "einsum operands before sharding",
        lambda: jnp.einsum("ij,jk->ik", out_sharding=1j),
        ValueError,
    ),
    (
        "conv_transpose padding kind first",
        lambda: lax.conv_transpose(jnp.ones((1, 4, 2)), jnp.ones((1, 2, 2)), (0,), "SAME_LOWER"),
        ValueError,
    ),
    ("argmax index dtype first", lambda: lax.argmax(None, 0, None), ValueError),
    # The generic reductions trace the computation before checking the init values and the
    # window, as JAX; a non-callable computation is a clean TypeError; out_sharding is last.
    (
        "reduce traces the computation first",
        lambda: lax.reduce(jnp.zeros(2, "int16"), 1j, lambda a, b: 1 / 0, (0,)),
        ZeroDivisionError,
    ),
    ("reduce of no callable", lambda: lax.reduce(jnp.ones(2), 0.0, object(), (0,)), TypeError),
    (
        "reduce_window output tree before the window",
        lambda: lax.reduce_window(jnp.ones(3), 0.0, lambda a, b: (a, b), (5, 5), (1,), "VALID"),
        ValueError,
    ),
    (
        "reduce init tree before out_sharding",
        lambda: lax.reduce([jnp.ones(2)], 0.0, lax.add, (0,), out_sharding=True),
        ValueError,
    ),
    ("copy of None before order", lambda: jnp.copy(None, order="bogus"), TypeError),
    # put's default mode is JAX's: a negative index counts from the end, then all clip.
    (
        "put clips by default",
        lambda: jnp.put(jnp.zeros(3), jnp.array([5]), 1.0, inplace=False),
        [0.0, 0.0, 1.0],
    ),
    (
        "put below the start",
        lambda: jnp.put(jnp.zeros(3), jnp.array([-5]), 1.0, inplace=False),
        [1.0, 0.0, 0.0],
    ),
    # setxor1d pads with fill_value through jnp.where's promotion, as JAX.
    (
        "setxor1d fill promotes",
        lambda: jnp.setxor1d(
            jnp.array([False, True]), jnp.array([True]), size=3, fill_value=jnp.array([0.25])
        ),
        [0.0, 0.25, 0.25],
    ),
    # broadcasted_iota checks the shape's signs, then the dtype, then the dimension, as JAX.
    (
        "broadcasted_iota bool before dimension",
        lambda: lax.broadcasted_iota(bool, (4,), 1),
        TypeError,
    ),
    # histogram takes the data in its inexact type from the start, as JAX (uint4 data with
    # array bins and an ignored range).
    (
        "histogram of uint4 with array bins",
        lambda: jnp.histogram(jnp.array([0, 1], "uint4"), bins=jnp.array([0, 2], "uint32"))[0],
        [2.0],
    ),
    # matmul checks that the batch dimensions broadcast before the contracting ones, as JAX.
    (
        "matmul batch before contraction",
        lambda: jnp.matmul(jnp.ones((2, 3, 2)), jnp.ones((4, 3, 2))),
        ValueError,
    ),
    ("matmul contraction", lambda: jnp.matmul(jnp.ones((2, 3, 2)), jnp.ones((3, 2))), TypeError),
    # histogram compares the weights' shape with a's before it reads bins, as JAX.
    (
        "histogram weights before bins",
        lambda: jnp.histogram(jnp.ones(3), bins=jnp.array(1j), weights=jnp.ones(2)),
        ValueError,
    ),
    (
        "conv_general_dilated zero stride",
        lambda: lax.conv_general_dilated(_ONES, _KERNEL, (0,), "SAME"),
        ValueError,
    ),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_k_finding(name, call, expected):
    check_finding(call, expected)
