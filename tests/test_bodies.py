"""The StableHLO module is the whole truth: control flow is `stablehlo.while`/`case` with its body
in regions, custom rules travel with the function that owns them, nothing global keeps a trace or
a user's array alive, and a module written by hand goes through every rewrite.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax._src import core
from stablax._src import ir as mlir
from stablax._src.bodies import aval_of_value
from stablax._src.interpreters.interpret import call_traced, interpret
from stablax._src.ir import ir
from stablax._src.test_util import check_grads

# --- nothing global keeps traces or arrays alive -----------------------------------------------


def test_arrays_closed_over_by_a_scan_body_die_with_their_caller():
    refs = []
    for i in range(5):
        big = jnp.ones(1000) * i
        refs.append(weakref.ref(big))

        def loss(x, big=big):
            c, _ = lax.scan(lambda c, _: (c + jnp.sum(big) * x, None), 0.0, None, length=3)
            return c

        np.testing.assert_allclose(float(stablax.grad(loss)(1.0)), 3 * 1000 * i)
        del big, loss
    gc.collect()
    assert [r() for r in refs] == [None] * 5


def _grad_through_a_custom_vjp_in_a_loop(w):
    @stablax.custom_vjp
    def f(x):
        return x * w

    f.defvjp(lambda x: (x * w, None), lambda _, g: (g * w,))
    loop = lambda x: jnp.sum(lax.fori_loop(0, 2, lambda j, c: f(c), x))  # noqa: E731
    return stablax.grad(loop)(jnp.ones(4))


def test_arrays_closed_over_by_custom_rules_and_loops_die_with_their_caller():
    refs = []
    for i in range(3):
        w = jnp.full(4, float(i))
        refs.append(weakref.ref(w))
        g = _grad_through_a_custom_vjp_in_a_loop(w)
        np.testing.assert_allclose(np.asarray(g), np.full(4, float(i) ** 2))
        del w, g
    gc.collect()
    assert [r() for r in refs] == [None] * 3


# --- custom rules belong to the function being traced ------------------------------------------


@stablax.custom_vjp
def _sin_value_dependent(x):
    return jnp.sin(x)


def _fwd(x):
    # One residual for x > 0, two otherwise: the residual structure depends on the value.
    if x > 0:
        return jnp.sin(x), (jnp.cos(x),)
    return jnp.sin(x), (jnp.cos(x), jnp.ones_like(x))


def _bwd(res, g):
    return (res[0] * g if len(res) == 1 else res[0] * res[1] * g,)


_sin_value_dependent.defvjp(_fwd, _bwd)


def test_independent_vjps_of_one_custom_vjp_function_do_not_interfere():
    _, pb1 = stablax.vjp(_sin_value_dependent, 1.0)
    _, pb2 = stablax.vjp(_sin_value_dependent, -1.0)
    np.testing.assert_allclose(float(pb1(1.0)[0]), np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(float(pb2(1.0)[0]), np.cos(-1.0), rtol=1e-6)
    np.testing.assert_allclose(float(pb1(2.0)[0]), 2 * np.cos(1.0), rtol=1e-6)


@stablax.custom_jvp
def _branchy(x):
    if x > 0:  # Python control flow on a value in the primal...
        return jnp.sin(x)
    return x


@_branchy.defjvp
def _branchy_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    if x > 0:  # ... and in the rule
        return _branchy(x), 2.0 * t
    return _branchy(x), -1.0 * t


def test_grad_of_custom_jvp_with_python_control_flow_on_values_outside_jit():
    assert float(stablax.grad(_branchy)(1.0)) == 2.0
    assert float(stablax.grad(_branchy)(-1.0)) == -1.0
    assert float(stablax.jvp(_branchy, (1.0,), (3.0,))[1]) == 6.0
    with pytest.raises(stablax.errors.ConcretizationTypeError):
        stablax.jit(stablax.grad(_branchy))(1.0)


def test_payloads_are_owned_by_the_traced_function():
    from stablax._src.interpreters.custom_jvp import CustomJvp

    @stablax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 5.0 * t[0]))
    traced = stablax.jit(lambda x: f(x) * 2).lower(1.0)._traced
    assert any(isinstance(p, CustomJvp) and p.custom is f for p in traced.payloads.values())
    assert "func.func private @custom_jvp_0" in traced.text()
    again = core.trace_to_func(lambda *xs: interpret(traced, xs), traced.in_avals)
    assert again.text() == traced.text()
    assert [type(p) for p in again.payloads.values()] == [CustomJvp]
    assert float(stablax.grad(lambda x: interpret(traced, [x])[0])(1.0)) == 10.0


# --- control flow is StableHLO -----------------------------------------------------------------


def test_control_flow_is_while_and_case_with_regions():
    def fun(x):
        y = lax.cond(x[0] > 0, jnp.sin, jnp.cos, x)
        z = lax.while_loop(lambda c: c[0] < 10, lambda c: c * 2 + y, y + 1)
        _, w = lax.scan(lambda c, v: (c + v, c), 0.0, z)
        return w

    text = stablax.jit(fun).lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo.case" in text and text.count("stablehlo.while") == 2
    assert "stablax.scan = {length = 3" in text
    assert "func.call @scan_body_0" in text
    assert "custom_call" not in text


# --- a module written by hand goes through every rewrite ---------------------------------------

FOREIGN = """
module {
  func.func public @main(%x: tensor<3xf32>, %n: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %y = stablehlo.multiply %x, %x : tensor<3xf32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i32>, tensor<3xf32>
     cond {
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %c1 : tensor<i32>
      %s = stablehlo.sine %a : tensor<3xf32>
      %b = stablehlo.add %s, %y : tensor<3xf32>
      stablehlo.return %i1, %b : tensor<i32>, tensor<3xf32>
    }
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %idx = stablehlo.remainder %n, %c2 : tensor<i32>
    %o = "stablehlo.case"(%idx) ({
      %t = stablehlo.cosine %x : tensor<3xf32>
      stablehlo.return %t : tensor<3xf32>
    }, {
      %t = stablehlo.multiply %y, %x : tensor<3xf32>
      %u = stablehlo.tanh %t : tensor<3xf32>
      stablehlo.return %u : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    return %r#1, %o : tensor<3xf32>, tensor<3xf32>
  }
}
"""


def _foreign(text: str) -> core.TracedFunction:
    """A module that did not come from stablax's tracer, read like a traced function."""
    with mlir.context():
        module = ir.Module.parse(text)
        block = module.body.operations[0].regions[0].blocks[0]
        ops = list(block.operations)
        in_avals = [aval_of_value(a) for a in block.arguments]
        out_avals = [aval_of_value(v) for v in ops[len(ops) - 1].operands]
    return core.TracedFunction(module, in_avals, out_avals, [])


def _reference(x, n):
    a = x.astype(np.float64)
    for _ in range(n):
        a = np.sin(a) + x * x
    return a, (np.cos(x) if n % 2 == 0 else np.tanh(x * x * x))


X = np.array([0.3, -0.5, 0.8], np.float32)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_foreign_module_runs_eagerly_and_under_jit(n):
    fn = _foreign(FOREIGN)

    def f(x, k):
        return tuple(call_traced(fn, [x, k]))

    for run in (f, stablax.jit(f)):
        got = run(X, np.int32(n))
        for g, w in zip(got, _reference(X, n), strict=True):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [1, 2])
def test_foreign_module_under_jvp_vmap_and_linearize(n):
    fn = _foreign(FOREIGN)

    def f(x):
        return call_traced(fn, [x, np.int32(n)])

    t = np.array([1.0, 0.5, -2.0], np.float32)
    eps = 1e-3
    _, tangents = stablax.jvp(f, (X,), (t,))
    x64 = X.astype(np.float64)
    for tangent, plus, minus in zip(
        tangents, _reference(x64 + eps * t, n), _reference(x64 - eps * t, n), strict=True
    ):
        np.testing.assert_allclose(np.asarray(tangent), (plus - minus) / (2 * eps), rtol=2e-3)
    _, f_jvp = stablax.linearize(f, X)
    for a, b in zip(f_jvp(t), tangents, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5)
    xs = np.stack([X, X * 2, -X]).astype(np.float32)
    batched = stablax.vmap(f)(xs)
    for k, x in enumerate(xs):
        for got, want in zip(batched, _reference(x, n), strict=True):
            np.testing.assert_allclose(np.asarray(got)[k], want, rtol=1e-5, atol=1e-6)
    ns = np.array([0, 1, 2, 3], np.int32)  # a batched trip count and branch index
    per_n = stablax.vmap(lambda k: tuple(call_traced(fn, [X, k])))(ns)
    for k, m in enumerate(ns):
        for got, want in zip(per_n, _reference(X, int(m)), strict=True):
            np.testing.assert_allclose(np.asarray(got)[k], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [2, 3])
def test_foreign_case_under_reverse_mode(n):
    fn = _foreign(FOREIGN)

    def case_output(x):
        return call_traced(fn, [x, np.int32(n)])[1]

    check_grads(case_output, (X,), order=2, modes=("fwd", "rev"), rtol=2e-2)
    g = stablax.grad(lambda x: jnp.sum(case_output(x)))(X)
    x = X.astype(np.float64)
    want = -np.sin(x) if n % 2 == 0 else (1 - np.tanh(x**3) ** 2) * 3 * x**2
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        stablax.grad(lambda x: jnp.sum(call_traced(fn, [x, np.int32(n)])[0]))(X)


FOREIGN_IF = """
module {
  func.func public @main(%x: tensor<3xf32>, %p: tensor<i1>) -> tensor<3xf32> {
    %y = stablehlo.multiply %x, %x : tensor<3xf32>
    %o = "stablehlo.if"(%p) ({
      %t = stablehlo.sine %y : tensor<3xf32>
      stablehlo.return %t : tensor<3xf32>
    }, {
      %t = stablehlo.multiply %y, %x : tensor<3xf32>
      stablehlo.return %t : tensor<3xf32>
    }) : (tensor<i1>) -> tensor<3xf32>
    return %o : tensor<3xf32>
  }
}
"""


@pytest.mark.parametrize("pred", [True, False])
def test_foreign_if_through_every_rewrite(pred):
    fn = _foreign(FOREIGN_IF)
    default = np.bool_(pred)

    def f(x, p=default):
        return call_traced(fn, [x, p])[0]

    x = X.astype(np.float64)
    want = np.sin(x * x) if pred else x**3
    np.testing.assert_allclose(np.asarray(f(X)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(stablax.jit(f)(X)), want, rtol=1e-6)
    check_grads(f, (X,), order=2, modes=("fwd", "rev"), rtol=2e-2)
    preds = np.array([True, False, pred])
    batched = stablax.vmap(lambda p: f(X, p))(preds)
    for k, p in enumerate(preds):
        np.testing.assert_allclose(np.asarray(batched)[k], np.sin(x * x) if p else x**3, rtol=1e-6)
