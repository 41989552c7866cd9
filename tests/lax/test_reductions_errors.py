"""Bad parameters to reductions, sort, windowed ops and convolutions fail early and clearly.

Each error names the lax function first and the caller's file, eagerly and under jit.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
from stablax import lax

X = np.arange(12, dtype=np.float32).reshape(3, 4)
IMAGE = np.ones((2, 3, 5, 5), np.float32)
KERNEL = np.ones((4, 3, 2, 2), np.float32)

# (function of one array, its argument, exception type, the lax function the message starts with)
CASES = {
    "argmax_float_index": (lambda x: lax.argmax(x, 0, np.float32), X, TypeError, "argmax"),
    "argmax_axis_out_of_range": (lambda x: lax.argmax(x, 2, np.int32), X, ValueError, "argmax"),
    "argmax_empty_axis": (
        lambda x: lax.argmax(x, 0, np.int32),
        np.zeros((0, 3), np.float32),
        ValueError,
        "argmax",
    ),
    "argmin_complex": (
        lambda x: lax.argmin(x, 0, np.int32),
        X.astype(np.complex64),
        TypeError,
        "argmin",
    ),
    "reduce_init_not_scalar": (
        lambda x: lax.reduce(x, np.zeros(2, np.float32), lax.add, (0,)),
        X,
        ValueError,
        "reduce",
    ),
    # JAX 0.10.2 refuses a Python float init for an integer operand unless it is the identity
    # (stablax truncated -2.5 into an int16 sum); a Python int of the operand's kind is adopted.
    "reduce_float_init_for_integers": (
        lambda x: lax.reduce(x.astype(np.int16), -2.5, lax.add, (0,)),
        X,
        TypeError,
        "reduce",
    ),
    "reduce_int_init_for_floats": (
        lambda x: lax.reduce(x, 3, lax.max, (0,)),
        X,
        TypeError,
        "reduce",
    ),
    "reduce_axis_out_of_range": (
        lambda x: lax.reduce(x, 0.0, lax.add, (2,)),
        X,
        ValueError,
        "reduce",
    ),
    "sort_unequal_shapes": (lambda x: lax.sort((x, x[0])), X, TypeError, "sort"),
    "sort_dimension_out_of_range": (lambda x: lax.sort(x, dimension=2), X, ValueError, "sort"),
    "sort_num_keys_zero": (lambda x: lax.sort(x, num_keys=0), X, ValueError, "sort"),
    "sort_num_keys_too_many": (lambda x: lax.sort((x, x), num_keys=3), X, ValueError, "sort"),
    "sort_no_operands": (lambda x: lax.sort(()), X, TypeError, "sort"),
    "top_k_k_too_large": (lambda x: lax.top_k(x, 5), X, ValueError, "top_k"),
    "top_k_negative_k": (lambda x: lax.top_k(x, -1), X, ValueError, "top_k"),
    "top_k_rank0": (lambda x: lax.top_k(x[0, 0], 1), X, ValueError, "top_k"),
    "top_k_complex": (lambda x: lax.top_k(x, 1), X.astype(np.complex64), ValueError, "top_k"),
    "top_k_axis_out_of_range": (lambda x: lax.top_k(x, 1, axis=2), X, ValueError, "top_k"),
    "cumsum_bool": (lambda x: lax.cumsum(x), X > 3, TypeError, "cumsum"),
    "cumsum_axis_out_of_range": (lambda x: lax.cumsum(x, 2), X, ValueError, "cumsum"),
    "cumlogsumexp_int": (
        lambda x: lax.cumlogsumexp(x),
        X.astype(np.int32),
        TypeError,
        "cumlogsumexp",
    ),
    "cummax_axis_rank0": (lambda x: lax.cummax(x[0, 0]), X, ValueError, "cummax"),
    "reduce_window_rank": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (2,), (1,)),
        X,
        TypeError,
        "reduce_window",
    ),
    "reduce_window_zero_window": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (0, 1)),
        X,
        TypeError,
        "reduce_window",
    ),
    "reduce_window_zero_stride": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 1), (0, 1)),
        X,
        TypeError,
        "reduce_window",
    ),
    "reduce_window_bad_padding": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 1), (1, 1), "FULL"),
        X,
        ValueError,
        "reduce_window",
    ),
    "reduce_window_padding_pairs": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 1), (1, 1), ((1, 1),)),
        X,
        TypeError,
        "reduce_window",
    ),
    "reduce_window_init_shape": (
        lambda x: lax.reduce_window(x, x[0], lax.add, (1, 1)),
        X,
        TypeError,
        "reduce_window",
    ),
    "reduce_window_and_float": (
        lambda x: lax.reduce_window(x, 0.0, lax.bitwise_and, (1, 1)),
        X,
        TypeError,
        "reduce_window",
    ),
    "conv_dtype_mismatch": (
        lambda x: lax.conv(x, KERNEL.astype(np.int32), (1, 1), "SAME"),
        IMAGE,
        TypeError,
        "conv_general_dilated",
    ),
    "conv_rank_mismatch": (
        lambda x: lax.conv(x, KERNEL[0], (1, 1), "SAME"),
        IMAGE,
        TypeError,
        "conv_general_dilated",
    ),
    "conv_feature_mismatch": (
        lambda x: lax.conv(x, KERNEL[:, :2], (1, 1), "SAME"),
        IMAGE,
        ValueError,
        "conv_general_dilated",
    ),
    "conv_feature_groups": (
        lambda x: lax.conv_general_dilated(x, KERNEL, (1, 1), "SAME", feature_group_count=2),
        IMAGE,
        ValueError,
        "conv_general_dilated",
    ),
    "conv_batch_groups": (
        lambda x: lax.conv_general_dilated(x, KERNEL, (1, 1), "SAME", batch_group_count=3),
        IMAGE,
        ValueError,
        "conv_general_dilated",
    ),
    "conv_both_groups": (
        lambda x: lax.conv_general_dilated(
            x, KERNEL, (1, 1), "SAME", feature_group_count=3, batch_group_count=2
        ),
        IMAGE,
        ValueError,
        "conv_general_dilated",
    ),
    "conv_strides_length": (
        lambda x: lax.conv(x, KERNEL, (1,), "VALID"),
        IMAGE,
        ValueError,
        "conv_general_dilated",
    ),
    "conv_padding_pairs": (  # JAX's class for the wrong number of pads
        lambda x: lax.conv_general_dilated(x, KERNEL, (1, 1), ((1, 1),)),
        IMAGE,
        TypeError,
        "conv_general_dilated",
    ),
    "conv_bad_layout": (
        lambda x: lax.conv_general_dilated(
            x, KERNEL, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHX", "NCHW")
        ),
        IMAGE,
        TypeError,
        "conv_general_dilated",
    ),
    "conv_string_padding_with_lhs_dilation": (
        lambda x: lax.conv_general_dilated(x, KERNEL, (1, 1), "SAME", lhs_dilation=(2, 2)),
        IMAGE,
        ValueError,
        "conv_general_dilated",
    ),
    "conv_bad_padding_string": (
        lambda x: lax.conv(x, KERNEL, (1, 1), "FULL"),
        IMAGE,
        ValueError,
        "conv_general_dilated",
    ),
    "conv_transpose_bad_padding": (
        lambda x: lax.conv_transpose(
            x, KERNEL, (2, 2), "SAME_LOWER", dimension_numbers=("NCHW", "IOHW", "NCHW")
        ),
        IMAGE,
        ValueError,
        "conv_transpose",
    ),
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", list(CASES))
def test_bad_parameters_raise_naming_the_op_and_caller(name, jit):
    fun, arg, error, opname = CASES[name]
    fun = jax.jit(fun) if jit else fun
    with pytest.raises(error) as info:
        fun(arg)
    message = str(info.value)
    assert message.startswith(f"lax.{opname}"), message
    assert __file__ in message, message


def test_padtype_to_pads_rejects_unknown_padding():
    with pytest.raises(ValueError, match=r"^lax\.padtype_to_pads: unrecognized padding"):
        lax.padtype_to_pads((5,), (2,), (1,), "FULL")


def test_conv_dimension_numbers_checks_layouts():
    with pytest.raises(TypeError, match=r"^lax\.conv_dimension_numbers: layout 'NCHWN'"):
        lax.conv_dimension_numbers((1,) * 5, (1,) * 5, ("NCHWN", "OIHWD", "NCHWD"))
    with pytest.raises(TypeError, match=r"^lax\.conv_dimension_numbers: lhs and rhs"):
        lax.conv_dimension_numbers((1,) * 4, (1,) * 3, None)


# --- decoders: reading an emitted op back gives the parameters it was bound with ---------------

_RNG = np.random.default_rng(1)
_F = _RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
_C = (_F[0] + 1j * _F[1]).astype(np.complex64)  # complex64[3,5,4]
_HWIO = _RNG.standard_normal((2, 2, 4, 3)).astype(np.float32)
_OIHW = _RNG.standard_normal((4, 3, 2, 2)).astype(np.float32)
_IOTA = np.broadcast_to(np.arange(4, dtype=np.int32), _F.shape).copy()
_SCALAR = {dt: np.zeros((), dt) for dt in (np.float32, np.int32, np.complex64)}
_NCHW = lax.ConvDimensionNumbers((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))
_NHWC = lax.conv_dimension_numbers(_F.shape, (2, 2, 4, 3), ("NHWC", "HWIO", "NHWC"))

DECODER_CASES = {
    "reduce_add": (
        "stablehlo.reduce",
        (_F, _SCALAR[np.float32]),
        {"computation": "add", "axes": (0, 2)},
    ),
    "reduce_max_complex": (
        "stablehlo.reduce",
        (_C, _SCALAR[np.complex64]),
        {"computation": "max", "axes": (1,)},
    ),
    "reduce_argmin": (
        "stablehlo.reduce",
        (_F, _IOTA, _SCALAR[np.float32], _SCALAR[np.int32]),
        {"computation": "argmin", "axes": (3,)},
    ),
    "reduce_window_logaddexp": (
        "stablehlo.reduce_window",
        (_F, _SCALAR[np.float32]),
        {
            "computation": "logaddexp",
            "window_dimensions": (1, 2, 3, 1),
            "window_strides": (1, 1, 2, 1),
            "padding": ((0, 0), (1, 0), (2, 1), (0, -1)),
            "base_dilation": (1, 2, 1, 1),
            "window_dilation": (1, 1, 1, 2),
        },
    ),
    "reduce_window_min_complex": (
        "stablehlo.reduce_window",
        (_C, _SCALAR[np.complex64]),
        {
            "computation": "min",
            "window_dimensions": (2, 2, 1),
            "window_strides": (1, 1, 1),
            "padding": ((0, 0), (0, 0), (1, 1)),
            "base_dilation": (1, 1, 1),
            "window_dilation": (1, 1, 1),
        },
    ),
    "sort_two_keys": (
        "stablehlo.sort",
        (_F, _IOTA, _F),
        {"dimension": 2, "is_stable": False, "num_keys": 2},
    ),
    "sort_complex": (
        "stablehlo.sort",
        (_C, _C),
        {"dimension": 0, "is_stable": True, "num_keys": 1},
    ),
    "top_k": ("chlo.top_k", (_F,), {"k": 3}),
    "convolution": (
        "stablehlo.convolution",
        (_F, _HWIO),
        {
            "window_strides": (2, 1),
            "padding": ((1, 0), (0, 1)),
            "lhs_dilation": (1, 2),
            "rhs_dilation": (2, 1),
            "dimension_numbers": _NHWC,
            "feature_group_count": 1,
            "batch_group_count": 1,
            "precision": (lax.Precision.HIGHEST, lax.Precision.DEFAULT),
            "preferred_element_type": None,
        },
    ),
    "convolution_batch_groups": (
        "stablehlo.convolution",
        (_F, _OIHW),
        {
            "window_strides": (1, 1),
            "padding": ((0, 0), (0, 0)),
            "lhs_dilation": (1, 1),
            "rhs_dilation": (1, 1),
            "dimension_numbers": _NCHW,
            "feature_group_count": 1,
            "batch_group_count": 2,
            "precision": None,
            "preferred_element_type": np.dtype("float64"),
        },
    ),
}


@pytest.mark.parametrize("name", list(DECODER_CASES))
def test_decoders_invert_lowerings(name, x64):
    from stablax._src import core, dispatch
    from stablax._src.interpreters import interpret

    op_name, args, params = DECODER_CASES[name]
    avals = [jax.numpy.asarray(a).aval for a in args]

    def one_op(*xs):
        out = dispatch.bind(op_name, *xs, **params)
        return list(out) if isinstance(out, tuple) else [out]

    traced = core.trace_to_func(one_op, avals)
    ops = interpret.body(traced)[1]
    emitted = [op for op in ops if op.name == op_name]
    assert len(emitted) == 1
    assert interpret.decode(emitted[0]) == params
    direct = dispatch.bind(op_name, *[jax.numpy.asarray(a) for a in args], **params)
    rebound = interpret.call_traced(traced, [jax.numpy.asarray(a) for a in args])
    direct = list(direct) if isinstance(direct, tuple) else [direct]
    for d, r in zip(direct, rebound, strict=True):
        np.testing.assert_array_equal(np.asarray(d), np.asarray(r))


def test_reduce_takes_a_python_init_of_the_operands_kind_or_the_identity():
    ints = X.astype(np.int16)
    np.testing.assert_array_equal(lax.reduce(ints, 3, lax.max, (0,)), [8, 9, 10, 11])
    np.testing.assert_array_equal(lax.reduce(ints, 0.0, lax.add, (0,)), [12, 15, 18, 21])  # JAX's
    np.testing.assert_array_equal(lax.reduce(X, -2.5, lax.add, (0,)), [9.5, 12.5, 15.5, 18.5])
