"""Findings of the seed-2002 `--only` rerun of the functions changed after the full run, one
row each, with JAX 0.10.2's answer as the expected outcome: (id, call, expected value or
exception class).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from tests.reliability.reproducer_checks import check_finding, under_x64

_FLOAT8_SAMPLE = np.array(
    [0.5, -0.625, -0.75, 0.4375, 0.875, 0.625, -0.5, -0.875, -0.875, -0.75]
    + [0.875, -0.875, 0.75, -0.625, 0.625, -0.875, -0.3125, 0.75, 0.0546875, 0.875],
    ml_dtypes.float8_e5m2,
)

_FINDINGS = [
    # fftfreq with an integer dtype computes in JAX's float for it (float32 for uint16), so
    # 1 / (4 * 1e-5) rounds to 25000 there, not to float64's 24999.999...
    (
        "fftfreq uint16 tiny spacing under x64",
        under_x64(lambda: jnp.fft.fftfreq(4, d=1e-05, dtype=jnp.uint16)),
        [0, 25000, 0, 0],
    ),
    (
        "fftfreq uint16 tiny spacing",
        lambda: jnp.fft.fftfreq(4, d=1e-05, dtype=jnp.uint16),
        [0, 25000, 0, 0],
    ),
    # A negative number of tensordot axes contracts nothing: the outer product (NumPy, JAX).
    ("tensordot of scalars axes -1", lambda: jnp.tensordot(0.5, 3.0, axes=-1), 1.5),
    (
        "tensordot axes -2 is the outer product",
        lambda: jnp.tensordot(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]), axes=-2),
        [[3.0, 4.0], [6.0, 8.0]],
    ),
    (
        "tensordot more axes than ranks",
        lambda: jnp.tensordot(jnp.ones(2), jnp.ones(2), 2),
        TypeError,
    ),
    # dce_sink reads its operands before the flag: bytes are no array.
    ("dce_sink of bytes", lambda: lax.dce_sink(b"ab", prevent_mlir_dce=b"ab"), TypeError),
    # lax.fft compares the minor dimensions with the lengths before reading them as integers.
    ("fft length 1.5", lambda: lax.fft(jnp.ones(2), "FFT", (1.5,)), ValueError),
    ("rfft length None", lambda: lax.fft(jnp.ones(2), "RFFT", (None,)), ValueError),
    ("irfft length 1.5", lambda: lax.fft(jnp.ones(2), "IRFFT", (1.5,)), TypeError),
    (
        "ifft length 1.5 of an empty bfloat16 under grad",
        lambda: stablax.grad(lambda v: jnp.sum(jnp.real(lax.fft(v, "IFFT", (1.5,)))))(
            jnp.zeros((0,), jnp.bfloat16)
        ),
        ValueError,
    ),
    # histogramdd/histogram2d: a range without a length is a TypeError naming the range.
    (
        "histogram2d range of an object",
        lambda: jnp.histogram2d(jnp.array([3]), jnp.array([3]), range=object()),
        TypeError,
    ),
    ("histogramdd range of an int", lambda: jnp.histogramdd(jnp.ones((3, 2)), range=3), TypeError),
    # The full seed-2002 run on 452ea1a.
    (
        "acosh slope at -1 is +inf",
        lambda: stablax.grad(lambda v: lax.acosh(v).sum())(jnp.array([-1.0, 1.0])),
        [float("inf"), float("inf")],
    ),
    (
        "insert refuses str values before a 2-D obj",
        lambda: jnp.insert(jnp.ones(3), jnp.ones((2, 2), int), "a"),
        TypeError,
    ),
    (
        "platform_dependent of str operands",
        lambda: stablax.jit(lambda: lax.platform_dependent("a", "a"))(),
        TypeError,
    ),
    (
        "setdiff1d complex fill for uint8",
        lambda: jnp.setdiff1d(
            jnp.array([1, 5], "uint8"), jnp.array([1], "uint8"), size=3, fill_value=1 + 2j
        ),
        TypeError,
    ),
    (
        "setdiff1d complex fill for float32 without size",
        lambda: jnp.setdiff1d(jnp.array([1.0, 5]), jnp.array([1.0]), fill_value=1 + 2j),
        TypeError,
    ),
    (
        "setdiff1d complex64 fill for float32",
        lambda: jnp.setdiff1d(
            jnp.array([1.0, 5]), jnp.array([1.0]), size=3, fill_value=np.complex64(1 + 2j)
        ),
        [5.0, 1.0, 1.0],
    ),
    # polyint with m = 0 returns the promoted input of any rank.
    ("polyint m False of a scalar", lambda: jnp.polyint(0.0, m=False), 0.0),
    ("polyint m 0 of a matrix", lambda: jnp.polyint(jnp.ones((2, 2), int), m=0), [[1.0, 1.0]] * 2),
    ("polyint m 1 of a matrix", lambda: jnp.polyint(jnp.ones((2, 2)), m=1), TypeError),
    # scaled_dot without scales checks JAX's unit scale: contracting dims need 2 entries.
    (
        "scaled_dot contracting dim of 1 without scales",
        lambda: lax.scaled_dot(jnp.ones((2, 1)), jnp.ones((1, 3))),
        TypeError,
    ),
    (
        "scaled_dot empty contracting dim without scales",
        lambda: lax.scaled_dot(jnp.ones((4, 0, 1)), jnp.zeros((4, 1, 1))),
        TypeError,
    ),
    # top_k of 4-bit integers ranks in a byte type (XLA's CPU top_k fails on 4-bit layouts).
    (
        "top_k of uint4 under jit",
        lambda: stablax.jit(lambda x: lax.top_k(x, 2)[0])(
            jnp.array([[0, 3, 3], [7, 1, 5]], "uint4")
        ).astype("int32"),
        [[3, 3], [7, 5]],
    ),
    (
        "top_k of int4 indices",
        lambda: lax.top_k(jnp.array([[0, -3, 3], [-7, 1, 5]], "int4"), 2)[1],
        [[2, 0], [2, 1]],
    ),
    # lexsort of scalar keys is 0 whatever the axis, as JAX (None gave an internal message).
    (
        "lexsort of scalar keys axis None under jit",
        lambda: stablax.jit(lambda k: jnp.lexsort(k, axis=None))(jnp.zeros(3, "uint32")),
        0,
    ),
    ("lexsort of scalar keys axis 5", lambda: jnp.lexsort(jnp.array([0, 0, 0]), axis=5), 0),
    (
        "lexsort of 2-D keys axis None",
        lambda: jnp.lexsort(jnp.array([[0, 1, 0], [2, 1, 0]]), axis=None),
        TypeError,
    ),
    # fftn with more lengths in s than dimensions: NumPy's refusal (JAX's answer has the
    # wrong rank), with a message that says so.
    (
        "ifftn s longer than the rank",
        lambda: jnp.fft.ifftn(jnp.zeros((0, 1, 2)), s=(2, 2, 1, 2)),
        ValueError,
    ),
    # vecdot reads `axis` in each operand's own shape, then broadcasts the rest (a gufunc).
    (
        "vecdot axis 0 of (3,) and (3, 1)",
        lambda: jnp.vecdot(jnp.ones(3), jnp.arange(3.0).reshape(3, 1), axis=0),
        [3.0],
    ),
    (
        "vecdot axis 0 of (3, 2) and (3,)",
        lambda: jnp.vecdot(jnp.ones((3, 2)), jnp.arange(3.0), axis=0),
        [3.0, 3.0],
    ),
    (
        "linalg.vecdot of empty complex vectors",
        lambda: jnp.linalg.vecdot(
            jnp.zeros((0,), jnp.complex64), jnp.zeros((0, 1), jnp.complex64), axis=0
        ),
        [0j],
    ),
    # roots of a constant: an empty complex64 array, whatever the float type (float8 too).
    (
        "roots of a float8 constant",
        lambda: jnp.roots(jnp.array([3.5], "float8_e5m2"), strip_zeros=False).dtype,
        "complex64",
    ),
    (
        "can_cast casting None",
        lambda: jnp.can_cast(jnp.bfloat16, jnp.float32, casting=None),
        TypeError,
    ),
    # kaiser: a window of one point never reads beta; a complex beta is refused (JAX's i0).
    (
        "kaiser of one point with a huge beta under jit",
        lambda: stablax.jit(lambda: jnp.kaiser(True, 2**63))(),
        [1.0],
    ),
    ("kaiser with a complex beta", lambda: jnp.kaiser(2, 1 + 2j), ValueError),
    # Checks in JAX's order: ravel_multi_index reads the order last; conv_shape_tuple counts
    # explicit pads first; mean and var read the dtype before the axis.
    (
        "ravel_multi_index float indices before a bad order",
        lambda: jnp.ravel_multi_index(jnp.array([1.5, 2.0]), (3, 2), order="bogus"),
        ValueError,
    ),
    (
        "conv_shape_tuple pads before strides",
        lambda: lax.conv_shape_tuple((1, 5, 3), (4, 5), (2, 0), b"ab"),
        TypeError,
    ),
    ("mean dtype before axis", lambda: jnp.mean(jnp.zeros(()), axis=0, dtype=3), TypeError),
    ("var dtype before axis", lambda: jnp.var(jnp.zeros(()), axis=0, dtype=3), TypeError),
    # searchsorted's sorter must be 1-D with a's length (NumPy's errors; a 0-d one gave an
    # IndexError from inside).
    (
        "searchsorted 0-d sorter",
        lambda: jnp.searchsorted(jnp.arange(3.0), 1.0, sorter=np.uint16(1)),
        TypeError,
    ),
    (
        "searchsorted short sorter",
        lambda: jnp.searchsorted(jnp.arange(3.0), 1.0, sorter=jnp.arange(2)),
        ValueError,
    ),
    (
        "searchsorted with a sorter",
        lambda: jnp.searchsorted(
            jnp.arange(3.0), jnp.array([0.5, 2.5]), sorter=jnp.array([2, 1, 0])
        ),
        [0, 3],
    ),
    # Generic reductions check init values (shapes, dtypes) before the computation's outputs.
    (
        "reduce_window init dtype before a bool computation",
        lambda: lax.reduce_window(
            jnp.ones((3, 3), jnp.uint32), -2.5, lambda *a: False, (3, 3), (1, 1), "VALID"
        ),
        TypeError,
    ),
    (
        "reduce non-scalar init before the computation's outputs",
        lambda: lax.reduce(
            jnp.ones((1, 2), jnp.complex64), jnp.zeros((1, 2), jnp.uint32), lambda c, x: (c, x), ()
        ),
        ValueError,
    ),
    (
        "reduce_window dilation before a tuple-valued computation",
        lambda: lax.reduce_window(
            jnp.ones((1, 2)), 0.0, lambda c, x: (c, x), (1, 2), window_dilation=(-1, 2)
        ),
        TypeError,
    ),
    # eigh reading one triangle: the unread one has no slope (JAX gives it one).
    (
        "grad of unsymmetrized eigh is zero above the diagonal",
        lambda: stablax.grad(lambda v: lax.linalg.eigh(v, symmetrize_input=False)[1].sum())(
            jnp.array([[2.0, 5.0], [1.0, 3.0]])
        )[0, 1],
        0.0,
    ),
    # psum/pmean refuse axis_index_groups over positional axes with JAX's ValueError.
    (
        "pmean groups over a positional axis",
        lambda: lax.pmean(1.0, 0, axis_index_groups=-1),
        ValueError,
    ),
    # tril/triu and their indices take any Python int offset, as NumPy (JAX's int32 conversion
    # raises OverflowError, and its tril at k = 2**31 - 1 drops a row).
    ("tril_indices offset past int32", lambda: jnp.tril_indices(2, k=-(2**40))[0], []),
    ("tril_indices offset past int64", lambda: jnp.tril_indices(2, k=-(2**63)), OverflowError),
    ("tril offset 2**31 - 1", lambda: jnp.tril(jnp.ones((2, 2)), k=2**31 - 1), [[1.0, 1.0]] * 2),
    ("triu offset past int32", lambda: jnp.triu(jnp.ones((2, 2)), k=2**40), [[0.0, 0.0]] * 2),
    # rng_uniform has no derivative in its bounds (JAX's NotImplementedError, not a zero).
    (
        "grad of rng_uniform in its bound",
        lambda: stablax.grad(lambda v: lax.rng_uniform(v, 2.0, ()))(0.5),
        NotImplementedError,
    ),
    # median/quantiles of narrow floats: counts and positions in q's type (float32 for a Python
    # float), as JAX; in float8 the last position 19 rounded to 20 and picked wrong elements.
    (
        "nanmedian of float8_e5m2",
        lambda: float(jnp.nanmedian(jnp.asarray(_FLOAT8_SAMPLE))),
        -0.125,
    ),
    ("median of float8_e5m2", lambda: float(jnp.median(jnp.asarray(_FLOAT8_SAMPLE))), -0.125),
    ("poly of no roots is a scalar", lambda: jnp.poly(jnp.zeros((0,), jnp.complex64)).shape, ()),
    (
        "var with a mean of another shape before the axis",
        lambda: jnp.var(jnp.ones((2,)), axis=1, mean=jnp.ones((3,))),
        TypeError,
    ),
    (
        "pad value of shape (1,) before the config",
        lambda: lax.pad(jnp.ones(4), jnp.array([2.0]), "a"),
        ValueError,
    ),
    # An FFT length past int64 is refused before MLIR, even for an empty input.
    (
        "hfft of an empty input with n past int64",
        lambda: jnp.fft.hfft(jnp.zeros((2, 1, 2, 0, 2, 1), "int64"), n=2**63),
        ValueError,
    ),
    # A slice stride past 2**63 - 1 takes the first element, as x[lo:hi:stride] (it reached
    # MLIR's 64-bit attribute builder).
    (
        "slice_in_dim stride 2**63 under jit",
        lambda: stablax.jit(lambda x: lax.slice_in_dim(x, -2, 5, stride=2**63))(jnp.arange(5.0)),
        [3.0],
    ),
    # cholesky's symmetrization of a bool matrix divides by a weak 2: the default float.
    (
        "cholesky of bool under x64 is float64",
        under_x64(lambda: lax.linalg.cholesky(jnp.array([[True, False], [True, True]])).dtype),
        "float64",
    ),
]


@pytest.mark.parametrize("name, call, expected", _FINDINGS, ids=[c[0] for c in _FINDINGS])
def test_fuzz_2002_p_finding(name, call, expected):
    check_finding(call, expected)


def test_histogram_range_message_names_the_argument():
    with pytest.raises(TypeError, match="range must be None or a sequence"):
        jnp.histogram2d(jnp.array([3]), jnp.array([3]), bins=3, range=object())
