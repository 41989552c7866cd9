"""The first stablax.numpy functions against NumPy, eagerly and under jit, plus the quickstart."""

from __future__ import annotations

import operator
import re

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax._src.dtype_promotion import parse_dtype
from stablax._src.lax._argcheck import RANK, axes_arg, axis_arg, int_sequence

_TO_32 = {
    np.dtype(np.float64): np.float32,
    np.dtype(np.int64): np.int32,
    np.dtype(np.uint64): np.uint32,
    np.dtype(np.complex128): np.complex64,
}


def _canonical(dtype):
    """NumPy's result dtype as JAX reports it with x64 off."""
    return np.dtype(_TO_32.get(np.dtype(dtype), dtype))


def _f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _i32(*shape, seed=0):
    return np.random.default_rng(seed).integers(-5, 6, shape).astype(np.int32)


# (id, function of a numpy-like module and arrays, NumPy argument values)
CASES = [
    ("reshape", lambda m, x: m.reshape(x, (3, 4)), [_f32(2, 6)]),
    ("reshape-infer", lambda m, x: m.reshape(x, (-1, 2)), [_f32(2, 6)]),
    ("reshape-method", lambda m, x: x.reshape(4, 3), [_f32(12)]),
    ("tanh", lambda m, x: m.tanh(x), [_f32(3, 4)]),
    ("tanh-int", lambda m, x: m.tanh(x), [_i32(5)]),
    ("sum", lambda m, x: m.sum(x), [_f32(3, 4)]),
    ("sum-axis0", lambda m, x: m.sum(x, axis=0), [_f32(3, 4)]),
    ("sum-axis-neg", lambda m, x: m.sum(x, axis=-1, keepdims=True), [_f32(2, 3, 4)]),
    ("sum-axes", lambda m, x: m.sum(x, axis=(0, 2)), [_f32(2, 3, 4)]),
    ("sum-int", lambda m, x: m.sum(x, axis=1), [_i32(3, 4)]),
    ("sum-method", lambda m, x: x.sum(axis=1, keepdims=True), [_f32(3, 4)]),
    ("mean", lambda m, x: m.mean(x), [_f32(3, 4)]),
    ("mean-axis", lambda m, x: m.mean(x, axis=1, keepdims=True), [_f32(3, 4)]),
    ("mean-int", lambda m, x: m.mean(x, axis=0), [_i32(3, 4)]),
    ("var", lambda m, x: m.var(x), [_f32(3, 4)]),
    ("var-axis", lambda m, x: m.var(x, axis=0), [_f32(3, 4)]),
    ("var-ddof", lambda m, x: m.var(x, axis=1, ddof=1, keepdims=True), [_f32(3, 4)]),
    ("std", lambda m, x: m.std(x), [_f32(3, 4)]),
    ("std-axis", lambda m, x: m.std(x, axis=-1), [_f32(2, 3, 4)]),
    ("matmul-2d", lambda m, a, b: m.matmul(a, b), [_f32(3, 4), _f32(4, 5, seed=1)]),
    ("matmul-batch", lambda m, a, b: a @ b, [_f32(2, 3, 4), _f32(2, 4, 5, seed=1)]),
    ("matmul-bcast", lambda m, a, b: m.matmul(a, b), [_f32(2, 1, 3, 4), _f32(5, 4, 2, seed=1)]),
    ("matmul-bcast2", lambda m, a, b: m.matmul(a, b), [_f32(3, 4), _f32(6, 4, 2, seed=1)]),
    ("matmul-1d-1d", lambda m, a, b: m.matmul(a, b), [_f32(4), _f32(4, seed=1)]),
    ("matmul-1d-2d", lambda m, a, b: m.matmul(a, b), [_f32(4), _f32(4, 3, seed=1)]),
    ("matmul-2d-1d", lambda m, a, b: m.matmul(a, b), [_f32(3, 4), _f32(4, seed=1)]),
    ("matmul-3d-1d", lambda m, a, b: m.matmul(a, b), [_f32(2, 3, 4), _f32(4, seed=1)]),
    ("matmul-1d-3d", lambda m, a, b: m.matmul(a, b), [_f32(3), _f32(2, 3, 4, seed=1)]),
    ("matmul-int", lambda m, a, b: m.matmul(a, b), [_i32(3, 4), _i32(4, 2, seed=1)]),
    ("matmul-3d-2d", lambda m, a, b: a @ b, [_f32(2, 3, 4), _f32(4, 5, seed=1)]),
    ("matmul-2d-3d", lambda m, a, b: a @ b, [_f32(3, 4), _f32(2, 4, 5, seed=1)]),
    ("matmul-ones", lambda m, a, b: a @ b, [_f32(1, 2, 3, 4), _f32(2, 1, 4, 5, seed=1)]),
    ("matmul-4d-1d", lambda m, a, b: a @ b, [_f32(2, 1, 3, 4), _f32(4, seed=1)]),
    ("matmul-1d-4d", lambda m, a, b: a @ b, [_f32(3), _f32(2, 1, 3, 4, seed=1)]),
    ("where", lambda m, c, a, b: m.where(c, a, b), [_f32(3, 4) > 0, _f32(3, 4), _f32(4, seed=2)]),
    ("where-scalar", lambda m, c, a: m.where(c > 0, a, 0.0), [_f32(3, 4), _f32(3, 4)]),
    ("where-int-cond", lambda m, c, a: m.where(c, a, -a), [_i32(5), _f32(5)]),
    ("clip", lambda m, x: m.clip(x, -0.5, 0.5), [_f32(3, 4)]),
    ("clip-min", lambda m, x: m.clip(x, -0.5, None), [_f32(3, 4)]),
    ("clip-max-method", lambda m, x: x.clip(max=0.25), [_f32(3, 4)]),
    ("clip-int", lambda m, x: m.clip(x, -2, 3), [_i32(10)]),
    ("clip-array", lambda m, x, lo: m.clip(x, lo, 1.0), [_f32(3, 4), _f32(4, seed=3)]),
    ("stack", lambda m, a, b: m.stack([a, b]), [_f32(2, 3), _f32(2, 3, seed=1)]),
    ("stack-axis", lambda m, a, b: m.stack([a, b, a], axis=-1), [_f32(2, 3), _f32(2, 3, seed=1)]),
    ("concat", lambda m, a, b: m.concatenate([a, b]), [_f32(2, 3), _f32(4, 3, seed=1)]),
    ("concat-axis", lambda m, a, b: m.concatenate([a, b], axis=1), [_f32(2, 3), _f32(2, 1)]),
    ("concat-mixed", lambda m, a, b: m.concatenate([a, b]), [_i32(3), _f32(2)]),
    ("transpose", lambda m, x: m.transpose(x), [_f32(2, 3, 4)]),
    ("transpose-axes", lambda m, x: m.transpose(x, (1, 0, 2)), [_f32(2, 3, 4)]),
    ("transpose-method", lambda m, x: x.transpose(2, 0, 1), [_f32(2, 3, 4)]),
    ("T", lambda m, x: x.T, [_f32(2, 3)]),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, -1), [_f32(2, 3, 4)]),
    ("moveaxis", lambda m, x: m.moveaxis(x, 0, -1), [_f32(2, 3, 4)]),
    ("moveaxis-multi", lambda m, x: m.moveaxis(x, (0, 1), (2, 0)), [_f32(2, 3, 4)]),
    ("expand_dims", lambda m, x: m.expand_dims(x, 1), [_f32(2, 3)]),
    ("expand_dims-multi", lambda m, x: m.expand_dims(x, (0, -1)), [_f32(2, 3)]),
    ("squeeze", lambda m, x: m.squeeze(x), [_f32(1, 3, 1)]),
    ("squeeze-axis", lambda m, x: m.squeeze(x, axis=2), [_f32(1, 3, 1)]),
]


