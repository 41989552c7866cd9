"""The user-facing behaviour of `stablax.Array`: attributes, conversions, repr, operators, indexing.

Expected strings and promotion results were read from JAX 0.10.2; values are checked against
NumPy.
"""

from __future__ import annotations

import operator
import pickle

import ml_dtypes
import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax._src import array as array_module

# --- attributes --------------------------------------------------------------------------------


def test_shape_dtype_ndim_size_and_transpose():
    x = jnp.arange(6.0).reshape(2, 3)
    assert isinstance(x, stablax.Array)
    assert x.shape == (2, 3)
    assert x.dtype == np.float32
    assert x.ndim == 2
    assert x.size == 6
    assert x.nbytes == 24
    assert x.itemsize == 4
    assert x.T.shape == (3, 2)
    np.testing.assert_array_equal(np.asarray(x.T), np.arange(6.0).reshape(2, 3).T)
    scalar = jnp.asarray(1.0)
    assert scalar.shape == () and scalar.ndim == 0 and scalar.size == 1


def test_array_protocol_gives_numpy_values():
    x = jnp.arange(5, dtype=jnp.int32)
    host = np.asarray(x)
    assert isinstance(host, np.ndarray)
    assert host.dtype == np.int32
    np.testing.assert_array_equal(host, np.arange(5))
    as_float = np.asarray(x, dtype=np.float64)
    assert as_float.dtype == np.float64
    np.testing.assert_array_equal(as_float, np.arange(5.0))
    assert not host.flags.writeable  # a view of the immutable buffer, as in JAX
    copied = np.array(x, copy=True)
    copied[0] = 42  # a requested copy is writable and detached
    assert int(x[0]) == 0


# --- repr and str ------------------------------------------------------------------------------

REPRS = [
    (lambda: jnp.array([1.0, 2.0]), "Array([1., 2.], dtype=float32)"),
    (lambda: jnp.asarray(1.0), "Array(1., dtype=float32, weak_type=True)"),
    (lambda: jnp.asarray(2), "Array(2, dtype=int32, weak_type=True)"),
    (lambda: jnp.asarray(True), "Array(True, dtype=bool)"),
    (lambda: jnp.asarray([True, False]), "Array([ True, False], dtype=bool)"),
    (lambda: jnp.arange(3) + 1.5, "Array([1.5, 2.5, 3.5], dtype=float32, weak_type=True)"),
    (lambda: jnp.asarray([1 + 2j, 3j]), "Array([1.+2.j, 0.+3.j], dtype=complex64)"),
    (lambda: jnp.ones(2, jnp.bfloat16), "Array([1, 1], dtype=bfloat16)"),
    (lambda: jnp.zeros((0, 3)), "Array([], shape=(0, 3), dtype=float32)"),
    (lambda: jnp.asarray([np.inf, -np.inf, np.nan]), "Array([ inf, -inf,  nan], dtype=float32)"),
    (
        lambda: jnp.arange(6.0).reshape(2, 3),
        "Array([[0., 1., 2.],\n       [3., 4., 5.]], dtype=float32)",
    ),
    (
        lambda: jnp.arange(12).reshape(3, 4) * 100,
        "Array([[   0,  100,  200,  300],\n"
        "       [ 400,  500,  600,  700],\n"
        "       [ 800,  900, 1000, 1100]], dtype=int32)",
    ),
    (
        lambda: jnp.full((2, 2), 3.0),
        "Array([[3., 3.],\n       [3., 3.]], dtype=float32, weak_type=True)",
    ),
    (
        lambda: jnp.arange(8).reshape(2, 2, 2),
        "Array([[[0, 1],\n        [2, 3]],\n\n       [[4, 5],\n        [6, 7]]], dtype=int32)",
    ),
    (
        lambda: jnp.arange(30.0),
        "Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n"
        "       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n"
        "       26., 27., 28., 29.], dtype=float32)",
    ),
    # JAX widens the gap before the dtype when the last line would overflow.
    (
        lambda: jnp.arange(12.0),
        "Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],      dtype=float32)",
    ),
    (
        lambda: jnp.arange(2000.0),
        "Array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n"
        "       1.999e+03], dtype=float32)",
    ),
]


@pytest.mark.parametrize("make, expected", REPRS, ids=[e.split("\n")[0][:40] for _, e in REPRS])
def test_repr_matches_jax(make, expected):
    assert repr(make()) == expected


