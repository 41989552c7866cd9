"""custom_jvp, custom_vjp and checkpoint: user rules replace the derivative, under jit and grad.

The rules are deliberately different from the true derivative, so a test can tell which one ran.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from tests.helpers import close, live_op_count

# --- custom_jvp --------------------------------------------------------------------------------


@stablax.custom_jvp
def sin_with_fake_jvp(x):
    return jnp.sin(x)


@sin_with_fake_jvp.defjvp
def _sin_fake_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return sin_with_fake_jvp(x), 10.0 * x * t  # not cos(x) * t


def test_custom_jvp_primal_value():
    close(sin_with_fake_jvp(0.5), np.sin(0.5))
    close(stablax.jit(sin_with_fake_jvp)(0.5), np.sin(0.5))


@pytest.mark.parametrize(
    "transform",
    [
        lambda f: stablax.grad(f),
        lambda f: stablax.jit(stablax.grad(f)),
        lambda f: stablax.grad(stablax.jit(f)),
        lambda f: stablax.grad(lambda x: f(x) * 1.0),
        lambda f: lambda x: stablax.jvp(f, (x,), (1.0,))[1],
        lambda f: lambda x: stablax.vjp(f, x)[1](1.0)[0],
    ],
    ids=["grad", "jit-grad", "grad-jit", "grad-composed", "jvp", "vjp"],
)
def test_custom_jvp_rule_replaces_derivative(transform):
    close(transform(sin_with_fake_jvp)(0.5), 5.0)


def test_custom_jvp_second_order_differentiates_the_rule():
    close(stablax.grad(stablax.grad(sin_with_fake_jvp))(0.5), 10.0)


def test_custom_jvp_under_jit_vectors():
    x = np.array([0.1, 0.2, 0.3], np.float32)
    g = stablax.jit(stablax.grad(lambda v: jnp.sum(sin_with_fake_jvp(v) ** 2)))(x)
    close(g, 2 * np.sin(x) * 10.0 * x)


def test_custom_jvp_defjvps():
    @stablax.custom_jvp
    def f(x, y):
        return x * y

    f.defjvps(lambda tx, out, x, y: 3.0 * tx, lambda ty, out, x, y: 5.0 * ty * x)
    gx, gy = stablax.grad(f, argnums=(0, 1))(2.0, 4.0)
    assert (float(gx), float(gy)) == (3.0, 10.0)
    y, t = stablax.jvp(f, (2.0, 4.0), (1.0, 1.0))
    assert (float(y), float(t)) == (8.0, 13.0)


def test_custom_jvp_nondiff_argnums():
    @partial(stablax.custom_jvp, nondiff_argnums=(0,))
    def apply(fn, x):
        return fn(x)

    @apply.defjvp
    def apply_jvp(fn, primals, tangents):
        (x,), (t,) = primals, tangents
        return apply(fn, x), 7.0 * t

    close(apply(jnp.sin, 1.0), np.sin(1.0))
    assert float(stablax.grad(lambda x: apply(jnp.sin, x))(1.0)) == 7.0
    assert float(stablax.jit(stablax.grad(lambda x: apply(jnp.cos, x)))(1.0)) == 7.0


def test_custom_jvp_pytree_arguments_and_kwargs():
    @stablax.custom_jvp
    def f(d, scale=2.0):
        return {"s": d["a"] * d["b"] * scale}

    @f.defjvp
    def f_jvp(primals, tangents):
        (d, scale), (td, _) = primals, tangents
        return f(d, scale), {"s": td["a"] * 100.0 + td["b"]}

    g = stablax.grad(lambda d: f(d, scale=3.0)["s"])({"a": 2.0, "b": 3.0})
    assert (float(g["a"]), float(g["b"])) == (100.0, 1.0)


def test_custom_jvp_without_rule_raises():
    @stablax.custom_jvp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined"):
        f(1.0)


# --- custom_vjp --------------------------------------------------------------------------------


@stablax.custom_vjp
def scaled_product(x, y):
    return jnp.sin(x) * y


def _scaled_product_fwd(x, y):
    return scaled_product(x, y), {"cos": jnp.cos(x), "pair": (jnp.sin(x), y)}


def _scaled_product_bwd(res, g):
    return 100.0 * res["cos"] * res["pair"][1] * g, res["pair"][0] * g


scaled_product.defvjp(_scaled_product_fwd, _scaled_product_bwd)


@pytest.mark.parametrize(
    "transform",
    [
        lambda f: stablax.grad(f, argnums=(0, 1)),
        lambda f: stablax.jit(stablax.grad(f, argnums=(0, 1))),
        lambda f: stablax.grad(stablax.jit(f), argnums=(0, 1)),
        lambda f: lambda x, y: stablax.vjp(f, x, y)[1](1.0),
    ],
    ids=["grad", "jit-grad", "grad-jit", "vjp"],
)
def test_custom_vjp_rule_replaces_derivative(transform):
    gx, gy = transform(scaled_product)(1.0, 2.0)
    close(gx, 100.0 * np.cos(1.0) * 2.0)
    close(gy, np.sin(1.0))


def test_custom_vjp_primal_value():
    close(scaled_product(1.0, 2.0), 2 * np.sin(1.0))
    close(stablax.jit(scaled_product)(1.0, 2.0), 2 * np.sin(1.0))


def test_custom_vjp_nondiff_argnums_and_none_cotangent():
    @partial(stablax.custom_vjp, nondiff_argnums=(1,))
    def clip(x, lo):
        return jnp.maximum(x, lo)

    clip.defvjp(lambda x, lo: (clip(x, lo), x), lambda lo, x, g: (2.0 * g,))
    assert float(stablax.grad(lambda x: clip(x, 0.5))(1.0)) == 2.0
    assert float(stablax.jit(stablax.grad(lambda x: clip(x, 0.5)))(1.0)) == 2.0

    @stablax.custom_vjp
    def mul(x, y):
        return x * y

    mul.defvjp(lambda x, y: (mul(x, y), y), lambda y, g: (y * g, None))
    gx, gy = stablax.grad(mul, argnums=(0, 1))(2.0, 3.0)
    assert (float(gx), float(gy)) == (3.0, 0.0)


def test_jvp_of_custom_vjp_raises():
    with pytest.raises(
        TypeError, match="can't apply forward-mode autodiff \\(jvp\\) to a custom_vjp function"
    ):
        stablax.jvp(scaled_product, (1.0, 2.0), (1.0, 1.0))


# --- checkpoint --------------------------------------------------------------------------------


def _body(x):
    return jnp.sin(jnp.sin(x)) * jnp.cos(x)


def _mlp(w, x):
    return jnp.sum(jnp.tanh(jnp.dot(w, jnp.tanh(jnp.dot(w, x)))))


POLICIES = [
    None,
    stablax.checkpoint_policies.dots_saveable,
    stablax.checkpoint_policies.nothing_saveable,
]
W = np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)
X = np.array([0.5, -1.0, 2.0], np.float32)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_checkpoint_same_gradients(policy):
    remat_body = stablax.checkpoint(_body, policy=policy)
    close(remat_body(0.7), _body(0.7))
    close(stablax.grad(remat_body)(0.7), stablax.grad(_body)(0.7))
    close(stablax.jit(stablax.grad(remat_body))(0.7), stablax.grad(_body)(0.7))
    close(stablax.grad(stablax.grad(remat_body))(0.7), stablax.grad(stablax.grad(_body))(0.7))
    remat_mlp = stablax.checkpoint(_mlp, policy=policy)
    got = stablax.tree_leaves(stablax.value_and_grad(remat_mlp, argnums=(0, 1))(W, X))
    want = stablax.tree_leaves(stablax.value_and_grad(_mlp, argnums=(0, 1))(W, X))
    for a, b in zip(got, want, strict=True):
        close(a, b)


def test_checkpoint_static_argnums_and_closure():
    f = stablax.checkpoint(lambda y, n: y**n, static_argnums=(1,))
    assert float(stablax.grad(lambda x: f(x, 3))(2.0)) == 12.0
    g = stablax.grad(lambda x: jnp.sum(stablax.remat(lambda y: jnp.tanh(jnp.dot(W, y)))(x)))(X)
    close(g, W.T @ (1 - np.tanh(W @ X) ** 2), atol=1e-5)


@pytest.mark.parametrize("policy", [None, stablax.checkpoint_policies.nothing_saveable], ids=str)
def test_checkpoint_recomputes(policy):
    plain = str(stablax.make_jaxpr(stablax.value_and_grad(_mlp))(W, X))
    remat = str(
        stablax.make_jaxpr(stablax.value_and_grad(stablax.checkpoint(_mlp, policy=policy)))(W, X)
    )
    # Without remat each tanh is computed once and saved; with it, recomputed for the backward.
    assert live_op_count(plain, "stablehlo.tanh") == 2
    assert live_op_count(remat, "stablehlo.tanh") == 4
    assert live_op_count(remat, "stablehlo.dot_general") > live_op_count(
        plain, "stablehlo.dot_general"
    )


def test_checkpoint_dots_saveable_saves_dots():
    plain = str(stablax.make_jaxpr(stablax.value_and_grad(_mlp))(W, X))
    remat = str(
        stablax.make_jaxpr(
            stablax.value_and_grad(
                stablax.checkpoint(_mlp, policy=stablax.checkpoint_policies.dots_saveable)
            )
        )(W, X)
    )
    assert live_op_count(remat, "stablehlo.dot_general") == live_op_count(
        plain, "stablehlo.dot_general"
    )
    assert live_op_count(remat, "stablehlo.tanh") == 4


def test_checkpoint_unknown_policy():
    with pytest.raises(ValueError, match="unknown policy"):
        stablax.checkpoint(_body, policy="save_everything_please")


# --- more custom rules: pytrees, integers, composition -----------------------------------------


def test_custom_vjp_pytree_and_integer_arguments():
    @stablax.custom_vjp
    def f(d, n):
        return d["a"] * d["b"] * n

    f.defvjp(
        lambda d, n: (f(d, n), (d, n)), lambda res, g: ({"a": g * 10.0, "b": g * res[0]["a"]}, None)
    )
    for grad_f in (stablax.grad(f), stablax.jit(stablax.grad(f))):
        g = grad_f({"a": 2.0, "b": 3.0}, 4)
        assert (float(g["a"]), float(g["b"])) == (10.0, 2.0)


def test_custom_vjp_none_for_a_whole_pytree_argument():
    @stablax.custom_vjp
    def f(d, y):
        return d["a"] * d["b"] * y

    f.defvjp(lambda d, y: (f(d, y), None), lambda res, g: (None, 5.0 * g))
    gd, gy = stablax.grad(f, argnums=(0, 1))({"a": 2.0, "b": 3.0}, 4.0)
    assert (float(gd["a"]), float(gd["b"]), float(gy)) == (0.0, 0.0, 5.0)


def test_custom_vjp_bwd_errors():
    @stablax.custom_vjp
    def two(x):
        return x

    two.defvjp(lambda x: (x, None), lambda res, g: (g, g))
    with pytest.raises(TypeError, match="Custom VJP bwd rule must produce a tuple of length"):
        stablax.grad(two)(1.0)

    @stablax.custom_vjp
    def bare(x):
        return x

    bare.defvjp(lambda x: (x, None), lambda res, g: g)
    with pytest.raises(TypeError, match="Custom VJP bwd rule must produce a tuple"):
        stablax.grad(bare)(1.0)


def test_custom_vjp_composition():
    @stablax.custom_vjp
    def sq(x):
        return x * x

    sq.defvjp(lambda x: (sq(x), x), lambda x, g: (3.0 * x * g,))  # not 2 x g
    assert float(stablax.grad(lambda x: sq(x) + sq(2.0 * x))(1.0)) == 15.0
    assert float(stablax.grad(lambda x: sq(sq(x)))(1.0)) == 9.0
    assert float(stablax.grad(stablax.checkpoint(sq))(1.0)) == 3.0
    assert [float(stablax.vjp(sq, v)[1](1.0)[0]) for v in (1.0, 2.0)] == [3.0, 6.0]
    c = jnp.asarray(5.0)

    @stablax.custom_vjp
    def scale(x):
        return x * c

    scale.defvjp(lambda x: (scale(x), None), lambda res, g: (g * c * 2,))
    assert float(stablax.grad(scale)(1.0)) == 10.0


def test_custom_jvp_under_jacobians_and_linearize():
    x = np.array([0.3, 0.6], np.float32)
    close(stablax.jacfwd(sin_with_fake_jvp)(x), np.diag(10.0 * x))
    close(stablax.jacrev(sin_with_fake_jvp)(x), np.diag(10.0 * x))
    _, f_jvp = stablax.linearize(sin_with_fake_jvp, 0.5)
    close(f_jvp(2.0), 10.0)
    # d/dx (f(x)^2) = 2 f(x) * 10 x, so d^2/dx^2 = 20 (f'(x) x + f(x)) with f' = 10 x.
    close(stablax.hessian(lambda v: sin_with_fake_jvp(v) ** 2)(0.5), 20 * (5.0 * 0.5 + np.sin(0.5)))
    close(stablax.grad(stablax.checkpoint(sin_with_fake_jvp))(0.5), 5.0)


@stablax.custom_jvp
def _relu(x):
    return jnp.maximum(x, 0.0)


@_relu.defjvp
def _relu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    if x > 0:  # Python control flow on a primal value: allowed outside jit
        return _relu(x), 2.0 * t
    return _relu(x), 0.0 * t


def test_custom_jvp_rule_branches_on_values_under_jvp():
    assert float(stablax.jvp(_relu, (2.0,), (1.0,))[1]) == 2.0
    assert float(stablax.jvp(_relu, (-2.0,), (1.0,))[1]) == 0.0


def test_custom_jvp_rule_branches_on_values_under_grad():
    assert float(stablax.grad(_relu)(2.0)) == 2.0
    assert float(stablax.grad(_relu)(-2.0)) == 0.0


def test_custom_jvp_rule_branching_under_jit_raises():
    with pytest.raises(TypeError, match="lax.cond"):
        stablax.jit(stablax.grad(_relu))(2.0)


def test_custom_jvp_rules_made_in_a_loop_stay_distinct():
    def make(scale):
        @stablax.custom_jvp
        def f(x):
            return jnp.sin(x)

        f.defjvp(lambda p, t: (f(p[0]), scale * t[0]))
        return f

    assert [float(stablax.grad(make(s))(1.0)) for s in (1.0, 2.0, 3.0)] == [1.0, 2.0, 3.0]


def test_checkpoint_differentiates_closed_over_tracers():
    def outer(y):
        return stablax.checkpoint(lambda x: jnp.sin(x) * y)(1.0)

    close(stablax.grad(outer)(2.0), np.sin(1.0))
    y, t = stablax.jvp(outer, (2.0,), (1.0,))
    close(y, 2 * np.sin(1.0))
    close(t, np.sin(1.0))
    close(stablax.jit(stablax.grad(outer))(2.0), np.sin(1.0))


def test_checkpoint_uses_each_calls_closed_over_arrays():
    # The two bodies print the same, so they share one callee; each call passes its own array.
    for scale in (1.0, 2.0):
        w = jnp.full(3, scale)
        f = stablax.checkpoint(lambda x: jnp.sum(jnp.sin(x) * w))  # noqa: B023
        close(stablax.jvp(f, (jnp.zeros(3),), (jnp.ones(3),))[1], 3 * scale)
        close(stablax.grad(f)(jnp.zeros(3)), np.full(3, scale))


# --- JAX's conventions for nondiff arguments and symbolic zeros --------------------------------


def test_custom_vjp_fwd_takes_nondiff_arguments_in_their_positions():
    @partial(stablax.custom_vjp, nondiff_argnums=(1,))
    def scale(x, how):
        return x * how["k"]

    def fwd(x, how):  # JAX calls fwd with the arguments as the function takes them
        return scale(x, how), x

    scale.defvjp(fwd, lambda how, x, g: (g * how["k"] * 10.0,))
    how = {"k": 3.0}
    assert float(stablax.grad(lambda x: scale(x, how))(2.0)) == 30.0
    assert float(stablax.jit(stablax.grad(lambda x: scale(x, how)))(2.0)) == 30.0
    batched = stablax.vmap(stablax.grad(lambda x: scale(x, how)))(jnp.arange(3.0))
    np.testing.assert_array_equal(np.asarray(batched), [30.0, 30.0, 30.0])


def test_custom_vjp_rejects_traced_nondiff_arguments():
    @partial(stablax.custom_vjp, nondiff_argnums=(1,))
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, None), lambda y, _, g: (g,))
    with pytest.raises(stablax.errors.UnexpectedTracerError, match="nondiff_argnums"):
        stablax.jit(lambda x, y: f(x, y))(1.0, 2.0)


def test_custom_jvp_traced_nondiff_argument_reaches_the_rule_without_gradient():
    @partial(stablax.custom_jvp, nondiff_argnums=(1,))
    def f(x, k):
        return x * k

    @f.defjvp
    def f_jvp(k, primals, tangents):
        return f(primals[0], k), 5.0 * k * tangents[0]

    for run in (stablax.grad(f), stablax.jit(stablax.grad(f))):
        assert float(run(2.0, 3.0)) == 15.0
    # k's own derivative is stopped: d/dk f(x, k) through the rule is 0.
    assert float(stablax.grad(lambda k: f(2.0, k))(3.0)) == 0.0


def test_symbolic_zeros():
    seen = []

    @stablax.custom_jvp
    def f(x, y):
        return x * y

    @partial(f.defjvp, symbolic_zeros=True)
    def f_jvp(primals, tangents):
        seen.append(tuple(type(t).__name__ for t in tangents))
        (x, y), (tx, _) = primals, tangents
        tx = tx.instantiate() if type(tx) is stablax.custom_derivatives.SymbolicZero else tx
        return f(x, y), tx * y

    assert float(stablax.grad(f)(2.0, 3.0)) == 3.0
    assert "SymbolicZero" in seen[-1][1]

    @stablax.custom_vjp
    def g(x):
        return x * 2.0

    def g_fwd(x):
        assert type(x) is stablax.custom_derivatives.CustomVJPPrimal
        return g(x.value), None

    def g_bwd(_, ct):
        return (stablax.custom_derivatives.SymbolicZero(ct.aval),)

    g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
    assert float(stablax.grad(g)(1.0)) == 0.0


def test_custom_gradient():
    @stablax.custom_gradient
    def f(x):
        return x**2, lambda g: (3.0 * g * x,)  # not 2 x g

    assert float(f(2.0)) == 4.0
    assert float(stablax.grad(f)(2.0)) == 6.0
    assert float(stablax.jit(stablax.grad(f))(2.0)) == 6.0
    np.testing.assert_array_equal(
        np.asarray(stablax.vmap(stablax.grad(f))(jnp.arange(3.0))), [0.0, 3.0, 6.0]
    )


def test_linear_call_transposes_with_the_given_function():
    def f(scale, x):
        return scale * x

    def f_transpose(scale, ct):
        return 100.0 * scale * ct  # deliberately not the transpose of f

    def g(x):
        return stablax.custom_derivatives.linear_call(f, f_transpose, 2.0, x)

    assert float(g(3.0)) == 6.0
    assert float(stablax.jvp(g, (3.0,), (1.0,))[1]) == 2.0
    assert float(stablax.grad(g)(3.0)) == 200.0
