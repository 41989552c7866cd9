"""vmap of the data-movement and indexing ops in cases the op-record table does not reach.

Batched start indices turn dynamic slices into gathers and scatters, batched operands of
gather/scatter become batching dims or one more window dim, a batched padding value becomes a
select. Every case checks vmap == a loop of the unbatched function, eagerly and under jit, and
which ops the batched module holds (one batched op, never a loop).
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax

B = 4
GD, SD = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers


def _example(args, axes, b):
    return [a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes, strict=True)]


def _check(fun, args, in_axes, contains=(), absent=()):
    """vmap(fun) against a loop; `contains`/`absent`: op names expected in the batched module."""
    args = [np.asarray(a) for a in args]
    expected = np.stack(
        [np.asarray(fun(*map(jnp.asarray, _example(args, in_axes, b)))) for b in range(B)]
    )
    batched = jax.vmap(fun, in_axes=in_axes)
    for run in (batched, jax.jit(batched)):
        actual = np.asarray(run(*map(jnp.asarray, args)))
        assert actual.shape == expected.shape and actual.dtype == expected.dtype
        np.testing.assert_array_equal(actual, expected)
    text = str(jax.make_jaxpr(batched)(*map(jnp.asarray, args)))
    assert "stablehlo.while" not in text
    for name in contains:
        assert name in text, f"{name} missing from the batched module:\n{text}"
    for name in absent:
        assert name not in text, f"{name} unexpected in the batched module:\n{text}"


def _floats(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _batched(shape, axis):
    """`shape` with the batch dim inserted at `axis` (None: unbatched)."""
    shape = list(shape)
    if axis is not None:
        shape.insert(axis, B)
    return tuple(shape)


# Start indices partly out of bounds: negative ones wrap, the rest clamp.
STARTS = np.asarray([-1, 0, 3, 100], np.int32)
STARTS_2 = np.asarray([2, -7, 1, 0], np.int32)


# --- dynamic_slice and dynamic_update_slice ----------------------------------------------------


def _dslice(x, i, j):
    return lax.dynamic_slice(x, (i, j), (2, 3))


@pytest.mark.parametrize(
    "axes,contains,absent",
    [
        ((None, 0, None), ("stablehlo.gather",), ("dynamic_slice",)),
        ((None, 0, 0), ("stablehlo.gather",), ("operand_batching_dims",)),
        ((1, None, 0), ("operand_batching_dims = [0]",), ("dynamic_slice",)),
        ((0, 0, 0), ("operand_batching_dims = [0]",), ("dynamic_slice",)),
        ((2, None, None), ("stablehlo.dynamic_slice",), ("gather",)),
    ],
)
def test_dynamic_slice(axes, contains, absent):
    x = _floats(*_batched((4, 5), axes[0]))
    i = STARTS if axes[1] is not None else np.int32(-1)
    j = STARTS_2 if axes[2] is not None else np.int32(9)
    _check(_dslice, [x, i, j], axes, contains, absent)


def test_dynamic_slice_in_dim_batched_start():
    fun = lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=1)  # noqa: E731
    _check(fun, [_floats(B, 3, 6), STARTS], (0, 0), ("operand_batching_dims",))


def _dupdate(x, u, i):
    return lax.dynamic_update_slice(x, u, (i, -2))


@pytest.mark.parametrize(
    "axes,contains,absent",
    [
        ((None, None, 0), ("stablehlo.scatter",), ("dynamic_update_slice",)),
        ((0, 1, 0), ("stablehlo.scatter",), ("dynamic_update_slice",)),
        ((None, 0, 0), ("stablehlo.scatter",), ()),
        ((1, None, None), ("stablehlo.dynamic_update_slice",), ("scatter",)),
        ((None, 2, None), ("stablehlo.dynamic_update_slice",), ("scatter",)),
        ((2, 0, None), ("stablehlo.dynamic_update_slice",), ("scatter",)),
    ],
)
def test_dynamic_update_slice(axes, contains, absent):
    x, u = _floats(*_batched((4, 5), axes[0])), _floats(*_batched((2, 3), axes[1]), seed=1)
    i = STARTS if axes[2] is not None else np.int32(7)
    _check(_dupdate, [x, u, i], axes, contains, absent)


def test_dynamic_update_slice_integer_operand_batched_indices():
    x = np.arange(20, dtype=np.int8).reshape(4, 5)
    u = -np.ones((1, 5), np.int8)
    fun = lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 0))  # noqa: E731
    _check(fun, [x, u, STARTS], (None, None, 0), ("stablehlo.scatter",))


def test_dynamic_slices_of_scalars():
    # No start index to batch: the batch dim is the only sliced one.
    x, u = _floats(B), _floats(B, seed=1)
    np.testing.assert_array_equal(jax.vmap(lambda x: lax.dynamic_slice(x, (), ()))(x), x)
    update = jax.vmap(lambda x, u: lax.dynamic_update_slice(x, u, ()), in_axes=(None, 0))
    np.testing.assert_array_equal(update(x[0], u), u)


# --- gather ------------------------------------------------------------------------------------

ROWS_DN, ROWS_SIZES = GD((1,), (0,), (0,)), (1, 3)
BATCHING_DN, BATCHING_SIZES = GD((2,), (1,), (1,), (0,), (0,)), (1, 1, 3)


def _rows_indices(*shape, seed=0):
    return np.random.default_rng(seed).integers(-2, 7, shape).astype(np.int32)


@pytest.mark.parametrize("mode", ["clip", "fill", None])
@pytest.mark.parametrize("axes", [(1, None), (None, 1), (None, 2), (2, 0), (0, 1)])
def test_gather_batch_dims_in_the_middle(axes, mode):
    fun = lambda x, i: lax.gather(x, i, BATCHING_DN, BATCHING_SIZES, mode=mode)  # noqa: E731
    x, i = _floats(*_batched((2, 5, 3), axes[0])), _rows_indices(*_batched((2, 4, 1), axes[1]))
    _check(fun, [x, i], axes, ("stablehlo.gather",))


def test_gather_nested_vmap():
    # Two levels of batching dims on top of the op's own.
    fun = lambda x, i: lax.gather(x, i, BATCHING_DN, BATCHING_SIZES, mode="clip")  # noqa: E731
    inner = jax.vmap(fun, in_axes=(0, 1))
    x, i = _floats(B, 3, 2, 5, 3), _rows_indices(B, 2, 3, 4, 1)
    _check(inner, [x, i], (0, 0), ("operand_batching_dims = [0, 1, 2]",))
    _check(jax.vmap(fun, in_axes=(None, 1)), [_floats(2, 5, 3), i], (None, 0))


def test_index_take_batched_indices():
    fun = lambda x, i, j: lax.index_take(x, (i, j), (2, 0))  # noqa: E731
    rng = np.random.default_rng(3)
    i, j = rng.integers(0, 5, (6, B)).astype(np.int32), rng.integers(0, 3, (B, 6))
    _check(fun, [_floats(3, 4, 5), i, j.astype(np.int32)], (None, 1, 0))


# --- scatter -----------------------------------------------------------------------------------

SCATTER_DN = SD((1,), (0,), (0,))
SCATTER_BATCHING_DN = SD((2,), (1,), (1,), (0,), (0,))


@pytest.mark.parametrize("op", ["scatter_add", "scatter_max", "scatter_mul"])
@pytest.mark.parametrize(
    "axes", [(None, 0, 0), (None, None, 0), (None, 0, None), (0, None, None), (2, 0, 1)]
)
def test_scatter(op, axes):
    fun = lambda x, i, u: getattr(lax, op)(x, i, u, SCATTER_DN, mode="drop")  # noqa: E731
    shapes = [_batched(s, a) for s, a in zip([(5, 3), (6, 1), (6, 3)], axes, strict=True)]
    x = np.random.default_rng(0).integers(-5, 5, shapes[0]).astype(np.int32)
    u = np.random.default_rng(1).integers(-5, 5, shapes[2]).astype(np.int32)
    _check(fun, [x, _rows_indices(*shapes[1]), u], axes, ("stablehlo.scatter",))


@pytest.mark.parametrize("axes", [(None, 1, 0), (1, None, 2), (0, 0, None), (3, 2, 1)])
def test_scatter_with_batching_dims(axes):
    fun = lambda x, i, u: lax.scatter_add(x, i, u, SCATTER_BATCHING_DN, mode="clip")  # noqa: E731
    shapes = [_batched(s, a) for s, a in zip([(2, 5, 3), (2, 4, 1), (2, 4, 3)], axes, strict=True)]
    args = [_floats(*shapes[0]), _rows_indices(*shapes[1]), _floats(*shapes[2], seed=2)]
    args = [a.round(1) if a.dtype.kind == "f" else a for a in args]  # exact sums
    _check(fun, args, axes, ("stablehlo.scatter",))


def test_scatter_replace_batched_unique_indices():
    # Each example writes distinct rows, so replace has one defined result per example.
    fun = lambda x, i, u: lax.scatter(x, i, u, SCATTER_DN, unique_indices=True)  # noqa: E731
    i = np.stack([np.random.default_rng(b).permutation(5)[:3] for b in range(B)])[..., None]
    _check(fun, [_floats(5, 3), i.astype(np.int32), _floats(B, 3, 3, seed=1)], (None, 0, 0))


# --- pad ---------------------------------------------------------------------------------------

PAD_CONFIG = [(-1, 2, 1), (2, -1, 2)]


@pytest.mark.parametrize("axes", [(None, 0), (1, 0), (2, None), (0, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_pad_batched_padding_value(axes, dtype):
    x = np.random.default_rng(0).integers(-3, 3, _batched((3, 4), axes[0])).astype(dtype)
    value = (np.arange(B) + 5).astype(dtype) if axes[1] is not None else np.asarray(9, dtype)
    contains = ("stablehlo.select",) if axes[1] is not None else ()
    _check(lambda x, v: lax.pad(x, v, PAD_CONFIG), [x, value], axes, contains)


# --- the static data movement ops, batch dim away from the front --------------------------------


def test_bitcast_convert_batch_dim_last():
    x = _floats(3, B)
    _check(lambda x: lax.bitcast_convert_type(x, np.uint8), [x], (1,))
    _check(lambda x: lax.bitcast_convert_type(x, np.int32), [x], (1,))
    as_bytes = np.ascontiguousarray(np.moveaxis(x.view(np.uint8).reshape(3, B, 4), 1, 2))
    _check(lambda b: lax.bitcast_convert_type(b, np.float32), [as_bytes], (2,))
    _check(lambda b: lax.bitcast_convert_type(b, np.float32), [as_bytes.transpose(2, 0, 1)], (0,))


def test_convert_batch_dim_in_the_middle():
    fun = lambda x: lax.convert_element_type(x, np.int32)  # noqa: E731
    _check(fun, [_floats(2, B, 3) * 5], (1,), ("stablehlo.convert",))


def test_iota_is_unbatched():
    fun = lambda x: x + lax.broadcasted_iota(np.float32, (2, 3), 1)  # noqa: E731
    _check(fun, [_floats(2, B, 3)], (1,), ("stablehlo.iota",))


def test_concatenate_mixed_batch_dims():
    fun = lambda x, y, z: lax.concatenate([x, y, z], 1)  # noqa: E731
    _check(fun, [_floats(B, 2, 3), _floats(2, 1), _floats(2, 2, B, seed=1)], (0, None, 2))


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: lax.transpose(x, (2, 0, 1)),
        lambda x: lax.reshape(x, (6, 4)),
        lambda x: lax.reshape(x, (24,), (2, 1, 0)),
        lambda x: lax.rev(x, (0, 2)),
        lambda x: lax.slice(x, (1, 0, 1), (2, 3, 4), (1, 2, 2)),
        lambda x: lax.broadcast_in_dim(x, (2, 5, 3, 4), (0, 2, 3)),
        lambda x: lax.reduce_precision(x, 5, 10),
        lambda x: lax.squeeze(lax.expand_dims(x, (1, 3)), (1,)),
    ],
    ids=["transpose", "reshape", "reshape_dimensions", "rev", "slice", "broadcast", "rp", "dims"],
)
@pytest.mark.parametrize("axis", [0, 1, 3])
def test_static_ops_batch_dim_anywhere(fun, axis):
    _check(fun, [_floats(*_batched((2, 3, 4), axis))], (axis,))
