"""Hi-primitives (`stablax.experimental.hijax.VJPHiPrimitive`): expand, jvp, vjp_fwd with
vjp_bwd_retval or vjp_bwd, batch and batch_dim_rule, under jit/grad/vmap and second order.
Values are NumPy's formulas or, where marked, JAX 0.10.2's outputs for the same programs."""

from __future__ import annotations

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax.experimental.hijax import ShapedArray, VJPHiPrimitive

CALLS: list[str] = []  # the rules a primitive ran, in order


class SinTimesY(VJPHiPrimitive):
    """sin(x) * y with every rule, each recording its call."""

    def __init__(self, x_aval, y_aval):
        self.in_avals, self.out_aval, self.params = (x_aval, y_aval), x_aval, {}
        super().__init__()

    def expand(self, x, y):
        CALLS.append("expand")
        return jnp.sin(x) * y

    def vjp_fwd(self, nzs_in, x, y):
        CALLS.append(f"vjp_fwd{tuple(nzs_in)}")
        return self(x, y), (jnp.cos(x), jnp.sin(x), y)

    def vjp_bwd_retval(self, res, g):
        CALLS.append("vjp_bwd")
        cos_x, sin_x, y = res
        return cos_x * g * y, sin_x * g

    def jvp(self, primals, tangents):
        CALLS.append("jvp")
        (x, y), (x_dot, y_dot) = primals, tangents
        return self(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot

    def batch_dim_rule(self, axis_data, in_dims):
        return in_dims[0] if in_dims[0] is not None else in_dims[1]


def sin_times_y(x, y):
    return SinTimesY(stablax.typeof(x), stablax.typeof(y))(x, y)


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_expand_runs_eagerly_and_under_jit():
    CALLS.clear()
    out = sin_times_y(2.0, 3.0)
    assert repr(out) == "Array(2.7278922, dtype=float32, weak_type=True)"  # JAX 0.10.2
    assert CALLS == ["expand"]
    close(stablax.jit(sin_times_y)(2.0, 3.0), np.sin(2.0) * 3.0)


def test_each_mode_uses_its_rules():
    x, y = 2.0, 3.0
    CALLS.clear()
    out, tangent = stablax.jvp(sin_times_y, (x, y), (1.0, 0.0))
    # forward mode: the jvp rule only (stablax traces expand as the call's body first, then
    # rewrites the call with the rule; JAX's calls are ["jvp", "expand"])
    assert CALLS == ["expand", "jvp", "expand"]
    close(out, np.sin(x) * y)
    close(tangent, np.cos(x) * y)
    CALLS.clear()
    close(stablax.grad(sin_times_y)(x, y), np.cos(x) * y)
    # Reverse mode runs vjp_fwd (only x differentiated) and vjp_bwd; stablax also traces the
    # jvp rule when it linearizes, since the linear function it builds may be run forward
    # (jacfwd, linearize) rather than transposed. JAX runs only vjp_fwd and vjp_bwd here.
    assert "vjp_fwd(True, False)" in CALLS and CALLS[-1] == "vjp_bwd"
    close(stablax.grad(sin_times_y, 1)(x, y), np.sin(x))
    close(stablax.jit(stablax.grad(sin_times_y))(x, y), np.cos(x) * y)


def test_second_order():
    x, y = 2.0, 3.0
    close(stablax.grad(stablax.grad(sin_times_y))(x, y), -np.sin(x) * y)  # reverse over reverse
    close(stablax.jacfwd(stablax.grad(sin_times_y))(x, y), -np.sin(x) * y)  # forward over reverse
    close(stablax.jacrev(stablax.jacfwd(sin_times_y))(x, y), -np.sin(x) * y)
    hess = stablax.hessian(sin_times_y, argnums=(0, 1))(x, y)
    close(np.array(hess), [[-np.sin(x) * y, np.cos(x)], [np.cos(x), 0.0]])
    close(stablax.jit(stablax.grad(stablax.grad(sin_times_y)))(x, y), -np.sin(x) * y)


def test_vmap_by_batch_dim_rule():
    xs, ys = np.linspace(0, 2, 3, dtype=np.float32), np.array([1.0, 2.0, 3.0], np.float32)
    close(stablax.vmap(sin_times_y)(xs, ys), np.sin(xs) * ys)
    close(stablax.vmap(sin_times_y, (0, None))(xs, 2.0), np.sin(xs) * 2)
    close(stablax.vmap(stablax.grad(sin_times_y))(xs, ys), np.cos(xs) * ys)
    close(stablax.jit(stablax.vmap(stablax.grad(sin_times_y, 1), (0, None)))(xs, 2.0), np.sin(xs))
    # a batched primitive differentiated: the unbatched y's cotangent sums over the batch
    total = lambda y: jnp.sum(stablax.vmap(sin_times_y, (0, None))(xs, y))  # noqa: E731
    close(stablax.grad(total)(2.0), np.sum(np.sin(xs)))
    close(stablax.jvp(total, (2.0,), (1.0,))[1], np.sum(np.sin(xs)))
    # batched at axis 1, and twice (the batched primitive's own batch_dim_rule)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    close(stablax.vmap(sin_times_y, (1, 1), 1)(m, m), np.sin(m) * m)
    close(stablax.vmap(stablax.vmap(sin_times_y))(m, m), np.sin(m) * m)
    close(stablax.vmap(stablax.vmap(stablax.grad(sin_times_y)))(m, m), np.cos(m) * m)


class FixedPoint(VJPHiPrimitive):
    """x = f(a, x) by iteration, differentiated implicitly; `f` is a static param."""

    def __init__(self, a_aval, x_aval, *, f):
        self.in_avals, self.out_aval, self.params = (a_aval, x_aval), x_aval, {"f": f}
        super().__init__()

    def expand(self, a, x_guess):
        def body(carry):
            return carry[1], self.f(a, carry[1])

        start = (x_guess, self.f(a, x_guess))
        return lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-6, body, start)[1]

    def vjp_fwd(self, nzs_in, a, x_guess):
        x_star = self(a, x_guess)
        return x_star, (a, x_star)

    def vjp_bwd_retval(self, res, x_star_bar):
        a, x_star = res
        _, vjp_a = stablax.vjp(lambda a: self.f(a, x_star), a)
        packed = (a, x_star, x_star_bar)
        (a_bar,) = vjp_a(fixed_point(lambda p, u: _rev_iter(self.f, p, u), packed, x_star_bar))
        return a_bar, jnp.zeros_like(x_star)


