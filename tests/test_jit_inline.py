"""A jitted function called while tracing: traced once per argument signature under abstract
tracing (jit_inline.py), traced inline where values may be concrete or it closes over tracers."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax


def _counted():
    calls = []

    @stablax.jit
    def helper(x, y):
        calls.append(x.shape)
        return jnp.tanh(x) * y + stablax.nn.softplus(x)

    return helper, calls


def _reference(x, y):
    return np.tanh(x) * y + np.logaddexp(x, 0)


@pytest.mark.parametrize("transform", ["jit", "jit-grad", "jit-vmap", "jit-scan"])
def test_a_helper_called_many_times_is_traced_once(transform):
    helper, calls = _counted()
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(4, 3)

    def many(x):
        return sum(jnp.sum(helper(x[i], 2.0)) for i in range(4)) + jnp.sum(helper(x[0], 3.0))

    if transform == "jit":
        out = stablax.jit(many)(x)
        np.testing.assert_allclose(
            out,
            sum(_reference(x[i], 2.0).sum() for i in range(4)) + _reference(x[0], 3.0).sum(),
            rtol=1e-5,
        )
    elif transform == "jit-grad":
        expected = stablax.grad(many)(x)  # outside jit: traced inline at every call
        calls.clear()
        np.testing.assert_allclose(stablax.jit(stablax.grad(many))(x), expected, rtol=1e-5)
    elif transform == "jit-vmap":
        expected = stablax.jit(many)(-x)
        calls.clear()
        out = stablax.jit(stablax.vmap(many))(np.stack([x, -x]))
        np.testing.assert_allclose(out[1], expected, rtol=1e-5)
    else:
        out = stablax.jit(
            lambda x: lax.scan(lambda c, row: (c + jnp.sum(helper(row, 2.0)), 0.0), 0.0, x)[0]
        )(x)
        np.testing.assert_allclose(
            out, sum(_reference(x[i], 2.0).sum() for i in range(4)), rtol=1e-5
        )
    # The Python scalars 2.0 and 3.0 share a signature. vmap's trace of one example may see
    # concrete values (unbatched arguments), so there the helper is traced at every call.
    assert len(calls) == (5 if transform == "jit-vmap" else 1), calls


def test_new_shapes_and_static_values_trace_again():
    calls = []

    @stablax.jit
    def scaled(x, k):
        calls.append((x.shape, k))
        return x * k

    scaled = stablax.jit(scaled.__wrapped__, static_argnums=1)

    def f(x):
        return scaled(x, 2) + scaled(x, 2) + scaled(x, 3) + jnp.sum(scaled(x[:2], 2))

    # 2 + 2 + 3, plus the sum of two doubled ones
    np.testing.assert_allclose(stablax.jit(f)(np.ones(3, np.float32)), [11, 11, 11], rtol=1e-6)
    assert sorted(calls) == [((2,), 2), ((3,), 2), ((3,), 3)]


def test_concrete_values_under_eager_grad_keep_python_control_flow():
    @stablax.jit
    def relu_like(x):
        return x if x > 0 else 0.0 * x  # Python control flow on a value: fine outside jit

    grad = stablax.grad(lambda x: relu_like(x) + relu_like(x) * 2.0)
    assert float(grad(3.0)) == 3.0 and float(grad(-1.0)) == 0.0


def test_closures_over_traced_values_see_each_value():
    def outer(x):
        total = 0.0
        for k in range(3):
            y = x * (k + 1)

            @stablax.jit
            def add_y(z, y=y):  # closes over a different tracer each time
                return z + y

            total = total + add_y(x)
        return total

    np.testing.assert_allclose(stablax.jit(outer)(np.float32(2.0)), 2.0 * 3 + 2.0 * 6, rtol=1e-6)


def test_python_outputs_stay_python():
    @stablax.jit
    def with_meta(x):
        return x * 2, "label"

    def f(x):
        y, label = with_meta(x)
        assert label == "label"
        y2, _ = with_meta(x)
        return y + y2

    np.testing.assert_allclose(stablax.jit(f)(np.float32(1.0)), 4.0)


def test_errors_surface_as_without_the_cache():
    @stablax.jit
    def bad(x):
        return x @ x  # a 0-d matmul: the error names the operation and the user's line

    with pytest.raises(ValueError, match="matmul.*test_jit_inline.py"):
        stablax.jit(lambda x: bad(x) + bad(x))(np.float32(1.0))


def test_a_custom_jvp_rule_in_a_helper_called_many_times_runs_once():
    # Under jit(grad), the copies of a jitted helper share its custom_jvp call: the rule is
    # traced once per signature and its ops copied into the primal and linear functions.
    rule_calls = []

    @stablax.custom_jvp
    def scaled_sin(x, k):
        return jnp.sin(x) * k

    @scaled_sin.defjvp
    def _rule(primals, tangents):
        (x, k), (t, tk) = primals, tangents
        rule_calls.append(x.shape)
        return scaled_sin(x, k), 10.0 * x * t + tk  # not the true derivative

    helper = stablax.jit(lambda x, k: scaled_sin(x, k) * x)
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(4, 3)

    def many(x, k):
        return sum(jnp.sum(helper(x[i], k)) for i in range(4))

    expected_x = 10.0 * x * x + np.sin(x) * 2.0  # the rule's tangent times x, plus the output
    expected_k = np.sum(x)  # the k-tangent passes straight through, times x
    gx, gk = stablax.jit(stablax.grad(many, argnums=(0, 1)))(x, np.float32(2.0))
    np.testing.assert_allclose(gx, expected_x, rtol=1e-5)
    np.testing.assert_allclose(gk, expected_k, rtol=1e-5)
    assert len(rule_calls) == 1
    rule_calls.clear()
    gx_eager = stablax.grad(many)(x, np.float32(2.0))  # outside jit: the rule runs at each call
    np.testing.assert_allclose(gx_eager, expected_x, rtol=1e-5)
    assert len(rule_calls) == 4
