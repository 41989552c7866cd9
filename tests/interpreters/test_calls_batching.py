"""vmap of custom_jvp, custom_vjp and checkpoint calls, and its compositions with grad.

The user rules are deliberately different from the true derivatives, so a test can tell that the
batched function still runs them. Per-example gradients (vmap of grad) and gradients of batched
functions (grad of vmap) are checked against a loop over the examples and the closed forms.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax

RNG = np.random.default_rng(0)
XS = np.linspace(0.1, 1.2, 12, dtype=np.float32).reshape(4, 3)


def close(actual, expected, tol=1e-5):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=tol, atol=tol)


def loop(fun, *args, in_axes):
    """stack([fun(*example) for each example]): the reference for vmap."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes, strict=True) if ax is not None)
    outs = []
    for b in range(size):
        example = [a if ax is None else np.take(a, b, ax) for a, ax in zip(args, in_axes)]
        outs.append(fun(*example))
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *outs)


def module_text(fun, *args):
    return str(jax.make_jaxpr(fun)(*args))


# --- custom_jvp --------------------------------------------------------------------------------


@jax.custom_jvp
def sin_times(x, y):
    return jnp.sin(x) * y


@sin_times.defjvp
def _sin_times_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return sin_times(x, y), 10.0 * x * y * tx + jnp.sin(x) * ty  # not cos(x) * y * tx


def _fake_dx(x, y):
    return 10.0 * x * y


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 0)])
def test_vmap_custom_jvp_values_and_one_call(in_axes):
    x = XS if in_axes[0] != 1 else XS.T
    y = XS[:, 0] if in_axes[1] is not None else np.float32(1.5)
    if in_axes[0] is None:
        x = XS[0]
    f = jax.vmap(sin_times, in_axes=in_axes)
    expected = loop(sin_times, x, y, in_axes=in_axes)
    close(f(x, y), expected)
    close(jax.jit(f)(x, y), expected)
    text = module_text(f, x, y)
    assert text.count("call @custom_jvp") == 1 and "stablehlo.while" not in text


@pytest.mark.parametrize(
    "transform",
    [
        lambda f: jax.grad(lambda xs, y: jax.vmap(f, in_axes=(0, None))(xs, y).sum()),
        lambda f: jax.jit(jax.grad(lambda xs, y: jax.vmap(f, in_axes=(0, None))(xs, y).sum())),
        lambda f: jax.vmap(jax.grad(lambda x, y: f(x, y).sum()), in_axes=(0, None)),
        lambda f: jax.jit(jax.vmap(jax.grad(lambda x, y: f(x, y).sum()), in_axes=(0, None))),
        lambda f: (
            lambda xs, y: jax.jvp(
                lambda xs: jax.vmap(f, in_axes=(0, None))(xs, y), (xs,), (jnp.ones_like(xs),)
            )[1]
        ),
        lambda f: jax.vmap(
            lambda x, y: jax.jvp(lambda x: f(x, y), (x,), (jnp.ones_like(x),))[1],
            in_axes=(0, None),
        ),
    ],
    ids=["grad-vmap", "jit-grad-vmap", "vmap-grad", "jit-vmap-grad", "jvp-vmap", "vmap-jvp"],
)
def test_custom_jvp_rule_survives_batching(transform):
    y = np.float32(1.5)
    close(transform(sin_times)(XS, y), _fake_dx(XS, y))


def test_grad_of_vmap_custom_jvp_unbatched_argument_sums_over_examples():
    g = jax.grad(lambda y: jax.vmap(sin_times, in_axes=(0, None))(XS, y).sum())(np.float32(1.5))
    close(g, np.sin(XS).sum(), 1e-4)


def test_vmap_of_vmap_custom_jvp_and_its_gradient():
    x3 = np.stack([XS, 2 * XS])  # (2, 4, 3)
    f = jax.vmap(jax.vmap(sin_times, in_axes=(0, None)), in_axes=(0, None))
    close(f(x3, np.float32(2.0)), np.sin(x3) * 2.0)
    g = jax.grad(lambda x: f(x, np.float32(2.0)).sum())(x3)
    close(g, _fake_dx(x3, 2.0), 1e-4)