def test_str_is_numpys():
    x = jnp.arange(6.0).reshape(2, 3)
    assert str(x) == str(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert str(jnp.asarray(1.5)) == "1.5"
    assert str(jnp.asarray(True)) == "True"
    assert str(jnp.arange(3)) == "[0 1 2]"


def test_format():
    assert f"{jnp.asarray(3.14159):.2f}" == "3.14"
    assert f"{jnp.asarray(7):5d}" == "    7"
    assert format(jnp.arange(3.0)) == "[0. 1. 2.]"
    with pytest.raises(TypeError):
        f"{jnp.arange(3.0):.2f}"


# --- Python protocol conversions ---------------------------------------------------------------


def test_len_and_iteration():
    x = jnp.arange(6).reshape(3, 2)
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3
    assert all(isinstance(r, stablax.Array) and r.shape == (2,) for r in rows)
    np.testing.assert_array_equal(
        np.stack([np.asarray(r) for r in rows]), np.arange(6).reshape(3, 2)
    )
    assert [int(v) for v in jnp.arange(4)] == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="unsized"):
        len(jnp.asarray(1.0))
    with pytest.raises(TypeError, match="0-d"):
        iter(jnp.asarray(1.0))


def test_scalar_conversions():
    assert bool(jnp.asarray(1)) is True
    assert bool(jnp.asarray(0.0)) is False
    assert float(jnp.asarray(2.5)) == 2.5 and isinstance(float(jnp.asarray(2.5)), float)
    assert int(jnp.asarray(7)) == 7 and isinstance(int(jnp.asarray(7)), int)
    assert int(jnp.asarray(7.9)) == 7
    assert complex(jnp.asarray(1.0)) == 1 + 0j
    assert complex(jnp.asarray(1 + 2j)) == 1 + 2j
    assert operator.index(jnp.asarray(3)) == 3
    assert [10, 20, 30][jnp.asarray(1)] == 20
    assert jnp.asarray(2.5).item() == 2.5 and isinstance(jnp.asarray(2.5).item(), float)
    assert isinstance(jnp.asarray(3).item(), int)
    assert jnp.arange(6).reshape(2, 3).item(4) == 4
    assert jnp.arange(6).reshape(2, 3).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert jnp.asarray([1.5, 2.0]).tolist() == [1.5, 2.0]


def test_scalar_conversion_errors():
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jnp.arange(3))
    with pytest.raises(TypeError):
        int(jnp.arange(3))
    with pytest.raises(TypeError):
        float(jnp.ones(2))
    with pytest.raises(TypeError):
        operator.index(jnp.asarray(2.0))
    with pytest.raises(TypeError):
        operator.index(jnp.arange(2))


# --- operators ---------------------------------------------------------------------------------

ARITHMETIC = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.truediv,
    operator.floordiv,
    operator.mod,
    operator.pow,
]
COMPARISON = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
BITWISE = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


