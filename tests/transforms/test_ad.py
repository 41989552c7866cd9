"""The user-facing autodiff API: jvp, linearize, vjp, grad, value_and_grad, Jacobians, transposes.

Values are checked against analytic derivatives computed with NumPy, or against central finite
differences (check_grads); errors against JAX's messages.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax, tree_util
from stablax._src import runtime
from stablax._src.core import ConcretizationTypeError
from stablax.test_util import check_grads
from tests.helpers import close

F0 = stablax.dtypes.float0


Pair = collections.namedtuple("Pair", "a b")


@tree_util.register_pytree_node_class
class Point:
    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z

    def tree_flatten(self):
        return (self.x, self.y, self.z), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


# --- jvp and linearize -------------------------------------------------------------------------


def test_jvp_values():
    x = np.array([0.3, -1.2, 2.0], np.float32)
    t = np.array([1.0, 0.5, -2.0], np.float32)
    y, ty = stablax.jvp(lambda v: jnp.sin(v) * v, (x,), (t,))
    close(y, np.sin(x) * x)
    close(ty, (np.cos(x) * x + np.sin(x)) * t)


def test_jvp_two_args_and_aux():
    (y, ty, aux) = stablax.jvp(
        lambda a, b: (a * b**2, {"a": a}), (2.0, 3.0), (1.0, 0.0), has_aux=True
    )
    assert float(y) == 18.0 and float(ty) == 9.0
    assert float(aux["a"]) == 2.0


def test_jvp_pytree_output_and_integer_output():
    out, tan = stablax.jvp(lambda x: {"s": jnp.sin(x), "l": [x, jnp.int32(3)]}, (1.0,), (2.0,))
    close(out["s"], np.sin(1.0))
    close(tan["s"], 2 * np.cos(1.0))
    assert float(tan["l"][0]) == 2.0
    assert tan["l"][1].dtype == F0 and int(out["l"][1]) == 3


def test_jvp_integer_input_takes_float0_tangent():
    y, ty = stablax.jvp(lambda x, n: x * n, (2.0, 3), (1.0, np.zeros((), F0)))
    assert float(y) == 6.0 and float(ty) == 3.0


def test_jvp_primal_output_keeps_weak_type():
    y, _ = stablax.jvp(lambda x: x * 2, (1.0,), (1.0,))
    assert y.weak_type


@pytest.mark.parametrize(
    "primals,tangents,error,match",
    [
        ((np.ones(3, np.float32),), (np.ones(3, np.int32),), TypeError, "dtypes must be equal"),
        ((1.0,), (1,), TypeError, "dtypes must be equal"),
        ((np.ones(3, np.float32),), (np.ones(2, np.float32),), ValueError, "shape"),
        ((1.0, 2.0), (1.0,), TypeError, "same tree structure"),
    ],
)
def test_jvp_errors(primals, tangents, error, match):
    with pytest.raises(error, match=match):
        stablax.jvp(lambda *xs: sum(xs), primals, tangents)


def test_jvp_requires_tuples():
    with pytest.raises(TypeError, match="tuples or lists"):
        stablax.jvp(jnp.sin, 1.0, 1.0)


def test_linearize_matches_jvp():
    f = lambda x: jnp.sin(x) * jnp.exp(x)  # noqa: E731
    x = np.array([0.1, 0.7], np.float32)
    y, f_jvp = stablax.linearize(f, x)
    close(y, np.sin(x) * np.exp(x))
    for t in (np.array([1.0, 0.0], np.float32), np.array([0.5, -3.0], np.float32)):
        close(f_jvp(t), stablax.jvp(f, (x,), (t,))[1])
        close(f_jvp(t), (np.cos(x) + np.sin(x)) * np.exp(x) * t)


def test_linearize_pytree_and_aux():
    y, f_jvp, aux = stablax.linearize(
        lambda p: ({"u": p.a * p.b}, p.a + 1), Pair(2.0, 3.0), has_aux=True
    )
    assert float(y["u"]) == 6.0 and float(aux) == 3.0
    assert float(f_jvp(Pair(1.0, 0.0))["u"]) == 3.0
    assert float(f_jvp(Pair(0.0, 1.0))["u"]) == 2.0


def test_linearize_under_jit():
    _, f_jvp = stablax.linearize(jnp.sin, 1.0)
    close(stablax.jit(f_jvp)(2.0), 2 * np.cos(1.0))


# --- vjp ---------------------------------------------------------------------------------------


def test_vjp_values_and_aux():
    x = np.array([0.5, 1.5], np.float32)
    y, vjp_fun, aux = stablax.vjp(lambda v: (jnp.sin(v), v * 2), x, has_aux=True)
    close(y, np.sin(x))
    close(aux, 2 * x)
    (ct,) = vjp_fun(np.array([1.0, -2.0], np.float32))
    close(ct, np.cos(x) * [1.0, -2.0])


def test_vjp_pytrees():
    _, vjp_fun = stablax.vjp(lambda p: {"u": p.a * p.b, "v": [p.a]}, Pair(2.0, 3.0))
    (ct,) = vjp_fun({"u": 1.0, "v": [10.0]})
    assert isinstance(ct, Pair)
    assert float(ct.a) == 13.0 and float(ct.b) == 2.0


def test_vjp_integer_input_gets_float0():
    _, vjp_fun = stablax.vjp(lambda x, n: x * n, 2.0, 3)
    cx, cn = vjp_fun(1.0)
    assert float(cx) == 3.0
    assert cn.dtype == F0 and cn.shape == ()


def test_vjp_cotangent_errors():
    _, vjp_fun = stablax.vjp(jnp.sin, jnp.ones(3))
    with pytest.raises(ValueError, match=r"Shape of cotangent input.*\(2,\).*\(3,\)"):
        vjp_fun(jnp.ones(2))
    with pytest.raises(ValueError, match="int32.*expected tangent type.*float32"):
        vjp_fun(jnp.ones(3, jnp.int32))
    with pytest.raises((TypeError, ValueError), match="structure"):
        vjp_fun((jnp.ones(3),))


# --- grad and value_and_grad -------------------------------------------------------------------


def test_grad_argnums():
    f = lambda x, y: x * y**2  # noqa: E731
    assert float(stablax.grad(f)(2.0, 3.0)) == 9.0
    assert float(stablax.grad(f, argnums=1)(2.0, 3.0)) == 12.0
    assert float(stablax.grad(f, argnums=-1)(2.0, 3.0)) == 12.0
    gx, gy = stablax.grad(f, argnums=(0, 1))(2.0, 3.0)
    assert (float(gx), float(gy)) == (9.0, 12.0)
    (gy_only,) = stablax.grad(f, argnums=(1,))(2.0, 3.0)
    assert float(gy_only) == 12.0


def test_grad_keyword_arguments_are_not_differentiated():
    f = lambda x, scale=1.0: jnp.sum(x**2) * scale  # noqa: E731
    close(stablax.grad(f)(jnp.arange(3.0), scale=3.0), [0.0, 6.0, 12.0])


def test_value_and_grad_with_aux():
    def loss(w, x):
        pred = jnp.dot(x, w)
        return jnp.sum(pred**2), {"pred": pred}

    w = np.array([0.5, -1.0], np.float32)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    (value, aux), g = stablax.value_and_grad(loss, has_aux=True)(w, x)
    pred = x @ w
    close(value, np.sum(pred**2))
    close(aux["pred"], pred)
    close(g, 2 * x.T @ pred)
    g2, aux2 = stablax.grad(loss, has_aux=True)(w, x)
    close(g2, g)
    close(aux2["pred"], pred)


def test_grad_of_weak_input_is_weak():
    g = stablax.grad(lambda x: x * 3.0)(1.0)
    assert g.weak_type and g.dtype == np.float32
    assert not stablax.grad(lambda x: x * 3.0)(np.float32(1.0)).weak_type
    value, g = stablax.value_and_grad(lambda x: x * 2)(1.0)
    assert value.weak_type and g.weak_type


def test_grad_holomorphic():
    z = np.complex64(1 + 2j)
    g = stablax.grad(lambda z: z**2 + 3 * z, holomorphic=True)(z)
    assert g.dtype == np.complex64
    close(g, 2 * z + 3)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
        stablax.grad(lambda z: z**2, holomorphic=True)(1.0)
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        stablax.grad(lambda z: z**2)(z)


def test_grad_allow_int():
    gx, gn = stablax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(gx) == 3.0
    assert gn.dtype == F0 and gn.shape == ()
    gi = stablax.grad(lambda x, i: jnp.sum(x * i), allow_int=True, argnums=1)(1.0, np.array([0, 2]))
    assert gi.dtype == F0 and gi.shape == (2,)


def test_grad_errors():
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
        stablax.grad(lambda x: x * 2)(jnp.ones(3))
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
        stablax.grad(lambda x: {"a": x})(1.0)
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs.*int32"):
        stablax.grad(lambda x: x * 1.0)(3)
    with pytest.raises(TypeError, match="real-valued outputs.*int32"):
        stablax.grad(lambda x: jnp.int32(1))(1.0)
    with pytest.raises(TypeError, match="argnums=2 requires at least 3 positional arguments"):
        stablax.grad(lambda x: x, argnums=2)(1.0)
    with pytest.raises(TypeError, match="pair"):
        stablax.grad(lambda x: x, has_aux=True)(1.0)


# --- pytrees -----------------------------------------------------------------------------------


def test_grad_pytree_inputs():
    def f(d):
        return d["a"] * jnp.sum(d["b"][0]) + d["b"][1] ** 2 + d["c"][0].a * d["c"][0].b

    tree = {"a": 2.0, "b": [jnp.ones(3), 4.0], "c": (Pair(5.0, 7.0),), "n": None}
    g = stablax.grad(f)(tree)
    assert tree_util.tree_structure(g) == tree_util.tree_structure(tree)
    assert g["n"] is None and isinstance(g["c"][0], Pair)
    assert float(g["a"]) == 3.0
    close(g["b"][0], [2.0, 2.0, 2.0])
    assert float(g["b"][1]) == 8.0
    assert (float(g["c"][0].a), float(g["c"][0].b)) == (7.0, 5.0)


def test_grad_registered_class():
    g = stablax.grad(lambda p: jnp.sqrt(p.x**2 + p.y**2 + p.z**2))(Point(1.0, 2.0, 3.0))
    assert isinstance(g, Point)
    close([g.x, g.y, g.z], np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0))


# --- symbolic zeros ----------------------------------------------------------------------------


def test_jvp_zero_tangent_input():
    y, ty = stablax.jvp(lambda x, c: x * jnp.cos(c), (2.0, 0.5), (1.0, 0.0))
    close(y, 2 * np.cos(0.5))
    close(ty, np.cos(0.5))


def test_constant_argument_derivative_costs_nothing():
    text = str(stablax.make_jaxpr(stablax.grad(lambda x, c: x * jnp.cos(c)))(1.0, 2.0))
    assert "stablehlo.cosine" in text
    assert "stablehlo.sine" not in text  # d cos(c) / dc would need sin(c)
    text = str(
        stablax.make_jaxpr(lambda x, c: stablax.jvp(lambda u: u * jnp.cos(c), (x,), (1.0,)))(
            1.0, 2.0
        )
    )
    assert "stablehlo.sine" not in text


def test_stop_gradient():
    assert float(stablax.grad(lambda x: x * lax.stop_gradient(x))(3.0)) == 3.0
    assert float(stablax.grad(lambda x: lax.stop_gradient(x) ** 2)(3.0)) == 0.0
    tree = lax.stop_gradient({"a": jnp.ones(2), "b": [1.0]})
    close(tree["a"], [1.0, 1.0])
    _, ty = stablax.jvp(lambda x: x + lax.stop_gradient(x**2), (2.0,), (1.0,))
    assert float(ty) == 1.0


def test_stop_gradient_of_numpy_integers_takes_the_canonical_dtype():
    # JAX 0.10.2: a uint64 NumPy array comes back as uint32 [3, 1] without x64 (a NumPy array,
    # its literal class), as every op's operand is canonicalised.
    out = lax.stop_gradient(np.array([2**40 + 3, 1], np.uint64))
    assert isinstance(out, np.ndarray) and out.dtype == np.uint32
    np.testing.assert_array_equal(out, [3, 1])
    kept = np.array([1, 2], np.int8)
    assert lax.stop_gradient(kept) is kept


# --- Jacobians ---------------------------------------------------------------------------------


def _vector_fun(x):
    return jnp.stack([x[0] * x[1], jnp.sin(x[2]), x[0] ** 2 * x[2], jnp.exp(x[1])])


def _vector_jac(x):
    x0, x1, x2 = x
    return np.array(
        [
            [x1, x0, 0.0],
            [0.0, 0.0, np.cos(x2)],
            [2 * x0 * x2, 0.0, x0**2],
            [0.0, np.exp(x1), 0.0],
        ]
    )


@pytest.mark.parametrize("jac", [stablax.jacfwd, stablax.jacrev, stablax.jacobian])
def test_jacobian_vector_to_vector(jac):
    x = np.array([0.5, -1.0, 2.0], np.float32)
    j = jac(_vector_fun)(x)
    assert j.shape == (4, 3)
    close(j, _vector_jac(x))


@pytest.mark.parametrize("jac", [stablax.jacfwd, stablax.jacrev])
def test_jacobian_pytrees_argnums_and_aux(jac):
    def f(d, y):
        return {"s": d["a"] * y, "p": [d["a"] ** 2]}, d["a"] + 1

    d = {"a": jnp.array([1.0, 2.0])}
    j, aux = jac(f, argnums=(0, 1), has_aux=True)(d, 3.0)
    close(aux, [2.0, 3.0])
    close(j["s"][0]["a"], 3.0 * np.eye(2))
    close(j["s"][1], [1.0, 2.0])
    close(j["p"][0][0]["a"], np.diag([2.0, 4.0]))
    close(j["p"][0][1], [0.0, 0.0])
    assert j["p"][0][1].shape == (2,)


@pytest.mark.parametrize("jac", [stablax.jacfwd, stablax.jacrev])
def test_jacobian_matrix_shapes(jac):
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    j = jac(lambda m: jnp.sum(m**2, axis=1))(a)
    assert j.shape == (2, 2, 3)
    expected = np.zeros((2, 2, 3))
    for i in range(2):
        expected[i, i] = 2 * a[i]
    close(j, expected)


def test_jacobian_integer_blocks_are_integer_zeros():
    out_int, out_float = stablax.jacfwd(lambda x: (x.astype(jnp.int32), x * 2))(jnp.ones(2))
    assert out_int.dtype == np.int32 and out_int.shape == (2, 2) and not np.asarray(out_int).any()
    close(out_float, 2 * np.eye(2))
    jx, jn = stablax.jacrev(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(jnp.ones(2), 3)
    close(jx, 3 * np.eye(2))
    assert jn.dtype == np.int32 and jn.shape == (2,) and not np.asarray(jn).any()
    with pytest.raises(TypeError, match="jacrev requires real- or complex-valued inputs"):
        stablax.jacrev(lambda n: n * 1.0)(3)


def test_hessian():
    x = np.array([0.5, -1.0, 2.0], np.float32)
    h = stablax.hessian(lambda v: jnp.sum(v**3) + v[0] * v[1] * v[2])(x)
    expected = np.diag(6 * x) + np.array([[0, x[2], x[1]], [x[2], 0, x[0]], [x[1], x[0], 0]])
    close(h, expected, rtol=1e-5, atol=1e-5)
    close(stablax.jacrev(stablax.jacfwd(lambda v: jnp.sum(v**3)))(x), np.diag(6 * x))
    h, aux = stablax.hessian(lambda v: (jnp.sum(v**3), v * 2), has_aux=True)(x)
    close(h, np.diag(6 * x))
    close(aux, 2 * x)
    h = stablax.hessian(lambda d: d["a"] ** 2 * d["b"])({"a": 2.0, "b": 3.0})
    assert [[float(h[i][j]) for j in "ab"] for i in "ab"] == [[6.0, 4.0], [4.0, 0.0]]


# --- linear_transpose --------------------------------------------------------------------------


def test_linear_transpose():
    m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    f_t = stablax.linear_transpose(lambda x: jnp.dot(m, x) + 2.0 * x[0], jnp.ones(3))
    ct = np.array([1.0, -1.0], np.float32)
    (out,) = f_t(ct)
    close(out, m.T @ ct + np.array([2.0 * ct.sum(), 0.0, 0.0]))
    f_t = stablax.linear_transpose(lambda p: {"s": p[0] + 2 * p[1]}, (1.0, 1.0))
    ((a, b),) = f_t({"s": 3.0})
    assert (float(a), float(b)) == (3.0, 6.0)


def test_linear_transpose_rejects_integers():
    with pytest.raises(TypeError, match="linear_transpose"):
        stablax.linear_transpose(lambda x: x, np.int32(1))


# --- higher order and composition --------------------------------------------------------------


def test_higher_order_grads():
    x = 0.7
    close(stablax.grad(stablax.grad(stablax.grad(jnp.sin)))(x), -np.cos(x))
    close(stablax.grad(stablax.grad(lambda v: v**4))(2.0), 48.0)
    fourth = stablax.grad(stablax.grad(stablax.grad(stablax.grad(jnp.exp))))
    close(fourth(0.3), np.exp(0.3))


def test_forward_over_reverse_and_jit():
    f = lambda x: jnp.sum(jnp.sin(x) * x)  # noqa: E731
    x = np.array([0.2, 1.1], np.float32)
    d2 = np.diag(2 * np.cos(x) - x * np.sin(x))
    close(stablax.jacfwd(stablax.jacrev(f))(x), d2)
    close(stablax.jit(stablax.jacfwd(stablax.jacrev(f)))(x), d2)
    close(stablax.jit(stablax.grad(f))(x), np.cos(x) * x + np.sin(x))
    close(stablax.grad(stablax.jit(f))(x), np.cos(x) * x + np.sin(x))
    close(stablax.jit(stablax.grad(stablax.jit(stablax.grad(jnp.sin))))(0.5), -np.sin(0.5))
    _, t = stablax.jvp(stablax.grad(jnp.sin), (0.5,), (2.0,))
    close(t, -2 * np.sin(0.5))


def test_closures():
    w = jnp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    f = lambda x: jnp.sum(jnp.dot(w, x))  # noqa: E731
    close(stablax.grad(f)(jnp.ones(3)), [3.0, 5.0, 7.0])
    close(stablax.jit(stablax.grad(f))(jnp.ones(3)), [3.0, 5.0, 7.0])
    assert float(stablax.grad(lambda x: stablax.grad(lambda y: x * y)(1.0))(2.0)) == 1.0
    assert float(stablax.grad(lambda x: stablax.grad(lambda y: x * y**2)(3.0))(2.0)) == 6.0
    assert float(stablax.grad(lambda x: stablax.jit(lambda y: x * y)(3.0))(2.0)) == 3.0


def test_check_grads_composite(x64):
    def f(x, y):
        return jnp.tanh(jnp.dot(x, y)) * jnp.exp(-x[0])

    x = np.array([0.3, -0.2, 0.5])
    y = np.array([[1.0, 0.5], [-0.3, 0.2], [0.7, -1.1]])
    check_grads(f, (x, y), order=2, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


# --- Python control flow on values -------------------------------------------------------------


def test_python_control_flow_under_grad():
    def f(x):
        if x > 0:
            return x**2
        return -3 * x

    assert float(stablax.grad(f)(2.0)) == 4.0
    assert float(stablax.grad(f)(-2.0)) == -3.0

    def doubling(x):
        while x < 10:
            x = x * 2
        return x

    assert float(stablax.grad(doubling)(1.5)) == 8.0  # 1.5 -> 12 after three doublings
    assert float(stablax.grad(doubling)(6.0)) == 2.0


def test_python_recursion_under_grad():
    def power(x, n):
        return 1.0 if n == 0 else x * power(x, n - 1)

    assert float(stablax.grad(power)(2.0, 3)) == 12.0

    def halve_until_small(x):
        return x if x < 1 else 0.5 * halve_until_small(x / 2)

    close(stablax.grad(halve_until_small)(5.0), 1 / 64)  # three halvings: 0.125 * x / 8


def test_python_control_flow_under_jit_raises():
    def f(x):
        if x > 0:  # the line the error names
            return x
        return -x

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(ConcretizationTypeError) as info:
        stablax.jit(stablax.grad(f))(1.0)
    message = str(info.value)
    assert isinstance(info.value, TypeError)
    assert "lax.cond" in message and "jnp.where" in message
    assert f"test_ad.py:{line}" in message


def test_unjitted_grad_compiles_once():
    g = stablax.grad(lambda x: jnp.sum(jnp.sin(x) * jnp.cos(x) * x))
    xs = [jnp.asarray(np.full((7, 5), i, np.float32)) for i in range(5)]
    before = runtime.compile_count
    grads = [g(x) for x in xs]
    assert runtime.compile_count - before == 1
    for i, gi in enumerate(grads):
        close(gi, np.full((7, 5), np.cos(2 * i) * i + np.sin(2 * i) / 2), atol=1e-5)


def test_python_control_flow_after_marker_and_linalg_ops_under_grad():
    # The prefix evaluated for a Python `if` contains marker ops (stop_gradient, linalg
    # decompositions) that exist only until compilation.
    def f(a):
        d = jnp.linalg.det(a)
        if d > 0:
            return d * 2
        return -d

    np.testing.assert_allclose(np.asarray(stablax.grad(f)(jnp.eye(3) * 2.0)), np.eye(3) * 8.0)

    def g(x):
        y = stablax.lax.stop_gradient(x) * x
        return (y if y.sum() > 0 else -y).sum()

    np.testing.assert_allclose(np.asarray(stablax.grad(g)(-jnp.ones(3))), -np.ones(3))


# --- JAX semantics libraries rely on -----------------------------------------------------------


def test_vjp_function_is_a_pytree_that_crosses_jit():
    _, pullback = stablax.vjp(jnp.sin, 1.0)
    assert len(stablax.tree_leaves(pullback)) >= 1
    from_jit = stablax.jit(lambda x: stablax.vjp(jnp.sin, x)[1])(1.0)
    close(from_jit(1.0)[0], np.cos(1.0))
    close(stablax.jit(lambda pb, g: pb(g)[0])(pullback, 2.0), 2 * np.cos(1.0))
    shape = stablax.make_jaxpr(lambda x: stablax.vjp(jnp.sin, x)[1](1.0))(1.0)
    assert "cosine" in str(shape)


def test_has_aux_takes_any_python_object():
    g, aux = stablax.grad(lambda x: (x**2, "hello"), has_aux=True)(1.0)
    assert float(g) == 2.0 and aux == "hello"
    (v, aux), g = stablax.value_and_grad(
        lambda x: (x**2, {"a": 1.5, "b": x, "c": None, "d": [3, "k"]}), has_aux=True
    )(1.0)
    assert aux["a"] == 1.5 and aux["c"] is None and aux["d"] == [3, "k"]
    assert float(aux["b"]) == 1.0 and float(g) == 2.0
    g, aux = stablax.jit(stablax.grad(lambda x: (x**2, {"a": 1.5, "b": x}), has_aux=True))(1.0)
    assert float(aux["a"]) == 1.5
    _, _, aux = stablax.vjp(lambda x: (x * 2, "tag"), 1.0, has_aux=True)
    assert aux == "tag"
    _, _, aux = stablax.jvp(lambda x: (x * 2, ("tag", 3)), (1.0,), (1.0,), has_aux=True)
    assert aux == ("tag", 3)