def _rev_iter(f, packed, u):
    a, x_star, x_star_bar = packed
    _, vjp_x = stablax.vjp(lambda x: f(a, x), x_star)
    return x_star_bar + vjp_x(u)[0]


def fixed_point(f, a, x_guess):
    avals = stablax.tree.map(stablax.typeof, (a, x_guess))  # `a` may be a pytree
    return FixedPoint(*avals, f=f)(a, x_guess)


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


def test_fixed_point_differentiated_implicitly_to_second_order():
    # JAX 0.10.2 prints 1.4142135, 0.35355338 and -0.088388346.
    close(newton_sqrt(2.0), 1.4142135)
    close(stablax.grad(newton_sqrt)(2.0), 0.35355338)
    close(stablax.grad(stablax.grad(newton_sqrt))(2.0), -0.088388346)
    close(stablax.jit(stablax.grad(newton_sqrt))(2.0), 0.35355338)
    with pytest.raises(NotImplementedError, match="must implement `batch` or `batch_dim_rule`"):
        stablax.vmap(newton_sqrt)(jnp.array([1.0, 2.0]))


class ClipGradient(VJPHiPrimitive):
    """The identity whose cotangent is clipped to [lo, hi] (traced inputs, no cotangent)."""

    def __init__(self, lo_aval, hi_aval, x_aval):
        self.in_avals, self.out_aval, self.params = (lo_aval, hi_aval, x_aval), x_aval, {}
        super().__init__()

    def expand(self, lo, hi, x):
        return x

    def vjp_fwd(self, nzs_in, lo, hi, x):
        return self(lo, hi, x), (lo, hi)

    def vjp_bwd_retval(self, res, g):
        lo, hi = res
        return None, None, jnp.clip(g, lo, hi)

    def batch_dim_rule(self, axis_data, in_dims):
        return in_dims[2]


def clip_sin(x):
    x = ClipGradient(*map(stablax.typeof, (-0.75, 0.75, x)))(-0.75, 0.75, x)
    return jnp.sin(x)


def test_clip_gradient():
    t = jnp.linspace(0, 10, 5)
    want = [0.75, -0.75, 0.2836622, 0.3466353, -0.75]  # JAX 0.10.2
    close(stablax.vmap(stablax.grad(clip_sin))(t), want)
    close(stablax.jit(stablax.vmap(stablax.grad(clip_sin)))(t), want)
    close(stablax.grad(lambda x: jnp.sum(clip_sin(x)))(t), want)
    lo_grad = stablax.grad(
        lambda lo: ClipGradient(*map(stablax.typeof, (lo, 1.0, 2.0)))(lo, 1.0, 2.0)
    )(0.0)
    assert float(lo_grad) == 0.0  # None: a zero cotangent


class JvpOnly(VJPHiPrimitive):
    def __init__(self, aval):
        self.in_avals, self.out_aval, self.params = (aval,), aval, {}
        super().__init__()

    def expand(self, x):
        return jnp.sin(x)

    def jvp(self, primals, tangents):
        return self(primals[0]), jnp.cos(primals[0]) * tangents[0]


class VjpOnly(VJPHiPrimitive):
    def __init__(self, aval):
        self.in_avals, self.out_aval, self.params = (aval,), aval, {}
        super().__init__()

    def expand(self, x):
        return x * x

    def vjp_fwd(self, nzs_in, x):
        return self(x), x

    def vjp_bwd(self, x, g, x_acc):  # the accumulator form
        assert x_acc.aval == ShapedArray((3,), np.float32)
        x_acc.accum(g * x)
        x_acc.accum(g * x)