def _np_expected(fn, a, b, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(fn(np.asarray(a), np.asarray(b))).astype(dtype)


@pytest.mark.parametrize("fn", ARITHMETIC, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_arithmetic_operators_against_numpy(fn, dtype):
    a_np = np.array([[1, -2, 3], [4, 5, -6]], dtype)
    b_np = np.array([[2, 3, -1], [2, 7, 4]], dtype)
    if fn is operator.pow:
        a_np, b_np = np.abs(a_np), np.array([[2, 3, 1], [0, 2, 3]], dtype)
    a, b = jnp.asarray(a_np), jnp.asarray(b_np)
    out_dtype = np.float32 if fn is operator.truediv else np.dtype(dtype)
    for got, want in [
        (fn(a, b), _np_expected(fn, a_np, b_np, out_dtype)),  # array op array
        (fn(a, 3), _np_expected(fn, a_np, np.asarray(3, dtype), out_dtype)),  # array op scalar
        (
            fn(2, b) if fn is not operator.pow else fn(2, b),  # reflected: scalar op array
            _np_expected(fn, np.asarray(2, dtype), b_np, out_dtype),
        ),
        (fn(a, b_np), _np_expected(fn, a_np, b_np, out_dtype)),  # array op ndarray
        (fn(a_np, b), _np_expected(fn, a_np, b_np, out_dtype)),  # ndarray op array (reflected)
    ]:
        assert isinstance(got, stablax.Array)
        assert got.dtype == out_dtype, (fn.__name__, got.dtype)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


@pytest.mark.parametrize("fn", COMPARISON, ids=lambda f: f.__name__)
def test_comparison_operators_against_numpy(fn):
    a_np = np.array([1.0, 2.0, 3.0, np.nan], np.float32)
    b_np = np.array([3.0, 2.0, 1.0, np.nan], np.float32)
    a, b = jnp.asarray(a_np), jnp.asarray(b_np)
    for got, want in [
        (fn(a, b), fn(a_np, b_np)),
        (fn(a, 2.0), fn(a_np, np.float32(2.0))),
        (fn(2.0, a), fn(np.float32(2.0), a_np)),
        (fn(a, b_np), fn(a_np, b_np)),
    ]:
        assert isinstance(got, stablax.Array) and got.dtype == np.bool_
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("fn", BITWISE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["int32", "uint8"])
def test_bitwise_operators_against_numpy(fn, dtype):
    a_np = np.array([0, 1, 5, 12, 100], dtype)
    b_np = np.array([3, 1, 2, 0, 3], dtype)
    if dtype == "int32" and fn is not operator.lshift:
        a_np = a_np - 50  # negative values exercise the arithmetic right shift
    a, b = jnp.asarray(a_np), jnp.asarray(b_np)
    for got, want in [
        (fn(a, b), fn(a_np, b_np)),
        (fn(a, 2), fn(a_np, np.asarray(2, dtype))),
        (fn(3, b), fn(np.asarray(3, dtype), b_np)),
    ]:
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(np.asarray(got), want.astype(dtype))


def test_bool_bitwise_and_invert():
    t = jnp.asarray([True, False, True])
    u = jnp.asarray([True, True, False])
    np.testing.assert_array_equal(np.asarray(t & u), [True, False, False])
    np.testing.assert_array_equal(np.asarray(t | u), [True, True, True])
    np.testing.assert_array_equal(np.asarray(t ^ u), [False, True, True])
    np.testing.assert_array_equal(np.asarray(~t), [False, True, False])
    assert (t & True).dtype == np.bool_


def test_unary_operators():
    x_np = np.array([-2.5, 0.0, 3.0], np.float32)
    x = jnp.asarray(x_np)
    np.testing.assert_array_equal(np.asarray(-x), -x_np)
    np.testing.assert_array_equal(np.asarray(+x), x_np)
    np.testing.assert_array_equal(np.asarray(abs(x)), np.abs(x_np))
    i = jnp.asarray([0, 1, -3])
    np.testing.assert_array_equal(np.asarray(~i), ~np.array([0, 1, -3], np.int32))
    assert (-i).dtype == np.int32


def test_divmod_and_floor_semantics():
    a = jnp.arange(-3, 3)
    q, r = divmod(a, 2)
    nq, nr = divmod(np.arange(-3, 3), 2)
    np.testing.assert_array_equal(np.asarray(q), nq)
    np.testing.assert_array_equal(np.asarray(r), nr)
    q, r = divmod(7, jnp.asarray([2, -2, 3]))
    np.testing.assert_array_equal(np.asarray(q), [3, -4, 2])
    np.testing.assert_array_equal(np.asarray(r), [1, -1, 1])
    np.testing.assert_array_equal(np.asarray(jnp.asarray([-7.5, 7.5]) % 2.0), [0.5, 1.5])


def test_float_floor_divide_by_zero_matches_numpy():
    with np.errstate(all="ignore"):
        want = np.array([1.0, -1.0, 0.0], np.float32) // np.float32(0.0)
    got = jnp.asarray([1.0, -1.0, 0.0]) // 0.0
    np.testing.assert_array_equal(np.asarray(got), want)


def test_bool_power_promotes_like_jax():
    assert (jnp.asarray([True, False]) ** 2).dtype == np.int32


def test_matmul_operator():
    a_np = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b_np = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(jnp.asarray(a_np) @ jnp.asarray(b_np)), a_np @ b_np)
    np.testing.assert_allclose(np.asarray(a_np @ jnp.asarray(b_np)), a_np @ b_np)
    np.testing.assert_allclose(np.asarray(jnp.asarray(a_np) @ b_np), a_np @ b_np)
    v = jnp.arange(4.0)
    assert (v @ v).shape == () and float(v @ v) == 14.0


# (lhs dtype, op, rhs: dtype name or Python scalar, result dtype, result weak) from JAX 0.10.2.
PROMOTIONS = [
    ("int32", operator.add, 1.5, "float32", True),
    ("uint8", operator.add, 1, "uint8", False),
    ("float16", operator.mul, 2.0, "float16", False),
    ("int8", operator.add, "int32", "int32", False),
    ("uint8", operator.add, "int8", "int16", False),
    ("bool", operator.add, 1, "int32", True),
    ("int32", operator.add, "float16", "float16", False),
    ("bfloat16", operator.add, "float16", "float32", False),
    ("uint32", operator.add, "int32", "int32", False),
    ("float32", operator.add, 1j, "complex64", False),
    ("int32", operator.truediv, 2, "float32", False),
    ("int32", operator.floordiv, 2, "int32", False),
    ("bool", operator.and_, True, "bool", False),
    ("float16", operator.add, "float32", "float32", False),
    ("uint8", operator.mul, 2.5, "float32", True),
    ("int16", operator.sub, "uint16", "int32", False),
    ("int8", operator.pow, 2, "int8", False),
    ("float16", operator.truediv, 3, "float16", False),
    ("bool", operator.mul, 2.0, "float32", True),
    ("complex64", operator.add, "float32", "complex64", False),
    ("uint8", operator.lshift, 1, "uint8", False),
    ("bfloat16", operator.mul, 3, "bfloat16", False),
]


@pytest.mark.parametrize(
    "lhs, fn, rhs, dtype, weak",
    PROMOTIONS,
    ids=[f"{p[0]}-{p[1].__name__}-{p[2]}" for p in PROMOTIONS],
)
def test_operator_promotion_matches_jax(lhs, fn, rhs, dtype, weak):
    a = jnp.ones(3, lhs)
    b = jnp.ones(3, rhs) if isinstance(rhs, str) else rhs
    for out in (fn(a, b), fn(b, a)):
        assert out.dtype == np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
        assert out.weak_type is weak


def test_numpy_scalar_operand_is_not_weak():
    x = jnp.ones(2, jnp.float16)
    assert (x * np.float32(2)).dtype == np.float32
    assert (np.float32(2) * x).dtype == np.float32
    assert (jnp.arange(3) + np.arange(3.0)).dtype == np.float32  # float64 canonicalized
    assert isinstance(np.arange(3) + jnp.arange(3.0), stablax.Array)


def test_uint8_wraps_like_numpy():
    x = jnp.asarray(np.array([0, 1, 255], np.uint8))
    out = x + 1
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(out), [1, 2, 0])
    np.testing.assert_array_equal(np.asarray(x - 1), [255, 0, 254])