PARAMS = [pytest.param(fn, args, id=name) for name, fn, args in CASES]


def _check(got, want, rtol=2e-5, atol=2e-6):
    assert isinstance(got, stablax.Array), type(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == _canonical(want.dtype), (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("fn, args", PARAMS)
def test_against_numpy_eager(fn, args):
    _check(fn(jnp, *[jnp.asarray(a) for a in args]), np.asarray(fn(np, *args)))


@pytest.mark.parametrize("fn, args", PARAMS)
def test_against_numpy_under_jit(fn, args):
    jitted = stablax.jit(lambda *xs: fn(jnp, *xs))
    _check(jitted(*[jnp.asarray(a) for a in args]), np.asarray(fn(np, *args)))


# --- creation ----------------------------------------------------------------------------------

CREATION = [
    ("arange-int", lambda m: m.arange(5), None),
    ("arange-float", lambda m: m.arange(5.0), None),
    ("arange-start-stop", lambda m: m.arange(2, 9), None),
    ("arange-step", lambda m: m.arange(10, 0, -3), None),
    ("arange-float-step", lambda m: m.arange(0, 1, 0.125), None),
    ("arange-empty", lambda m: m.arange(3, 1), None),
    ("arange-dtype", lambda m: m.arange(4, dtype=m.float32), None),
    ("arange-np-int8", lambda m: m.arange(np.int8(4)), np.int8),
    ("linspace", lambda m: m.linspace(0, 1, 5), np.float32),
    ("linspace-noend", lambda m: m.linspace(0, 10, 4, endpoint=False), np.float32),
    ("linspace-neg", lambda m: m.linspace(2.0, -3.0, 7), np.float32),
    ("linspace-one", lambda m: m.linspace(3.0, 4.0, 1), np.float32),
    ("eye", lambda m: m.eye(3), None),
    ("eye-rect-k", lambda m: m.eye(3, 5, k=1), None),
    ("eye-neg-k", lambda m: m.eye(4, k=-2, dtype=m.int32), None),
    ("zeros", lambda m: m.zeros((2, 3)), None),
    ("zeros-int", lambda m: m.zeros(4, m.int32), None),
    ("ones", lambda m: m.ones((3,)), None),
    ("ones-bool", lambda m: m.ones((2, 2), dtype=bool), None),
    ("full", lambda m: m.full((2, 2), 7), None),
    ("full-float", lambda m: m.full(3, 2.5), None),
    ("full-dtype", lambda m: m.full((2,), 3, dtype=m.float32), None),
    ("full-array-fill", lambda m: m.full((2, 3), m.arange(3)), None),
]


@pytest.mark.parametrize("fn, dtype", [c[1:] for c in CREATION], ids=[c[0] for c in CREATION])
def test_creation_against_numpy(fn, dtype):
    want = np.asarray(fn(np))
    if dtype is not None:
        want = want.astype(dtype)
    _check(fn(jnp), want)
    _check(stablax.jit(lambda: fn(jnp))(), want)


def test_creation_weak_types_match_jax():
    assert jnp.full((2,), 3).weak_type is True
    assert jnp.full((2,), 3.0).weak_type is True
    assert jnp.full((2,), np.float32(3)).weak_type is False
    assert jnp.full((2,), 3, dtype=jnp.int32).weak_type is False
    assert jnp.arange(3).weak_type is False
    assert jnp.zeros(3).weak_type is False
    assert jnp.eye(2).weak_type is False


# (input, expected dtype, expected weak type) read from JAX 0.10.2.
ASARRAY = [
    (1, np.int32, True),
    (1.0, np.float32, True),
    (1j, np.complex64, True),
    (True, np.bool_, False),
    ([1, 2], np.int32, False),
    ([1, 2.0], np.float32, False),
    ([1, 2j], np.complex64, False),
    ([True, 1], np.int32, False),
    ([True, False], np.bool_, False),
    ([[1], [2]], np.int32, False),
    ([[1.5, 2], [3, 4]], np.float32, False),
    ([1, np.float16(2)], np.float16, False),
    ([np.uint8(1), 2, 3.5], np.float32, False),
    ([np.uint8(1), 2], np.uint8, False),
    ([np.float32(1), np.float64(2)], np.float32, False),
    ([np.int8(1), np.int16(2)], np.int16, False),
    (np.float64(2.0), np.float32, False),
    (np.arange(3), np.int32, False),
    (np.arange(3, dtype=np.uint16), np.uint16, False),
    ((1, 2, 3), np.int32, False),
]


@pytest.mark.parametrize("value, dtype, weak", ASARRAY, ids=[repr(a[0]) for a in ASARRAY])
def test_asarray_dtype_rules_match_jax(value, dtype, weak):
    out = jnp.asarray(value)
    assert out.dtype == np.dtype(dtype)
    assert out.weak_type is weak
    np.testing.assert_array_equal(np.asarray(out), np.asarray(value).astype(dtype))
    assert jnp.array(value).dtype == np.dtype(dtype)


def test_asarray_with_dtype_and_of_arrays():
    x = jnp.asarray([1, 2, 3], dtype=jnp.float32)
    assert x.dtype == np.float32 and not x.weak_type
    assert jnp.asarray(x) is x
    y = jnp.asarray(jnp.asarray(2.0), dtype=jnp.float32)
    assert y.dtype == np.float32 and y.weak_type is False
    mixed = jnp.asarray([x[0], 5.0, x[2]])
    assert mixed.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(mixed), [1.0, 5.0, 3.0])
    assert jnp.array([1.0, 2.0], ndmin=3).shape == (1, 1, 2)


def test_functions_accept_python_scalars_and_reject_lists_like_jax():
    assert jnp.tanh(1).dtype == np.float32
    assert jnp.tanh(1).weak_type is True
    np.testing.assert_allclose(float(jnp.tanh(0.5)), np.tanh(0.5), rtol=1e-6)
    assert jnp.sum(3.0).shape == ()
    np.testing.assert_array_equal(np.asarray(jnp.stack([1, 2])), [1, 2])
    with pytest.raises(TypeError):
        jnp.tanh([0.0, 1.0])  # JAX: "tanh requires ndarray or scalar arguments"


def test_weak_type_does_not_leak_between_cached_programs():
    # A weak and a strong float32 input lower to the same StableHLO; results keep their own type.
    for n in (7, 8):
        strong = jnp.asarray(np.float32(2.5))
        weak = jnp.asarray(2.5)
        first, second = (weak, strong) if n == 7 else (strong, weak)
        assert jnp.broadcast_to(first, (n,)).weak_type is first.weak_type
        assert jnp.broadcast_to(second, (n,)).weak_type is second.weak_type
        assert (first * jnp.ones(n)).weak_type is False
        assert jnp.full((n, 2), first).weak_type is first.weak_type
        assert jnp.full((n, 2), second).weak_type is second.weak_type


# --- errors ------------------------------------------------------------------------------------


def test_shape_errors_name_the_function():
    with pytest.raises(TypeError, match="reshape"):
        jnp.reshape(jnp.ones(6), (4,))
    with pytest.raises((TypeError, ValueError), match="matmul"):
        jnp.matmul(jnp.ones((2, 3)), jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="squeeze"):
        jnp.squeeze(jnp.ones((2, 3)), axis=0)
    with pytest.raises(ValueError, match="axis"):
        jnp.sum(jnp.ones((2, 3)), axis=2)
    with pytest.raises(ValueError):
        jnp.stack([jnp.ones(2), jnp.ones(3)])


def test_max_of_empty_array_raises_value_error():
    with pytest.raises(ValueError, match="zero-size"):
        jnp.max(jnp.ones((0,)))


def test_expand_dims_rejects_repeated_axes():
    with pytest.raises(ValueError):
        jnp.expand_dims(jnp.ones((2, 3)), (0, 0))


# --- the quickstart from the issue -------------------------------------------------------------


def test_quickstart_snippet(capsys):
    import stablax as jax
    import stablax.numpy as jnp

    x = jnp.arange(1024.0).reshape(32, 32)
    print(x @ x.T + 1)

    @jax.jit
    def f(a, b):
        return jnp.tanh(a @ b).sum(axis=0)

    f(x, x).block_until_ready()
    print(jax.make_jaxpr(f)(x, x))
    print(jax.devices(), jax.default_backend())

    printed = capsys.readouterr().out
    x_np = np.arange(1024.0, dtype=np.float32).reshape(32, 32)
    assert str(x_np @ x_np.T + 1) in printed
    assert "stablehlo.dot_general" in printed and "stablehlo.tanh" in printed
    assert re.search(r"func\.func (public )?@main\(%arg0: tensor<32x32xf32>", printed)
    assert "CpuDevice(id=0)" in printed or jax.default_backend() != "cpu"
    assert printed.rstrip().endswith(jax.default_backend())
    np.testing.assert_allclose(np.asarray(f(x, x)), np.tanh(x_np @ x_np).sum(0), rtol=1e-5)


@pytest.mark.parametrize(
    "a_shape, b_shape, dims",
    [
        # a batch axis only one operand has is a free axis of that operand: no broadcast weight
        ((8, 6, 4), (4, 5), "contracting_dims = [2] x [0]"),
        ((3, 4), (2, 4, 5), "contracting_dims = [1] x [1]"),
        ((2, 1, 3, 4), (5, 4, 2), "contracting_dims = [2] x [1]"),
        # shared batch axes stay batch axes
        ((2, 3, 4), (2, 4, 5), "batching_dims = [0] x [0], contracting_dims = [2] x [1]"),
    ],
)
def test_matmul_dimension_numbers(a_shape, b_shape, dims):
    text = str(stablax.make_jaxpr(jnp.matmul)(jnp.ones(a_shape), jnp.ones(b_shape)))
    assert dims in text
    assert "broadcast_in_dim" not in text


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_floor_divide_and_mod_on_infinities_and_signed_zeros(dtype):
    values = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, 7.0], dtype)
    a, b = np.meshgrid(values, values)
    with np.errstate(all="ignore"):
        # NumPy's values, except the Array API's quotient when exactly one operand is infinite.
        one_infinite = np.isinf(a) != np.isinf(b)
        expected = (np.where(one_infinite, a / b, np.floor_divide(a, b)), np.mod(a, b))
    for want, got in zip(expected, (jnp.floor_divide(a, b), jnp.mod(a, b)), strict=True):
        got = np.asarray(got)
        same = (np.isnan(want) & np.isnan(got)) | (
            (want == got) & (np.signbit(want) == np.signbit(got))
        )
        assert same.all(), list(zip(a[~same], b[~same], want[~same], got[~same], strict=True))


