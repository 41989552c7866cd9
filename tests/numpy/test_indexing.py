"""`x[idx]` against NumPy: every index form, eagerly and under jit, with its IR, errors,
out-of-bounds clamping, gradients and batching."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp
from stablax.errors import NonConcreteBooleanIndexError
from stablax.test_util import check_grads

SHAPE = (3, 4, 5)
X_NP = np.arange(60, dtype=np.float32).reshape(SHAPE)
X2_NP = np.arange(12, dtype=np.float32).reshape(4, 3)


# --- index strategies --------------------------------------------------------------------------


@st.composite
def index_items(draw, shape):
    """A NumPy index tuple for `shape`: in-bounds ints, slices with steps, None, Ellipsis,
    broadcastable integer arrays and lists, boolean masks and boolean scalars."""
    batch = draw(st.sampled_from([(), (2,), (1, 3), (2, 1)]))
    items, dims = [], list(shape)
    use_ellipsis = draw(st.booleans())
    while dims:
        n = dims[0]
        kind = draw(st.sampled_from(["int", "slice", "slice", "array", "list", "none", "mask"]))
        if kind == "none":
            items.append(None)
            continue
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            items.append(slice(draw(bound), draw(bound), step))
        elif kind in ("array", "list"):
            shape_ = draw(st.sampled_from([batch, batch[-1:]]))
            values = np.asarray(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=6)))
            array = np.resize(values, shape_).astype(np.int32)
            if draw(st.booleans()):
                array = (array % n).astype(np.uint8)
            items.append(array.tolist() if kind == "list" and array.ndim == 1 else array)
        else:
            items.append(np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        dims.pop(0)
        if use_ellipsis and draw(st.booleans()) and not any(i is Ellipsis for i in items):
            items.append(Ellipsis)
            break
    if draw(st.booleans()) and len(items) > 1 and not any(i is Ellipsis for i in items):
        items = items[: draw(st.integers(1, len(items)))]  # trailing dims stay implicit
    if draw(st.integers(0, 9)) == 0:
        items.insert(draw(st.integers(0, len(items))), True)  # False rarely broadcasts
    return tuple(items)


def _numpy_index(idx):
    return tuple(np.asarray(i) if isinstance(i, list) else i for i in idx)


@settings(max_examples=40, deadline=None)
@given(index_items(SHAPE))
def test_getitem_matches_numpy(idx):
    x = jnp.asarray(X_NP)
    try:
        expected = X_NP[_numpy_index(idx)]
    except IndexError:  # masks and arrays that do not broadcast: an error here too
        with pytest.raises(IndexError):
            x[idx]
        return
    eager = x[idx]
    assert eager.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(eager), expected)
    np.testing.assert_array_equal(np.asarray(stablax.jit(lambda x: x[idx])(x)), expected)


@settings(max_examples=25, deadline=None)
@given(index_items((4, 3)))
def test_getitem_with_traced_index_arrays(idx):
    x = jnp.asarray(X2_NP)
    arrays = [i for i in idx if isinstance(i, np.ndarray) and i.dtype != np.bool_]

    def f(x, *traced):
        it = iter(traced)
        return x[
            tuple(next(it) if isinstance(i, np.ndarray) and i.dtype != np.bool_ else i for i in idx)
        ]

    try:
        expected = X2_NP[_numpy_index(idx)]
    except IndexError:
        return  # covered by test_getitem_matches_numpy
    np.testing.assert_array_equal(np.asarray(stablax.jit(f)(x, *arrays)), expected)


# --- specific forms ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "idx, shape",
    [
        (([2, 1, 0], slice(None), slice(2, 4)), (3, 4, 2)),
        (([0, 1], slice(None), [2, 3]), (2, 4)),  # separated: the advanced dims go first
        ((0, slice(None), [1, 2]), (2, 4)),  # an integer counts as advanced here
        (([0, 1], None, [1, 2]), (2, 1, 5)),  # adjacent through None? no: None separates
        ((slice(None), [0, 1], [1, 2]), (3, 2)),  # adjacent: the block stays in place
        ((Ellipsis, [0, 1]), (3, 4, 2)),
        ((None, Ellipsis, None), (1, 3, 4, 5, 1)),
        ((True,), (1, 3, 4, 5)),
        ((False,), (0, 3, 4, 5)),
        (([0, 1], True), (2, 4, 5)),
        ((0, True), (1, 4, 5)),
        (([[2, 1]], [0, 1]), (1, 2, 5)),
        ((), (3, 4, 5)),
    ],
)
def test_index_forms_and_shapes(idx, shape):
    x = jnp.asarray(X_NP)
    out = x[idx]
    assert out.shape == shape
    np.testing.assert_array_equal(np.asarray(out), X_NP[_numpy_index(idx)])


def test_boolean_masks_eager_and_under_grad():
    x = jnp.asarray(X_NP)
    np.testing.assert_array_equal(np.asarray(x[x > 40]), X_NP[X_NP > 40])
    mask = np.array([True, False, True])
    np.testing.assert_array_equal(np.asarray(x[mask, 1:3]), X_NP[mask, 1:3])
    np.testing.assert_array_equal(np.asarray(x[jnp.asarray(mask)]), X_NP[mask])
    # Outside jit a traced mask has a concrete value, as in JAX.
    grad = stablax.grad(lambda x: x[x > 40].sum())(x)
    np.testing.assert_array_equal(np.asarray(grad), (X_NP > 40).astype(np.float32))


def test_scalars_keep_weak_types_and_dtypes():
    assert jnp.asarray(3.0)[None].weak_type
    assert not jnp.asarray(X_NP)[0].weak_type
    for dtype in (np.int8, np.uint16, np.bool_, np.complex64):
        x = jnp.asarray(np.ones((3, 2), dtype))
        assert x[np.array([0, 2])].dtype == dtype
        assert x[1].dtype == dtype


def test_lists_holding_traced_values():
    x = jnp.asarray(X_NP)
    out = stablax.jit(lambda x, i: x[[i, 0], 1])(x, 2)
    np.testing.assert_array_equal(np.asarray(out), X_NP[[2, 0], 1])


def test_index_dtypes(x64):
    x = jnp.asarray(X_NP)
    for dtype in (np.int8, np.uint8, np.int64, np.uint32, np.int16):
        idx = np.array([2, 0, 1], dtype)
        np.testing.assert_array_equal(np.asarray(x[idx]), X_NP[idx])
        np.testing.assert_array_equal(np.asarray(stablax.jit(lambda x, i: x[i])(x, idx)), X_NP[idx])


def test_zero_size_results():
    x = jnp.asarray(X_NP)
    assert x[np.zeros((0,), np.int32)].shape == (0, 4, 5)
    assert x[:, np.zeros((2, 0), np.int32), 1:1].shape == (3, 2, 0, 0)
    assert x[np.zeros(3, bool)].shape == (0, 4, 5)


# --- out of bounds: retrievals clamp, as JAX documents ----------------------------------------


def test_out_of_bounds_indices_clamp():
    x = jnp.asarray(X_NP)
    np.testing.assert_array_equal(np.asarray(x[5]), X_NP[2])
    np.testing.assert_array_equal(np.asarray(x[-5]), X_NP[0])
    np.testing.assert_array_equal(np.asarray(x[np.array([5, -7, -1])]), X_NP[[2, 0, 2]])
    f = stablax.jit(lambda x, i: (x[i], x[:, i]))
    a, b = f(x, 7)
    np.testing.assert_array_equal(np.asarray(a), X_NP[2])
    np.testing.assert_array_equal(np.asarray(b), X_NP[:, 3])
    a, b = f(x, jnp.asarray(-9))
    np.testing.assert_array_equal(np.asarray(a), X_NP[0])


def test_traced_integer_wraps_negative():
    x = jnp.asarray(X_NP)
    f = stablax.jit(lambda x, i: x[i, 1:3])
    for i in range(-3, 3):
        np.testing.assert_array_equal(np.asarray(f(x, i)), X_NP[i, 1:3])


# --- the IR ------------------------------------------------------------------------------------


def _ops(f, *args):
    text = stablax.jit(f).lower(*args).as_text()
    return re.findall(r"(?<![#\w])(?:stablehlo|chlo)\.\w+", text)


def test_basic_indices_lower_to_slices_and_advanced_to_one_gather():
    x = jnp.asarray(X_NP)
    ops = _ops(lambda x: x[1:3], x)
    assert "stablehlo.slice" in ops and "stablehlo.gather" not in ops
    ops = _ops(lambda x: x[np.array([0, 2]), ::2, [1, 3]], x)
    assert ops.count("stablehlo.gather") == 1


# Eager indices whose values change from call to call: (name, index of a Python int i, how many
# programs i = 0..5 may compile). Unit-step slices and integers are operands, as in JAX; a
# slice with a larger step stays static (JAX compiles it once per start too).
CHANGING_VALUES = [
    ("int", lambda i: (i,), 1),
    ("negative-int", lambda i: (-i - 1,), 1),
    ("column", lambda i: (slice(None), i % 4), 1),
    ("window", lambda i: (slice(i, i + 3),), 1),
    ("window-and-int", lambda i: (slice(i % 2, i % 2 + 2), i % 4), 1),
    ("reversed-window", lambda i: (slice(i + 2, i - 1 if i else None, -1),), 1),
    ("window-with-none", lambda i: (None, slice(i, i + 2), Ellipsis, 1), 1),
    ("strided", lambda i: (slice(i % 2, None, 2),), 2),
]


@pytest.mark.parametrize(
    "index, programs",
    [(f, n) for _, f, n in CHANGING_VALUES],
    ids=[r[0] for r in CHANGING_VALUES],
)
def test_eager_index_values_do_not_recompile(index, programs):
    from stablax._src import runtime

    x_np = np.arange(160, dtype=np.float32).reshape(8, 4, 5)
    x = jnp.asarray(x_np)
    before = runtime.compile_count
    for i in range(6):
        idx = index(i)
        np.testing.assert_array_equal(np.asarray(x[idx]), x_np[idx])
    assert runtime.compile_count - before <= programs


# --- errors ------------------------------------------------------------------------------------


def test_traced_boolean_mask_error_names_where_and_size():
    x = jnp.asarray(X_NP)
    with pytest.raises(NonConcreteBooleanIndexError) as info:
        stablax.jit(lambda x: x[x > 3])(x)
    message = str(info.value)
    assert "bool[3,4,5]" in message and "jnp.where" in message and "size=" in message
    assert "test_indexing.py" in message
    assert isinstance(info.value, IndexError)
    with pytest.raises(NonConcreteBooleanIndexError):
        stablax.jit(lambda x, b: x[b])(x, True)


@pytest.mark.parametrize(
    "idx, error, text",
    [
        ([0, 1], TypeError, "arr[array(seq)]"),
        ([0, slice(None)], TypeError, "arr[tuple(seq)]"),
        (1.0, TypeError, "integer or boolean type"),
        (np.array([1.0]), TypeError, "integer or boolean type"),
        ("a", TypeError, "string indexing"),
        ((0, 0, 0, 0), IndexError, "Too many indices"),
        ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
        (np.array([True, False]), IndexError, "did not match shape"),
        ((np.array([0, 1]), np.array([0, 1, 2])), IndexError, "could not be broadcast"),
    ],
)
def test_index_errors(idx, error, text):
    with pytest.raises(error, match=None) as info:
        jnp.asarray(X_NP)[idx]
    assert text in str(info.value)


def test_traced_slice_entries_raise():
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        stablax.jit(lambda x, i: x[i : i + 2])(jnp.asarray(X_NP), 1)


def test_item_assignment_points_to_at():
    x = jnp.asarray(X_NP)
    with pytest.raises(TypeError, match=r"\.at"):
        x[0] = 1


# --- derivatives and batching ------------------------------------------------------------------


@pytest.mark.parametrize(
    "idx",
    [
        (1, slice(None, None, 2)),
        (np.array([0, 2, 2]), slice(None), slice(4, 0, -2)),
        (slice(None), np.array([[0, 1], [3, 3]]), 2),
        (np.array([True, False, True]), None, 1),
    ],
)
def test_getitem_gradients(x64, idx):
    x = np.random.default_rng(0).normal(size=SHAPE)
    check_grads(lambda x: jnp.asarray(x)[idx], (x,), order=2, modes=("fwd", "rev"))


def test_vmap_of_indexing_matches_a_loop():
    rng = np.random.default_rng(1)
    xs = jnp.asarray(rng.normal(size=(4, *SHAPE)).astype(np.float32))
    ii = jnp.asarray(rng.integers(-3, 3, size=(4, 2)))
    cases = [
        (lambda x, i: x[i, :, 1:3], (0, 0)),
        (lambda x, i: x[:, i[0], ::-2], (0, 0)),
        (lambda x, i: x[i, None, i], (None, 0)),
        (lambda x, i: x[np.array([2, 0]), :, i], (0, 0)),
        (lambda x, i: x[1:, np.array([0, 3])], (0, None)),
    ]
    for f, in_axes in cases:
        out = stablax.vmap(f, in_axes=in_axes)(xs if in_axes[0] == 0 else xs[0], ii)
        loop = [
            f(xs[k] if in_axes[0] == 0 else xs[0], ii[k] if in_axes[1] == 0 else ii)
            for k in range(4)
        ]
        np.testing.assert_array_equal(np.asarray(out), np.stack([np.asarray(v) for v in loop]))