def test_operator_with_list_raises():
    with pytest.raises(TypeError):
        jnp.arange(3) + [1, 2, 3]


# --- indexing ----------------------------------------------------------------------------------

_BASE = np.arange(60).reshape(3, 4, 5)
INDICES = [
    0,
    -1,
    2,
    (1, 2),
    (-1, -2, -3),
    slice(None),
    slice(1, None),
    slice(None, None, -1),
    slice(None, None, 2),
    slice(-2, None),
    slice(2, 0, -1),
    slice(5, -10, -2),
    slice(3, 1),
    (slice(None), 1),
    (slice(None), slice(None, None, -2), 3),
    None,
    (None, 0),
    (0, None, 1),
    Ellipsis,
    (Ellipsis, 0),
    (0, Ellipsis),
    (Ellipsis, None),
    (1, Ellipsis, slice(1, 4, 2)),
    (slice(None, None, -1), Ellipsis, -1),
    (None, Ellipsis, None),
    (np.int32(1), np.int64(-1)),
    (slice(0, 10), slice(-10, 10)),
]


@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_basic_indexing_matches_numpy(idx):
    got = jnp.asarray(_BASE)[idx]
    want = _BASE[idx]
    assert got.shape == want.shape
    assert got.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), want)


def test_index_with_0d_integer_arrays():
    x = jnp.arange(10.0)
    assert float(x[jnp.asarray(3)]) == 3.0
    assert float(x[np.array(4)]) == 4.0
    assert float(x[np.int16(-1)]) == 9.0
    with pytest.raises(TypeError):
        x[1.0]
    with pytest.raises(TypeError):
        x["a"]
    with pytest.raises(TypeError):
        [1, 2][jnp.asarray(True)]


def test_trivial_index_returns_the_array_itself():
    x = jnp.arange(6).reshape(2, 3)
    assert x[...] is x and x[:] is x and x[()] is x and x[:, :] is x


def _jax_dynamic_index(i, n):
    """Where JAX reads a traced index: negative values wrap once, then clamp into [0, n)."""
    return min(max(i + n if i < 0 else i, 0), n - 1)


@pytest.mark.parametrize("i", [0, 2, -1, -3, 5, -7], ids=str)
def test_traced_integer_index_under_jit(i):
    base = np.arange(12).reshape(3, 4)
    x = jnp.asarray(base)
    row = stablax.jit(lambda a, k: a[k])(x, i)
    np.testing.assert_array_equal(np.asarray(row), base[_jax_dynamic_index(i, 3)])
    mixed = stablax.jit(lambda a, k: a[None, ::-1, k])(x, i)
    np.testing.assert_array_equal(np.asarray(mixed), base[None, ::-1, _jax_dynamic_index(i, 4)])