@pytest.mark.parametrize(
    "name, fun, dfun",
    [
        ("relu", jax.nn.relu, lambda x: (x > 0).astype(np.float32)),
        ("times-literal", None, lambda x: np.full_like(x, 3.0)),
    ],
)
@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit], ids=["eager", "jit"])
def test_reverse_mode_of_vmap_custom_jvp_with_constants_in_its_body(name, fun, dfun, wrap):
    # The body's constants (relu's 0, a literal) were emitted into the linear function when the
    # vmapped rule ran under linearize, which then failed with UnexpectedTracerError.
    if fun is None:
        fun = jax.custom_jvp(lambda x: x * 2.0)
        fun.defjvps(lambda t, ans, x: t * 3.0)
    x = XS[0] - 0.5
    g = wrap(jax.grad(lambda w: jnp.sum(jax.vmap(fun)(w))))(x)
    close(g, dfun(x))
    _, lin = jax.linearize(jax.vmap(fun), x)
    close(lin(np.ones_like(x)), dfun(x))


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def scaled_tree(scale, tree):
    return tree["a"] * scale + jnp.sum(tree["b"]) * tree["n"]


@scaled_tree.defjvp
def _scaled_tree_jvp(scale, primals, tangents):
    (tree,), (t,) = primals, tangents
    return scaled_tree(scale, tree), 3.0 * scale * t["a"] + jnp.sum(t["b"])


def test_custom_jvp_with_nondiff_argument_pytree_and_integer_leaf():
    tree = {"a": XS, "b": XS[:, :2] * 2.0, "n": np.arange(4, dtype=np.int32)}
    axes = ({"a": 0, "b": 0, "n": 0},)
    f = jax.vmap(partial(scaled_tree, 2.0), in_axes=axes)
    expected = XS * 2.0 + (XS[:, :2] * 2.0).sum(1)[:, None] * np.arange(4)[:, None]
    close(f(tree), expected)
    g = jax.grad(lambda a: f({**tree, "a": a}).sum())(XS)
    close(g, np.full_like(XS, 6.0))


def test_custom_jvp_with_unbatched_output_is_broadcast():
    @jax.custom_jvp
    def first_only(x, y):
        return x * 2.0, y + 1.0

    first_only.defjvp(lambda p, t: (first_only(*p), (t[0] * 5.0, t[1] * 7.0)))
    a, b = jax.vmap(first_only, in_axes=(0, None))(XS, np.float32(1.0))
    close(a, XS * 2.0)
    close(b, np.full((4,), 2.0))
    g = jax.grad(lambda y: jax.vmap(first_only, in_axes=(0, None))(XS, y)[1].sum())(1.0)
    close(g, 4 * 7.0)


def test_custom_jvp_closing_over_a_batched_value_is_an_error():
    def f(x, y):
        @jax.custom_jvp
        def g(x):
            return x * y

        g.defjvp(lambda p, t: (g(*p), t[0] * y))
        return g(x)

    with pytest.raises(NotImplementedError, match=r"\[vmap\].*closes over batched values"):
        jax.vmap(f)(XS, XS)


# --- custom_vjp --------------------------------------------------------------------------------


@jax.custom_vjp
def dense(x, w):
    return jnp.tanh(x @ w)


def _dense_fwd(x, w):
    y = jnp.tanh(x @ w)
    return y, (x, w, y)


def _dense_bwd(res, ct):
    x, w, y = res
    g = 3.0 * ct * (1 - y * y)  # three times the true cotangent
    return g @ w.T, jnp.outer(x, g)


dense.defvjp(_dense_fwd, _dense_bwd)
W = RNG.standard_normal((3, 2)).astype(np.float32)


def _dense_loss(w, x):
    return dense(x, w).sum()


def _fake_grads(w, x):
    y = np.tanh(x @ w)
    g = 3.0 * (1 - y * y)
    return np.outer(x, g), g @ w.T


def test_vmap_custom_vjp_values():
    f = jax.vmap(dense, in_axes=(0, None))
    close(f(XS, W), np.tanh(XS @ W))
    close(jax.jit(f)(XS, W), np.tanh(XS @ W))