# --- the shared argument checks every layer reads axes and dtypes with ------------------------


def test_axis_arg_keeps_each_callers_wording():
    assert axis_arg(-1, 3, "jnp.f") == 2
    with pytest.raises(
        ValueError, match=r"^jnp\.f: axis 3 is out of bounds for array of dimension 3"
    ):
        axis_arg(3, 3, "jnp.f")
    with pytest.raises(ValueError, match=r"^lax\.sort: dimension -4 is .* an array of rank 3 \(at"):
        axis_arg(-4, 3, "lax.sort", what="dimension", array=RANK)
    with pytest.raises(ValueError, match=r"rank 2 \(lax axes are not negative\)"):
        axis_arg(-1, 2, "lax.reduce_sum", array=RANK, negative=False)
    with pytest.raises(ValueError, match=r"^random\.choice: axis 2 is .* dimension 2$"):
        axis_arg(2, 2, "random.choice", located=False)
    with pytest.raises(TypeError, match=r"^jnp\.f: axis must be an integer, got 1\.5"):
        axis_arg(1.5, 3, "jnp.f")
    with pytest.raises(TypeError, match=r"^'float' object cannot be interpreted as an integer$"):
        axis_arg(1.5, 3, "jnp.f", convert=operator.index)


def test_axes_arg_reads_the_sequence_then_each_axis():
    assert axes_arg(1, 3, "jnp.f") == (1,)
    assert axes_arg([2, -3], 3, "jnp.f") == (2, 0)
    assert axes_arg([0, 0], 3, "jnp.f") == (0, 0)  # no `repeated` message: repeats pass
    with pytest.raises(ValueError, match=r"^jnp\.f: duplicate value in 'axis': \[0, -3\]"):
        axes_arg([0, -3], 3, "jnp.f", repeated="{name}: duplicate value in 'axis': {given}")
    with pytest.raises(ValueError, match=r"^lax\.g: repeated axis in dimensions \(1, 1\)"):
        axes_arg([1, 1], 3, "lax.g", repeated="{name}: repeated axis in dimensions {axes}")
    with pytest.raises(TypeError, match=r"^lax\.g: axes must be a sequence of integers, got 1"):
        axes_arg(1, 3, "lax.g", what="axes", convert=int_sequence)


def test_parse_dtype_is_the_one_reading_of_a_dtype():
    assert parse_dtype("int8", "f") == np.int8
    assert parse_dtype(np.dtype(object), "f", unsupported=None) == np.dtype(object)
    with pytest.raises(TypeError, match=r"^f: cannot interpret 'bogus' as a dtype$"):
        parse_dtype("bogus", "f")
    with pytest.raises(TypeError, match=r"^f: dtype object is not supported; stablax arrays"):
        parse_dtype(object, "f")
    with pytest.raises(TypeError, match=r"^result_type: cannot determine the dtype of 'x'"):
        jnp.result_type("x")
