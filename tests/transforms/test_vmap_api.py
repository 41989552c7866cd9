"""vmap's API as JAX defines it: in_axes/out_axes, axis_size, kwargs, error messages, and its
compositions with jit, grad, jacfwd/jacrev and itself.

Expected error texts are JAX 0.10.2's, read from JAX itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import grad, jit, vmap


def _np(x):
    return np.asarray(x)


@pytest.fixture
def x23():
    return jnp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))


# --- in_axes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_in_axes_int_moves_the_mapped_axis(axis, x23):
    out = vmap(lambda a: a * 2.0, in_axes=axis)(x23)
    np.testing.assert_array_equal(_np(out), np.moveaxis(_np(x23), axis, 0) * 2.0)


def test_in_axes_none_broadcasts_an_argument(x23):
    w = jnp.asarray([1.0, 2.0, 3.0])
    out = vmap(lambda a, b: a * b, in_axes=(0, None))(x23, w)
    np.testing.assert_array_equal(_np(out), _np(x23) * _np(w))


def test_in_axes_list_is_a_tuple(x23):
    w = jnp.asarray([1.0, 2.0, 3.0])
    out = vmap(lambda a, b: a + b, in_axes=[0, None])(x23, w)
    np.testing.assert_array_equal(_np(out), _np(x23) + _np(w))


def test_in_axes_pytree_prefixes(x23):
    xt = jnp.asarray(_np(x23).T)  # (3, 2): mapped along 1

    def f(d, pair):
        return d["a"] * 2.0 + d["b"] + pair[0] - pair[1]

    args = ({"a": x23, "b": xt}, [x23, jnp.asarray([1.0, 2.0, 3.0])])
    out = vmap(f, in_axes=({"a": 0, "b": 1}, [0, None]))(*args)
    expected = [
        f({"a": _np(x23)[i], "b": _np(xt)[:, i]}, [_np(x23)[i], np.array([1.0, 2.0, 3.0])])
        for i in range(2)
    ]
    np.testing.assert_allclose(_np(out), np.stack(expected))


def test_in_axes_prefix_covers_a_subtree(x23):
    out = vmap(lambda t: t[0] + t[1], in_axes=((1),))((x23, x23))
    np.testing.assert_array_equal(_np(out), (_np(x23) * 2).T)


def test_kwargs_are_batched_along_axis_zero(x23):
    out = vmap(lambda a, *, k: a - k, in_axes=(1,))(jnp.asarray(_np(x23).T), k=x23)
    np.testing.assert_array_equal(_np(out), np.zeros((2, 3)))


def test_axis_size_without_batched_inputs():
    out = vmap(lambda: jnp.asarray(1.5), axis_size=4)()
    np.testing.assert_array_equal(_np(out), np.full(4, 1.5))
    w = jnp.asarray([1.0, 2.0])
    out = vmap(lambda v: v * 2.0, in_axes=None, axis_size=3)(w)
    np.testing.assert_array_equal(_np(out), np.tile([2.0, 4.0], (3, 1)))


def test_unbatched_arguments_reach_the_function_as_they_are(x23):
    seen = {}

    def f(a, n, name, w):
        seen.update(n=n, name=name)
        if n > 1 and w[0] < 1:  # Python control flow on unbatched values
            return a * n
        return a

    out = vmap(f, in_axes=(0, None, None, None))(x23, 3, "label", jnp.asarray([0.0, 5.0]))
    assert seen == {"n": 3, "name": "label"}
    np.testing.assert_array_equal(_np(out), _np(x23) * 3)


def test_control_flow_on_closed_over_values(x23):
    c = jnp.asarray([1.0, -2.0])

    def f(a):
        if jnp.sum(c) > 0:  # computed inside the trace, but the same for every example
            return a
        return -a

    np.testing.assert_array_equal(_np(vmap(f)(x23)), -_np(x23))


def test_control_flow_on_a_batched_value_is_an_error(x23):
    def f(a):
        return a if a[0] > 0 else -a

    with pytest.raises(TypeError, match=r"\[vmap\].*differs between the examples"):
        vmap(f)(x23)


# --- out_axes and outputs ----------------------------------------------------------------------


@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_out_axes_int(out_axes, x23):
    out = vmap(lambda a: a + 1.0, out_axes=out_axes)(x23)
    np.testing.assert_array_equal(_np(out), np.moveaxis(_np(x23) + 1.0, 0, out_axes))


def test_in_axes_1_out_axes_1_keeps_the_layout(x23):
    out = vmap(lambda v: v * 3.0, in_axes=1, out_axes=1)(x23)
    np.testing.assert_array_equal(_np(out), _np(x23) * 3.0)


def test_out_axes_pytree_and_none(x23):
    w = jnp.asarray([4.0, 5.0, 6.0])
    out = vmap(
        lambda a: {"p": a, "q": (a * 2.0, w)},
        out_axes={"p": 1, "q": (0, None)},
    )(x23)
    np.testing.assert_array_equal(_np(out["p"]), _np(x23).T)
    np.testing.assert_array_equal(_np(out["q"][0]), _np(x23) * 2.0)
    np.testing.assert_array_equal(_np(out["q"][1]), _np(w))


def test_unbatched_output_is_broadcast(x23):
    w = jnp.asarray([4.0, 5.0, 6.0])
    out = vmap(lambda a: w, out_axes=1)(x23)
    np.testing.assert_array_equal(_np(out), np.tile(_np(w)[:, None], (1, 2)))


def test_python_scalar_outputs(x23):
    out = vmap(lambda a: 3.0)(x23)
    assert out.shape == (2,) and out.dtype == np.float32 and out.aval.weak_type
    out = vmap(lambda a: 3)(x23)
    assert out.dtype == np.int32 and out.aval.weak_type
    out = vmap(lambda a: True)(x23)
    assert out.dtype == np.bool_ and not out.aval.weak_type
    assert vmap(lambda a: 3.0, out_axes=None)(x23) == 3.0
    pair = vmap(lambda a: (a, 2.0), out_axes=(1, None))(x23)
    assert pair[1] == 2.0
    assert vmap(lambda a: None)(x23) is None


def test_weak_typed_outputs_stay_weak(x23):
    out = vmap(lambda a: jnp.asarray(2.0) * 1.0, in_axes=0)(x23)
    assert out.aval.weak_type


# --- error messages (JAX's text) ---------------------------------------------------------------


def _error(fun, *args, **kwargs):
    with pytest.raises((ValueError, TypeError)) as info:
        fun(*args, **kwargs)
    return str(info.value)


def test_inconsistent_sizes_names_the_arguments():
    x, y = jnp.ones((2, 3)), jnp.ones((3,))
    assert _error(vmap(lambda a, b: a + b), x, y) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument a of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of argument b of type float32[3]"
    )
    assert _error(vmap(lambda a, b: a + b), x, b=y) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument a of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of kwargs['b'] of type float32[3]"
    )
    assert _error(vmap(lambda a, b: a), {"a": x}, [y]) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument a['a'] of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of argument b[0] of type float32[3]"
    )


def test_inconsistent_sizes_with_varargs_and_counts():
    def f(*args):
        return args[0]

    x, y, z = jnp.ones((2, 3)), jnp.ones((3,)), jnp.ones((5,))
    assert _error(vmap(f), x, y, z) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument args of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of args[1] of type float32[3];\n"
        "  * one axis had size 5: axis 0 of args[2] of type float32[5]"
    )
    assert _error(vmap(f), x, y, y, z, z, z) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * most axes (3 of them) had size 5, e.g. axis 0 of args[3] of type float32[5];\n"
        "  * some axes (2 of them) had size 3, e.g. axis 0 of args[1] of type float32[3];\n"
        "  * one axis had size 2: axis 0 of argument args of type float32[2,3]"
    )
    assert _error(vmap(f, axis_size=3), x, x) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * the `axis_size` argument was 3;\n"
        "  * most axes (2 of them) had size 2, e.g. axis 0 of argument args of type float32[2,3]"
    )
    assert "axis -1 of argument a of type float32[2,3]" in _error(
        vmap(lambda a, b: a, in_axes=(-1, 0)), x, jnp.ones(2)
    )


def test_rank_too_small():
    assert _error(vmap(lambda a: a, in_axes=2), jnp.ones((2, 3))) == (
        "vmap was requested to map its argument along axis 2, which implies that its rank "
        "should be at least 3, but is only 2 (its shape is (2, 3))"
    )
    assert _error(vmap(lambda a: a, in_axes=-3), jnp.ones((2, 3))).startswith(
        "vmap was requested to map its argument along axis -3, which implies that its rank "
        "should be at least 3"
    )
    assert "but is only 0 (its shape is ())" in _error(vmap(lambda a: a), 3.0)


def test_in_axes_errors():
    x = jnp.ones((2, 3))
    assert _error(vmap(lambda a: a, in_axes=(0, 0)), x) == (
        "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
        "positional arguments passed to the function, but got len(in_axes)=2, len(args)=1"
    )
    assert _error(vmap, lambda a: a, in_axes={"a": 0}) == (
        "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
        "positional arguments passed to the function, but got {'a': 0}."
    )
    assert _error(vmap, lambda a: a, in_axes=(1.0,)) == (
        "vmap in_axes must be an int, None, or (nested) container with those types as leaves, "
        "but got (1.0,)."
    )
    assert _error(vmap, lambda a: a, out_axes=1.0) == (
        "vmap out_axes must be an int, None, or (nested) container with those types as leaves, "
        "but got 1.0."
    )
    assert _error(vmap(lambda a: a, in_axes=None), x) == (
        "vmap must have at least one non-None value in in_axes or axis_size must be specified"
    )
    assert _error(vmap(lambda: 1.0)) == (
        "vmap wrapped function must be passed at least one argument containing an array or "
        "axis_size must be specified, got empty *args=() and **kwargs={}"
    )
    message = _error(vmap(lambda a: a, in_axes=({"q": 0},)), x)
    assert message.startswith(
        "vmap in_axes specification must be a tree prefix of the corresponding value; "
    )
    assert "different types at key path\n    vmap in_axes[0]" in message
    assert _error(vmap(lambda a, b: a), x, "str") == (
        "Argument 'str' of type <class 'str'> is not a valid JAX type"
    )


def test_out_axes_errors():
    x = jnp.ones((2, 3))
    assert _error(vmap(lambda a: (a, a), out_axes=(1, None)), x) == (
        "at vmap out_axes[1], got axis spec None but output was batched on axis 0"
    )
    assert _error(vmap(lambda a: a, out_axes=None, axis_name="i"), x) == (
        "vmap has mapped output (axis_name=i) but out_axes is None"
    )
    assert _error(vmap(lambda a: a, out_axes=2), x) == (
        "axis 2 is out of bounds for array of dimension 2"
    )
    assert "vmap out_axes specification must be a tree prefix" in _error(
        vmap(lambda a: (a, a), out_axes=(0,)), x
    )
    assert _error(vmap(lambda a: "s"), x) == (
        "Output from batched function 's' with type <class 'str'> is not a valid JAX type"
    )


# --- compositions ------------------------------------------------------------------------------


def _scalar_f(x):
    return jnp.sin(x) * x**2 + jnp.exp(-x)


def test_nested_vmap_is_an_outer_operation():
    a, b = jnp.asarray([1.0, 2.0, 3.0]), jnp.asarray([10.0, 20.0])
    out = vmap(vmap(lambda p, q: p * q + 1.0, in_axes=(None, 0)), in_axes=(0, None))(a, b)
    np.testing.assert_array_equal(_np(out), np.outer(_np(a), _np(b)) + 1.0)


def test_jit_of_vmap_and_vmap_of_jit(x23):
    f = vmap(lambda a, w: jnp.tanh(a) * w, in_axes=(1, None), out_axes=1)
    w = jnp.asarray([2.0, 3.0])
    expected = np.tanh(_np(x23)) * _np(w)[:, None]
    np.testing.assert_allclose(_np(jit(f)(x23, w)), expected, rtol=1e-6)
    expected = np.tanh(_np(x23)) * 2
    np.testing.assert_allclose(
        _np(vmap(jit(lambda a: jnp.tanh(a) * 2.0))(x23)), expected, rtol=1e-6
    )
    text = str(jax.make_jaxpr(f)(x23, w))
    assert "stablehlo.while" not in text and "custom_call" not in text


def test_vmap_of_grad_matches_a_loop():
    xs = jnp.asarray(np.linspace(-2.0, 2.0, 7, dtype=np.float32))
    batched = vmap(grad(_scalar_f))(xs)
    looped = np.stack([_np(grad(_scalar_f)(x)) for x in xs])
    np.testing.assert_allclose(_np(batched), looped, rtol=1e-6)
    np.testing.assert_allclose(_np(jit(vmap(grad(_scalar_f)))(xs)), looped, rtol=1e-6)


def test_grad_of_vmap():
    xs = jnp.asarray(np.linspace(-2.0, 2.0, 7, dtype=np.float32))
    g = grad(lambda v: vmap(_scalar_f)(v).sum())(xs)
    expected = np.stack([_np(grad(_scalar_f)(x)) for x in xs])
    np.testing.assert_allclose(_np(g), expected, rtol=1e-6)


def test_jacfwd_and_jacrev_rows_are_vmapped_jvps_and_vjps():
    def f(x):
        return jnp.sin(x) * x + x**3

    x = jnp.asarray([0.5, -1.0, 2.0])
    basis = jnp.eye(3)
    columns = vmap(lambda t: jax.jvp(f, (x,), (t,))[1], out_axes=1)(basis)
    rows = vmap(lambda c: jax.vjp(f, x)[1](c)[0])(basis)
    np.testing.assert_allclose(_np(columns), _np(jax.jacfwd(f)(x)), rtol=1e-6)
    np.testing.assert_allclose(_np(rows), _np(jax.jacrev(f)(x)), rtol=1e-6)


def _mlp_loss(params, x, y):
    for w, b in params[:-1]:
        x = jnp.tanh(jnp.dot(x, w) + b)
    w, b = params[-1]
    return jnp.sum((jnp.dot(x, w) + b - y) ** 2)


def _mlp_params(rng, sizes):
    return [
        (
            jnp.asarray(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m)),
            jnp.asarray(rng.normal(size=n).astype(np.float32)),
        )
        for m, n in zip(sizes[:-1], sizes[1:], strict=True)
    ]


def test_per_example_gradients_of_an_mlp(rng):
    params = _mlp_params(rng, [4, 8, 3])
    xs = jnp.asarray(rng.normal(size=(5, 4)).astype(np.float32))
    ys = jnp.asarray(rng.normal(size=(5, 3)).astype(np.float32))
    per_example = jit(vmap(grad(_mlp_loss), in_axes=(None, 0, 0)))(params, xs, ys)
    for i in range(5):
        expected = grad(_mlp_loss)(params, xs[i], ys[i])
        for got, want in zip(jax.tree_leaves(per_example), jax.tree_leaves(expected), strict=True):
            np.testing.assert_allclose(_np(got)[i], _np(want), rtol=1e-5, atol=1e-6)


def test_jacrev_matches_vmap_of_vjp_for_a_matrix_function(rng):
    m = jnp.asarray(rng.normal(size=(3, 4)).astype(np.float32))

    def f(x):
        return jnp.tanh(jnp.dot(m, x))

    x = jnp.asarray(rng.normal(size=4).astype(np.float32))
    rows = vmap(lambda c: jax.vjp(f, x)[1](c)[0])(jnp.eye(3))
    columns = vmap(lambda t: jax.jvp(f, (x,), (t,))[1], out_axes=1)(jnp.eye(4))
    np.testing.assert_allclose(_np(rows), _np(jax.jacrev(f)(x)), rtol=1e-5)
    np.testing.assert_allclose(_np(columns), _np(jax.jacfwd(f)(x)), rtol=1e-5)