@pytest.mark.parametrize("jit", [False, True])
def test_per_example_gradients_of_custom_vjp(jit):
    per_example = jax.vmap(jax.grad(_dense_loss), in_axes=(None, 0))
    per_example = jax.jit(per_example) if jit else per_example
    expected = np.stack([_fake_grads(W, x)[0] for x in XS])
    close(per_example(W, XS), expected)
    close(per_example(W, XS), loop(jax.grad(_dense_loss), W, XS, in_axes=(None, 0)))


def test_grad_of_vmap_custom_vjp_uses_vmapped_bwd():
    batched_loss = jax.vmap(_dense_loss, in_axes=(None, 0))
    gw, gx = jax.grad(lambda w, xs: batched_loss(w, xs).sum(), argnums=(0, 1))(W, XS)
    fakes = [_fake_grads(W, x) for x in XS]
    close(gw, sum(f[0] for f in fakes), 1e-4)  # W is shared: the examples' cotangents add up
    close(gx, np.stack([f[1] for f in fakes]))


def test_custom_vjp_bwd_returning_none_under_vmap():
    @jax.custom_vjp
    def scale(x, s):
        return x * s

    scale.defvjp(lambda x, s: (x * s, s), lambda s, ct: (2.0 * ct * s, None))
    g = jax.grad(lambda xs: jax.vmap(scale, in_axes=(0, None))(xs, 3.0).sum())(XS)
    close(g, np.full_like(XS, 6.0))
    gs = jax.grad(lambda s: jax.vmap(scale, in_axes=(0, None))(XS, s).sum())(3.0)
    close(gs, 0.0)


def test_forward_mode_of_vmapped_custom_vjp_is_an_error():
    f = jax.vmap(dense, in_axes=(0, None))
    with pytest.raises(TypeError, match="forward-mode"):
        jax.jvp(lambda xs: f(xs, W), (XS,), (jnp.ones_like(XS),))


@jax.custom_vjp
def sin_fake_vjp(x):
    return jnp.sin(x)


sin_fake_vjp.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, ct: (3.0 * c * ct,))


def test_batched_custom_vjp_marker_transposes_with_vmapped_bwd():
    # vmap over the linear function of a custom_vjp function batches its linear marker.
    x = np.full((3,), 0.7, np.float32)
    _, f_jvp = jax.linearize(sin_fake_vjp, x)
    cts = np.arange(12, dtype=np.float32).reshape(4, 3)
    (t,) = jax.linear_transpose(jax.vmap(f_jvp), cts)(cts)
    close(t, 3.0 * np.cos(x) * cts)

    def lin_at(x, t):
        return jax.linearize(sin_fake_vjp, x)[1](t)

    (t,) = jax.linear_transpose(lambda t: jax.vmap(lin_at)(XS, t), cts)(cts)
    close(t, 3.0 * np.cos(XS) * cts)
    shared = jax.linear_transpose(lambda t: jax.vmap(lin_at, in_axes=(0, None))(XS, t), cts[0])
    close(shared(cts)[0], (3.0 * np.cos(XS) * cts).sum(0))


# --- checkpoint --------------------------------------------------------------------------------


def _body(x, w):
    return jnp.sin(jnp.sin(x @ w) * 2.0)


def _body_grad(w, x):
    return jax.grad(lambda w: _body(x, w).sum())(w)


@pytest.mark.parametrize("policy", [None, jax.checkpoint_policies.dots_saveable])
def test_vmap_checkpoint_stays_a_checkpoint(policy):
    remat = jax.checkpoint(_body, policy=policy)
    f = jax.vmap(remat, in_axes=(0, None))
    close(f(XS, W), np.sin(np.sin(XS @ W) * 2.0))
    assert "call @remat" in module_text(f, XS, W)
    per_example = jax.vmap(jax.grad(lambda w, x: remat(x, w).sum()), in_axes=(None, 0))
    expected = loop(_body_grad, W, XS, in_axes=(None, 0))
    close(per_example(W, XS), expected, 1e-4)
    total = jax.grad(lambda w: f(XS, w).sum())(W)
    close(total, expected.sum(0), 1e-4)
    close(jax.jit(jax.grad(lambda w: f(XS, w).sum()))(W), expected.sum(0), 1e-4)


