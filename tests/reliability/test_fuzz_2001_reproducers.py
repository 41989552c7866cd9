"""Findings of the 100,000-call comparison fuzz with seed 2001 (`fuzz_runner --calls 100000
--seed 2001 --compare-jax`), one row each, with JAX 0.10.2's answer (or NumPy's, where JAX's is
an artefact) as the expected outcome: (id, call, expected value or exception class).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, check_result_type


def _grad_of_sum(f, x):
    return stablax.grad(lambda v: jnp.sum(jnp.real(f(v))))(x)


_FINDINGS = [
    # lax.collapse takes Python slice bounds: clipped, and an empty range inserts a 1.
    ("collapse past the rank", lambda: lax.collapse(jnp.ones((2, 3)), 3).shape, [2, 3, 1]),
    ("collapse empty range of a 0-d array", lambda: lax.collapse(jnp.ones(()), 0, 0).shape, [1]),
    ("collapse empty range inside", lambda: lax.collapse(jnp.ones((2, 3)), 1, 1).shape, [2, 1, 3]),
    ("collapse start below -rank", lambda: lax.collapse(jnp.ones((2, 3)), -5).shape, [6]),
    ("collapse reversed range", lambda: lax.collapse(jnp.ones((2, 3)), 1, 0), ValueError),
    # lax.conj of a real operand takes float32 and float64 only.
    ("conj bfloat16", lambda: lax.conj(jnp.ones(2, jnp.bfloat16)), TypeError),
    (
        "conj float16 under grad",
        lambda: _grad_of_sum(lax.conj, jnp.ones(2, jnp.float16)),
        TypeError,
    ),
    ("conj float32", lambda: lax.conj(jnp.ones(1)), [1 + 0j]),
    # broadcast_shapes: negative sizes, and arrays that are not 1-D, are no shapes, but for one
    # whose first axis is empty: `tuple(shape)` makes it the empty shape, as in jnp's (JAX).
    ("lax.broadcast_shapes negative", lambda: lax.broadcast_shapes((-1,), (1,)), TypeError),
    ("jnp.broadcast_shapes negative", lambda: jnp.broadcast_shapes((-2,), (1,)), TypeError),
    ("broadcast_shapes 2-D array", lambda: lax.broadcast_shapes(jnp.ones((2, 3))), TypeError),
    ("broadcast_shapes (0, 3) array", lambda: lax.broadcast_shapes(jnp.ones((0, 3))), []),
    ("jnp.broadcast_shapes ints", lambda: jnp.broadcast_shapes(2, (3, 1)), [3, 2]),
    # padtype_to_pads reads the padding type first.
    ("padtype_to_pads None", lambda: lax.padtype_to_pads((2, 1), (2,), (1,), None), TypeError),
    ("padtype_to_pads lower case", lambda: lax.padtype_to_pads((4,), (2,), (2,), "same"), [[0, 0]]),
    ("histogram2d unequal shapes", lambda: jnp.histogram2d(jnp.ones(4), jnp.ones(3)), TypeError),
    ("histogram2d 0-d y", lambda: jnp.histogram2d(jnp.ones((4, 2)), 3.0), TypeError),
    ("histogram2d 2-D", lambda: jnp.histogram2d(jnp.ones((4, 2)), jnp.ones((4, 2))), ValueError),
    (
        "histogram2d counts",
        lambda: jnp.histogram2d(jnp.arange(4.0), jnp.arange(4.0), bins=2)[0],
        [[2, 0], [0, 2]],
    ),
    (
        "multi_dot chain mismatch",
        lambda: jnp.linalg.multi_dot([jnp.ones((3, 1)), jnp.ones((3, 1))]),
        ValueError,
    ),
    (
        "multi_dot vectors mismatch",
        lambda: jnp.linalg.multi_dot([jnp.ones(3), jnp.ones(2)]),
        ValueError,
    ),
    ("apply_over_axes no axes", lambda: jnp.apply_over_axes(None, 1 + 2j, ()), 1 + 2j),
    ("apply_over_axes no func", lambda: jnp.apply_over_axes(None, jnp.ones(2), 0), TypeError),
    (
        "conv_dimension_numbers rank 1",
        lambda: tuple(lax.conv_dimension_numbers((1,), (1,), None)),
        [[0], [0], [0]],
    ),
    (
        "conv_general_dilated rank 1",
        lambda: lax.conv_general_dilated(jnp.ones(3), jnp.ones(3), (), "VALID"),
        TypeError,
    ),
]


_FINDINGS += [
    # random_gamma_grad broadcasts as JAX's (NumPy's shape, each operand's axes leading).
    (
        "random_gamma_grad broadcasts",
        lambda: lax.random_gamma_grad(jnp.ones(1), jnp.ones((3, 4))).shape,
        [3, 4],
    ),
    (
        "random_gamma_grad incompatible",
        lambda: lax.random_gamma_grad(jnp.ones((5, 3, 4)), jnp.ones((1, 5))),
        ValueError,
    ),
    (
        "random_gamma_grad trailing-only broadcast",
        lambda: lax.random_gamma_grad(jnp.ones(4), jnp.ones((3, 4))),
        TypeError,
    ),
    (
        "nonzero of nothing ignores fill",
        lambda: jnp.nonzero(jnp.zeros(0), size=2, fill_value=jnp.ones(2)),
        [[0, 0]],
    ),
    ("ravel_multi_index float dtype", lambda: jnp.ravel_multi_index((1.0, 2), (3, 4)), ValueError),
    (
        "ravel_multi_index dtype too small",
        lambda: jnp.ravel_multi_index(jnp.ones((2, 2), jnp.int8), (20, 20), mode="wrap"),
        ValueError,
    ),
    (
        "ravel_multi_index mode ignore",
        lambda: jnp.ravel_multi_index((1, 2), (3, 4), mode="ignore"),
        6,
    ),
    (
        "dynamic_update_slice_in_dim str start",
        lambda: lax.dynamic_update_slice_in_dim(jnp.int8(0), jnp.int8(1), "2", 0),
        TypeError,
    ),
    ("irfft2 axes before the array", lambda: jnp.fft.irfft2(None, axes=()), ValueError),
    (
        "householder_product taus checked first",
        lambda: lax.linalg.householder_product(jnp.ones((2, 1), bool), jnp.ones(5, jnp.float16)),
        ValueError,
    ),
    ("pmin of a str", lambda: lax.pmin("a", "a"), TypeError),
    ("psum of no leaves", lambda: lax.psum(None, "i") is None, True),
    ("pmean of no leaves needs the axis", lambda: lax.pmean({}, "i"), NameError),
]

_FINDINGS += [
    ("cumsum to bool", lambda: jnp.cumsum(jnp.array([2, 0, 1]), dtype=bool), [True, True, True]),
    (
        "cumprod to bool",
        lambda: jnp.cumprod(jnp.array([2, 0, 1]), dtype=bool),
        [True, False, False],
    ),
    (
        "nancumsum to bool",
        lambda: jnp.nancumsum(jnp.array([np.nan, 0, 1]), dtype=bool),
        [False, False, True],
    ),
    (
        "take checks its mode first",
        lambda: jnp.take(jnp.ones(0), jnp.array(1), mode="promise_in_bounds"),
        ValueError,
    ),
    (
        "conv_transpose feature sizes before dtypes",
        lambda: lax.conv_transpose(jnp.ones((1, 1), jnp.int16), jnp.ones((3, 1)), (), "SAME"),
        ValueError,
    ),
    (
        "conv_transpose feature sizes before strides",
        lambda: lax.conv_transpose(jnp.ones((1, 2, 1)), jnp.ones((3, 2, 1)), (1, 1, 1), "SAME"),
        ValueError,
    ),
    ("mean of None before where", lambda: jnp.mean(None, where=jnp.ones(3)), TypeError),
    ("nanmean of None before where", lambda: jnp.nanmean(None, where=jnp.ones(3)), TypeError),
    ("can_cast reads to first", lambda: jnp.can_cast(jnp.int16, 3, casting="bogus"), TypeError),
]

_FINDINGS += [
    (
        "scatter_apply func checked",
        lambda: lax.scatter_apply(jnp.ones(2), jnp.zeros((1, 1), int), None, None),
        TypeError,
    ),
]

_FINDINGS += [
    # diff joins prepend/append as JAX's concatenation does: the axis is read against the
    # first part, and parts that do not join are a TypeError.
    (
        "diff append of another rank",
        lambda: jnp.diff(jnp.ones((2, 2)), append=jnp.ones(3)),
        TypeError,
    ),
    (
        "diff prepend without the axis",
        lambda: jnp.diff(jnp.ones((2, 2)), prepend=jnp.ones(3)),
        ValueError,
    ),
    (
        "diff prepend of another rank",
        lambda: jnp.diff(jnp.ones((2, 2)), axis=0, prepend=jnp.ones(3)),
        TypeError,
    ),
]

_FINDINGS += [
    # 'SAME' padding of reduce_window reads the undilated operand, as JAX.
    (
        "reduce_window SAME with base dilation",
        lambda: lax.reduce_window(jnp.ones(4), 0.0, lax.add, (3,), (2,), "SAME", (2,), (2,)),
        [0.0, 0.0, 0.0],
    ),
]

_FINDINGS += [
    ("full of a complex into ints", lambda: lax.full(2**63, -1j, dtype=int), TypeError),
    ("full of a complex into floats", lambda: lax.full(3, 1j, dtype=jnp.float32), TypeError),
]

_FINDINGS += [
    ("reshape order None", lambda: jnp.reshape(jnp.ones(4), (2, 2), order=None), ValueError),
    ("reshape order A", lambda: jnp.reshape(jnp.ones(4), (2, 2), order="A"), NotImplementedError),
    ("ravel order K", lambda: jnp.ravel(jnp.ones(4), order="K"), NotImplementedError),
    (
        "ravel order F",
        lambda: jnp.ravel(jnp.arange(6).reshape(2, 3), order="F"),
        [0, 3, 1, 4, 2, 5],
    ),
    # float8_e4m3fn has no infinity: max/min reduce from its extreme finite values.
    ("min of float8_e4m3fn", lambda: jnp.min(jnp.array([1.0, 2.0], jnp.float8_e4m3fn)), 1.0),
    (
        "max of float8_e4m3fn",
        lambda: lax.reduce_max(jnp.array([1.0, 2.0], jnp.float8_e4m3fn), (0,)),
        2.0,
    ),
    # Masked-out booleans take min's identity True, max's False.
    ("min of masked bools", lambda: jnp.min(False, initial=True, where=False), True),
    (
        "max of masked bools",
        lambda: jnp.max(jnp.array([True, False]), initial=False, where=jnp.array([False, True])),
        False,
    ),
    # fmax/fmin give a tie to x2, value and gradient, as JAX.
    ("fmax tie gradient", lambda: stablax.grad(lambda x: jnp.fmax(x, 0.0))(0.0), 0.0),
    ("fmax tie gradient of x2", lambda: stablax.grad(lambda y: jnp.fmax(0.0, y))(0.0), 1.0),
    ("fmax signed zeros", lambda: np.signbit(jnp.fmax(0.0, -0.0)).item(), True),
    (
        "hypot complex before shapes",
        lambda: jnp.hypot(jnp.ones((4, 4), complex), jnp.ones((5, 4))),
        ValueError,
    ),
]

_FINDINGS += [
    (
        "average weights of another shape, no axis",
        lambda: jnp.average(jnp.ones(3), weights=jnp.ones(2)),
        ValueError,
    ),
    (
        "intersect1d of nothing common pads zeros",
        lambda: jnp.intersect1d(jnp.array([5, 6, 1, 7]), jnp.array([8]), size=3),
        [0, 0, 0],
    ),
    (
        "intersect1d of an empty array",
        lambda: jnp.intersect1d(jnp.zeros(0, jnp.uint8), jnp.array([1, -5], jnp.int8), size=2),
        [0, 0],
    ),
    (
        "intersect1d pads with the smallest common value",
        lambda: jnp.intersect1d(jnp.array([5, 6, 1, 7]), jnp.array([1, 9]), size=3),
        [1, 1, 1],
    ),
]

_FINDINGS += [
    (
        "fmod of int4 by zero",
        lambda: jnp.fmod(jnp.array([5, -3], jnp.int4), jnp.array([0, 2], jnp.int4)),
        [0, -1],
    ),
]

_FINDINGS += [
    (
        "percentile checks its arrays first",
        lambda: jnp.percentile(None, jnp.ones(3), weights=jnp.ones(1)),
        TypeError,
    ),
    ("median of None", lambda: jnp.median(None), TypeError),
]

_FINDINGS += [
    # Found re-running the fixed functions' calls: JAX's first checks come before those above.
    (
        "householder_product batch ranks first",
        lambda: lax.linalg.householder_product(jnp.ones((3, 4)), jnp.ones((2, 3))),
        TypeError,
    ),
    (
        "conv_transpose strides read for a padding string",
        lambda: lax.conv_transpose(jnp.ones((3, 2, 3)), jnp.ones((3, 2, 3)), "ab", "SAME"),
        TypeError,
    ),
]

_FINDINGS += [
    # Found by a 25-calls-a-function run after the fixes: frexp's mantissa had no derivative.
    ("frexp mantissa gradient", lambda: stablax.grad(lambda x: jnp.frexp(x)[0])(3.0), 0.25),
    ("frexp mantissa gradient at 0", lambda: stablax.grad(lambda x: jnp.frexp(x)[0])(0.0), 1.0),
]

# (id, call, value, dtype, weak_type) as JAX 0.10.2 gives.
_TYPES = [
    (
        "random_gamma_grad bfloat16 a",
        lambda: lax.random_gamma_grad(np.array(1.9, jnp.bfloat16), jnp.zeros(1, jnp.uint32)),
        [0.0],
        "bfloat16",
        False,
    ),
    (
        "nonzero float fill",
        lambda: jnp.nonzero(jnp.array([0.0, 1.0, 2.0]), size=4, fill_value=1.5)[0],
        [1.0, 2.0, 1.5, 1.5],
        "float32",
        True,
    ),
    (
        "argwhere of a 0-d with a float fill",
        lambda: jnp.argwhere(jnp.array(-1.6), fill_value=jnp.float32(0)),
        [[]],
        "float32",
        False,
    ),
    (
        "ravel_multi_index uint32 coordinates",
        lambda: jnp.ravel_multi_index(jnp.ones((3, 2), jnp.uint32), (3, 3, 3), mode="wrap"),
        [13, 13],
        "uint32",
        False,
    ),
    ("logical_or 0-d int and float", lambda: jnp.logical_or(np.int32(0), 1.5), True, "bool", True),
    ("logical_or bool and int", lambda: jnp.logical_or(True, 0), True, "bool", True),
    (
        "logical_or int array and float",
        lambda: jnp.logical_or(jnp.ones(2, int), 1.5),
        [True, True],
        "bool",
        False,
    ),
    ("rev of a Python bool is strong", lambda: lax.rev(True, ()), True, "bool", False),
    (
        "convert of a Python bool under jit",
        lambda: stablax.jit(lambda: lax.convert_element_type(True, bool))(),
        True,
        "bool",
        False,
    ),
    (
        "intersect1d with size is strong",
        lambda: jnp.intersect1d(3, 3, size=2),
        [3, 3],
        "int32",
        False,
    ),
    (
        "convert of a weak int to bool is strong",
        lambda: lax.convert_element_type(0, bool),
        False,
        "bool",
        False,
    ),
    (
        "setdiff1d of an empty bool array",
        lambda: jnp.setdiff1d(jnp.zeros(0, bool), 1),
        [],
        "bool",
        False,
    ),
    ("tensorsolve of Python ints", lambda: jnp.linalg.tensorsolve(7, 7), 1.0, "float32", True),
    (
        "solve weak operands",
        lambda: jnp.linalg.solve(jnp.full((1, 1), 2.0), jnp.full((1,), 2.0)),
        [1.0],
        "float32",
        True,
    ),
    (
        "solve one strong operand",
        lambda: jnp.linalg.solve(jnp.full((1, 1), 2.0), jnp.ones(1)),
        [0.5],
        "float32",
        False,
    ),
]


@pytest.mark.parametrize("name, call, value, dtype, weak", _TYPES, ids=[c[0] for c in _TYPES])
def test_fuzz_2001_result_type(name, call, value, dtype, weak):
    check_result_type(call, value, dtype, weak)


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2001_finding(name, call, expected):
    check_finding(call, expected)