def test_out_of_range_integer_index_clamps_as_in_jax():
    x = jnp.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(x[2]), [3, 4, 5])  # JAX clamps, NumPy raises
    np.testing.assert_array_equal(np.asarray(x[-3]), [0, 1, 2])
    assert int(x[0, 3]) == 2
    with pytest.raises(IndexError):
        x[0, 0, 0]  # too many indices


def test_item_assignment_raises_type_error_pointing_to_at():
    x = jnp.arange(3)
    with pytest.raises(TypeError, match=r"\.at"):
        x[0] = 1
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2])


# --- placement, lifetime, exchange -------------------------------------------------------------


def test_single_device_placement_flags():
    x = jnp.ones(2)
    assert x.is_fully_addressable and x.is_fully_replicated
    assert x.sharding.device == x.device
    # JAX 0.10.2's text; the memory is the device's default one
    text = "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    assert repr(x.sharding) == str(x.sharding) == text and x.sharding.memory_kind == "device"
    assert type(x.sharding)(x.device, memory_kind="device") == x.sharding
    with pytest.raises(NotImplementedError, match="pinned_host"):
        type(x.sharding)(x.device, memory_kind="pinned_host")


def test_block_until_ready_and_devices():
    x = jnp.arange(4.0) * 2
    assert x.block_until_ready() is x
    device = stablax.devices()[0]
    assert x.devices() == {device}
    assert x.device == device
    x.copy_to_host_async()
    np.testing.assert_array_equal(np.asarray(x), [0.0, 2.0, 4.0, 6.0])


def test_delete_and_is_deleted():
    x = jnp.ones(3) + 1
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)
    with pytest.raises(RuntimeError, match="deleted"):
        x + 1
    with pytest.raises(RuntimeError, match="deleted"):
        jnp.sum(x, axis=0)
    with pytest.raises(RuntimeError, match="deleted"):
        stablax.lax.exp(x)
    assert "deleted" in repr(x)


def test_copies_survive_deleting_the_original():
    x = jnp.arange(3.0) + 1
    copies = [x.copy(), jnp.array(x), jnp.copy(x)]
    assert all(c is not x for c in copies)
    assert jnp.asarray(x) is x  # asarray never copies
    x.delete()
    for c in copies:
        np.testing.assert_array_equal(np.asarray(c), [1.0, 2.0, 3.0])


def test_round_builtin():
    assert repr(round(jnp.asarray(2.6))) == "Array(3, dtype=int32)"
    assert round(jnp.asarray(2.5)).item() == 2  # half to even
    out = round(jnp.asarray([1.26, -2.35]), 1)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), [1.3, -2.4], rtol=1e-6)


def test_dlpack_to_numpy_shares_memory():
    cpu = stablax.devices("cpu")[0]  # NumPy imports host memory only
    x = stablax.device_put(np.arange(6.0, dtype=np.float32).reshape(2, 3) + 1, cpu)
    host = np.from_dlpack(x)
    np.testing.assert_array_equal(host, np.arange(6.0).reshape(2, 3) + 1)
    assert host.dtype == np.float32
    # On CPU, jaxlib exports the device buffer itself: no copy.
    assert host.ctypes.data == x._buf.unsafe_buffer_pointer()
    assert not host.flags.writeable
    assert x.__dlpack_device__() == (1, 0)


def test_dlpack_from_numpy_round_trip():
    source = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = array_module.from_dlpack(source)
    assert isinstance(x, stablax.Array)
    assert x.shape == (3, 4) and x.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(x), source)
    np.testing.assert_array_equal(np.asarray(x + 1), source + 1)
    back = np.from_dlpack(x)
    np.testing.assert_array_equal(back, source)


def test_jnp_from_dlpack_is_public():
    x = jnp.from_dlpack(np.arange(3.0))
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0])


@pytest.mark.parametrize(
    "value",
    [jnp.arange(6.0).reshape(2, 3), jnp.asarray(2.0), jnp.asarray([1, 2], jnp.uint8)],
    ids=["2d", "weak", "u8"],
)
def test_pickle_round_trip(value):
    restored = pickle.loads(pickle.dumps(value))
    assert isinstance(restored, stablax.Array)
    assert restored.shape == value.shape and restored.dtype == value.dtype
    assert restored.weak_type == value.weak_type
    np.testing.assert_array_equal(np.asarray(restored), np.asarray(value))


def test_hash_raises_type_error():
    with pytest.raises(TypeError, match="unhashable"):
        hash(jnp.arange(3))
    with pytest.raises(TypeError):
        {jnp.asarray(1.0): 1}