def test_checkpoint_closing_over_a_batched_value():
    def f(x, y):
        return jax.checkpoint(lambda x: jnp.sin(x * y))(x)

    close(jax.vmap(f)(XS, XS + 1.0), np.sin(XS * (XS + 1.0)))
    g = jax.grad(lambda y: jax.vmap(f)(XS, y).sum())(XS + 1.0)
    close(g, np.cos(XS * (XS + 1.0)) * XS)


def test_custom_jvp_inside_checkpoint_under_vmap_and_grad():
    remat = jax.checkpoint(lambda x, y: sin_times(x, y) * 2.0)
    g = jax.grad(lambda xs: jax.vmap(remat, in_axes=(0, None))(xs, 1.5).sum())(XS)
    close(g, 2.0 * _fake_dx(XS, 1.5), 1e-4)


# --- per-example gradients through the batched lax ops -----------------------------------------


def _cnn_loss(params, x, label):
    h = jnp.tanh(lax.conv(x[None], params["k"], (1, 1), "SAME"))
    h = lax.conv_general_dilated(h, params["dw"], (1, 1), "VALID", feature_group_count=4)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 1, 1), "VALID")
    h = jnp.reshape(lax.cumsum(h, axis=3)[:, :, :3, :3], (1, 36))
    scores = h @ params["w"]
    extra = 0.1 * lax.top_k(scores, 2)[0].sum() + 0.05 * lax.sort(scores, dimension=1)[0, -1]
    logits = scores[0]
    return jnp.log(jnp.sum(jnp.exp(logits))) - logits[label] + extra


CNN = {
    "k": RNG.standard_normal((4, 2, 3, 3)).astype(np.float32) * 0.3,
    "dw": RNG.standard_normal((4, 1, 2, 2)).astype(np.float32) * 0.3,
    "w": RNG.standard_normal((36, 3)).astype(np.float32) * 0.1,
}
IMAGES = RNG.standard_normal((3, 2, 6, 6)).astype(np.float32)
LABELS = np.array([0, 2, 1], np.int32)


def test_per_example_gradients_of_a_small_cnn():
    expected = loop(jax.grad(_cnn_loss), CNN, IMAGES, LABELS, in_axes=(None, 0, 0))
    per_example = jax.vmap(jax.grad(_cnn_loss), in_axes=(None, 0, 0))
    for grads in (per_example(CNN, IMAGES, LABELS), jax.jit(per_example)(CNN, IMAGES, LABELS)):
        for name in CNN:
            close(grads[name], expected[name], 1e-4)
    assert "stablehlo.while" not in module_text(per_example, CNN, IMAGES, LABELS)


def test_gradient_of_a_batched_small_cnn():
    expected = loop(jax.grad(_cnn_loss, argnums=(0, 1)), CNN, IMAGES, LABELS, in_axes=(None, 0, 0))
    batched = jax.vmap(_cnn_loss, in_axes=(None, 0, 0))
    g_params, g_images = jax.grad(lambda p, xs: batched(p, xs, LABELS).sum(), argnums=(0, 1))(
        CNN, IMAGES
    )
    for name in CNN:
        close(g_params[name], expected[0][name].sum(0), 1e-4)
    close(g_images, expected[1], 1e-4)


# --- batched init values -----------------------------------------------------------------------


@pytest.mark.parametrize("computation", [lax.add, lax.mul, lax.max, lax.min])
@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (1, 0)])
def test_batched_init_values_of_reduce_and_reduce_window(computation, in_axes):
    x = XS.T if in_axes[0] == 1 else (XS[0] if in_axes[0] is None else XS)
    inits = np.array([0.5, -1.0, 2.0, 0.25], np.float32)

    def window(x, init):
        return lax.reduce_window(x, init, computation, (2,), (1,), ((1, 2),), base_dilation=(2,))

    def reduce(x, init):
        return lax.reduce(x, init, computation, (0,))

    for fun in (window, reduce):
        close(jax.vmap(fun, in_axes=in_axes)(x, inits), loop(fun, x, inits, in_axes=in_axes))