def test_missing_rules_raise_jax_s_errors():
    jvp_only = lambda x: JvpOnly(stablax.typeof(x))(x)  # noqa: E731
    close(stablax.jvp(jvp_only, (1.0,), (2.0,))[1], 2 * np.cos(1.0))
    close(stablax.jacfwd(jvp_only)(1.0), np.cos(1.0))  # linearized, run forward
    with pytest.raises(NotImplementedError, match="must implement `vjp_fwd`"):
        stablax.grad(jvp_only)(1.0)
    vjp_only = lambda x: VjpOnly(stablax.typeof(x))(x)  # noqa: E731
    x = np.array([1.0, 2.0, 3.0], np.float32)
    close(stablax.grad(lambda x: jnp.sum(vjp_only(x)))(x), 2 * x)
    close(stablax.jit(stablax.grad(lambda x: jnp.sum(vjp_only(x))))(x), 2 * x)
    with pytest.raises(NotImplementedError, match="must implement `jvp`"):
        stablax.jvp(vjp_only, (x,), (x,))
    with pytest.raises(NotImplementedError, match="must implement `batch`"):
        stablax.vmap(vjp_only)(x[None])


class Scale(VJPHiPrimitive):
    """{"w": w, "b": b} * x with a static factor, batched by its own `batch` rule."""

    def __init__(self, params_aval, x_aval, *, factor):
        self.in_avals, self.out_aval = (params_aval, x_aval), x_aval
        self.params = {"factor": factor}
        super().__init__()

    def expand(self, p, x):
        return self.factor * (p["w"] * x + p["b"])

    def batch(self, axis_data, args, dims):
        p, x = args
        assert axis_data.size == 4 and dims == ({"b": None, "w": None}, 0)
        return self.factor * (p["w"] * x + p["b"]), 0


def test_pytree_avals_params_and_a_batch_rule():
    p = {"w": np.float32(2.0), "b": np.float32(1.0)}
    scale = lambda p, x: Scale(stablax.tree.map(stablax.typeof, p), stablax.typeof(x), factor=3)(  # noqa: E731
        p, x
    )
    close(stablax.jit(scale)(p, 1.0), 9.0)
    close(stablax.vmap(scale, (None, 0))(p, jnp.arange(4.0)), 3 * (2 * np.arange(4.0) + 1))
    prim = Scale(stablax.tree.map(stablax.typeof, p), stablax.typeof(1.0), factor=3)
    assert prim.factor == 3 and [a.str_short() for a in prim.in_avals_flat] == ["float32[]"] * 3
    assert prim == Scale(*prim.in_avals, factor=3) and prim != Scale(*prim.in_avals, factor=4)
    assert repr(prim) == "Scale[{'factor': 3}]"


def test_construction_and_argument_errors():
    class NoAvals(VJPHiPrimitive):
        def __init__(self):
            self.params = {}
            super().__init__()

    with pytest.raises(AttributeError, match="should set `self.in_avals`"):
        NoAvals()

    class BothBwds(VjpOnly):
        def vjp_bwd_retval(self, res, g):
            return (g,)

    with pytest.raises(AttributeError, match="should not override both"):
        BothBwds(stablax.typeof(1.0))
    with pytest.raises(TypeError, match=r"input type mismatch .*int32\[\]"):
        JvpOnly(stablax.typeof(1.0))(1)


def test_jaxpr_view_shows_one_equation_and_evaluates_it():
    closed = stablax.make_jaxpr(sin_times_y)(2.0, 3.0)
    (eqn,) = closed.eqns  # JAX 0.10.2: call_hi_primitive[_prim=SinTimesY[{}]]
    assert (
        eqn.primitive.name == "call_hi_primitive" and repr(eqn.params["_prim"]) == "SinTimesY[{}]"
    )
    by_equations = closed.jaxpr.replace()  # evaluated through the primitive's bind
    (got,) = stablax.core.eval_jaxpr(by_equations, closed.consts, 2.0, 3.0)
    close(got, np.sin(2.0) * 3.0)


def test_under_the_jax_alias():
    from tests.ecosystem.test_compat import _run

    proc = _run(
        """
        from stablax import install_as_jax
        install_as_jax()
        import jax
        from jax.experimental.hijax import VJPHiPrimitive

        class Cube(VJPHiPrimitive):
            def __init__(self, aval):
                self.in_avals, self.out_aval, self.params = (aval,), aval, {}
                super().__init__()
            def expand(self, x):
                return x ** 3
            def vjp_fwd(self, nzs_in, x):
                return self(x), x
            def vjp_bwd_retval(self, x, g):
                return (3 * x ** 2 * g,)

        print(jax.grad(lambda x: Cube(jax.typeof(x))(x))(2.0))
        """
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["12.0"]
