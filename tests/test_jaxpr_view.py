"""The jaxpr view of a traced function (`make_jaxpr`, `jit(f).trace(x).jaxpr`): JAX's primitive
names and params (recorded from JAX 0.10.2 in tests/data/jaxpr_view.json), its variables and
sub-jaxprs, evaluating it exactly and equation by equation, and the idioms that walk it."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import core, lax
from stablax._src import jaxpr_view
from stablax._src.interpreters.interpret import eval_jaxpr, jaxpr_as_fun
from tests.jaxpr_cases import CASES, describe

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "jaxpr_view.json").read_text())
X = jnp.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_equations_are_jax_s(name):
    fun, args = CASES[name](stablax)
    closed = stablax.make_jaxpr(fun)(*args)
    recorded = DATA["cases"][name]
    assert describe(closed) == recorded["eqns"]
    assert [a.str_short() for a in closed.in_avals] == recorded["in_avals"]
    assert [a.str_short() for a in closed.out_avals] == recorded["out_avals"]


def test_variables_literals_and_printing():
    c = jnp.arange(4.0)  # a device array closed over: a constvar, its value in consts
    closed = stablax.make_jaxpr(lambda x: (jnp.sin(x), x * 2.0 + c)[1])(jnp.ones(4))
    jaxpr = closed.jaxpr
    assert len(jaxpr.constvars) == 1 and np.array_equal(closed.consts[0], np.arange(4.0))
    assert [v.aval.str_short() for v in jaxpr.invars] == ["float32[4]"]
    sin, *rest = jaxpr.eqns
    # unused outputs are dropped variables, as in JAX
    assert sin.primitive is lax.sin_p and isinstance(sin.outvars[0], jaxpr_view.DropVar)
    literals = [a for e in jaxpr.eqns for a in e.invars if isinstance(a, jaxpr_view.Literal)]
    assert [float(lit.val) for lit in literals] == [2.0]
    assert jaxpr.outvars[0] is rest[-1].outvars[0] and jaxpr.outvars[0].aval == closed.out_avals[0]
    assert jaxpr.constvars[0] in rest[-1].invars
    # printing stays the StableHLO module
    assert str(closed).startswith("module") and "stablehlo.sine" in str(closed.jaxpr)
    assert closed.eqns is jaxpr.eqns and closed.in_avals == jaxpr.in_avals


def test_source_info_names_the_scopes_relative_to_sub_jaxprs():
    def f(x):
        with stablax.named_scope("outer"):
            y = lax.cond(
                x.sum() > 0, lambda a: stablax.named_call(jnp.sin, name="inner")(a), jnp.cos, x
            )
            return y * 2

    eqns = stablax.make_jaxpr(f)(jnp.ones(3)).eqns
    assert {str(e.source_info.name_stack) for e in eqns} == {"outer"}
    assert eqns[0].source_info.file == __file__
    cond = next(e for e in eqns if e.primitive is lax.cond_p)
    branch = cond.params["branches"][1]
    assert [str(e.source_info.name_stack) for e in branch.eqns] == ["inner"]


def test_control_flow_bodies_are_sub_jaxprs():
    def f(x):
        y, ys = lax.scan(lambda c, a: (c + a * x[0], c * a), jnp.zeros(4), x)
        return lax.fori_loop(0, 3, lambda i, c: c * 2, y), ys

    eqns = stablax.make_jaxpr(f)(jnp.ones((3, 4))).eqns
    scan = next(e for e in eqns if e.primitive is lax.scan_p)
    assert scan.primitive is lax.scan_p
    assert {k: scan.params[k] for k in ("length", "num_consts", "num_carry", "reverse")} == {
        "length": 3,
        "num_consts": 1,
        "num_carry": 1,
        "reverse": False,
    }
    body = scan.params["jaxpr"]  # (consts, carry, x) -> (carry, y): x[0], c, a
    assert [v.aval.str_short() for v in body.jaxpr.invars] == ["float32[4]"] * 3
    assert [e.primitive.name for e in body.eqns] == ["mul", "add", "mul"]
    fori = eqns[-1]  # fori_loop's counter: a literal in, a dropped variable out
    assert fori.primitive is lax.scan_p and isinstance(fori.invars[0], jaxpr_view.Literal)
    assert isinstance(fori.outvars[0], jaxpr_view.DropVar)
    assert len(scan.invars) == 3 and len(scan.outvars) == 2


PROGRAMS = {
    "cond": lambda x: lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x),
    "scan": lambda x: lax.scan(lambda c, a: (c + a * x[0], (c * a, a)), jnp.zeros(4), x)[1],
    "while": lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x)),
    "reductions": lambda x: (jnp.argmax(x, 0), lax.reduce(x, 0.0, lambda a, b: a * b + 1, (0,))),
    "windows": lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID"),
    "indexing": lambda x: (x[jnp.array([2, 0])], x.at[1].add(1.0), x[1:, ::2]),
    "custom_jvp": lambda x: stablax.nn.relu(x - 0.5) + stablax.nn.softplus(x),
    "checkpoint": lambda x: stablax.checkpoint(lambda a: jnp.sin(a) * a)(x),
    "grad": lambda x: stablax.grad(lambda a: jnp.sum(jnp.tanh(a) * a))(x),
    "rng": lambda x: x + stablax.random.uniform(stablax.random.key(0), (4,)),
    "linalg": lambda x: jnp.linalg.cholesky(x.T @ x + 4 * jnp.eye(4)),
    "complex": lambda x: (x + 1j * x).imag * jnp.exp(x),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_view_evaluates_exactly_and_by_its_equations(name):
    fun = PROGRAMS[name]
    closed = stablax.make_jaxpr(fun)(X)
    want = stablax.tree.leaves(fun(X))
    exact = eval_jaxpr(closed.jaxpr, closed.consts, [X])
    # A jaxpr changed by hand runs its equations through their primitives' `bind`: each
    # equation's primitive and params re-emit its op.
    by_equations = eval_jaxpr(closed.jaxpr.replace(), closed.consts, [X])
    for got in (exact, by_equations):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


def test_a_custom_interpreter_over_the_equations():
    # The usual interpreter: an environment of variables, `bind` per equation, sub-jaxprs as
    # params; here it swaps exp for its square.
    def run(jaxpr, consts, *args):
        env = {}

        def read(v):
            return v.val if isinstance(v, jaxpr_view.Literal) else env[v]

        for v, x in zip([*jaxpr.constvars, *jaxpr.invars], [*consts, *args], strict=True):
            env[v] = x
        for eqn in jaxpr.eqns:
            invals = [read(v) for v in eqn.invars]
            if eqn.primitive is lax.exp_p:
                outs = [lax.exp(invals[0]) ** 2]
            else:
                outs = eqn.primitive.bind(*invals, **eqn.params)
                outs = outs if eqn.primitive.multiple_results else [outs]
            env.update(zip(eqn.outvars, outs, strict=True))
        return [read(v) for v in jaxpr.outvars]

    f = lambda x: jnp.exp(lax.cond(x[0] > 0, jnp.sin, jnp.cos, x)) + 1.0  # noqa: E731
    v = jnp.array([0.5, -1.0])
    closed = stablax.make_jaxpr(f)(v)
    (got,) = run(closed.jaxpr, closed.consts, v)
    np.testing.assert_allclose(got, np.exp(np.sin([0.5, -1.0])) ** 2 + 1, rtol=1e-6)
    (jitted,) = stablax.jit(lambda a: run(closed.jaxpr, closed.consts, a))(v)
    np.testing.assert_allclose(jitted, got, rtol=1e-6)


def test_evaluation_under_transformations():
    closed = stablax.make_jaxpr(lambda x: jnp.sum(jnp.sin(x) * x))(X)
    fun = jaxpr_as_fun(closed)
    want = stablax.grad(lambda x: jnp.sum(jnp.sin(x) * x))(X)
    np.testing.assert_allclose(stablax.grad(lambda x: fun(x)[0])(X), want, rtol=1e-6)
    by_equations = jaxpr_as_fun(jaxpr_view.ClosedJaxpr(closed.jaxpr.replace(), closed.consts))
    np.testing.assert_allclose(stablax.jit(stablax.grad(lambda x: by_equations(x)[0]))(X), want)
    batched = stablax.vmap(lambda x: fun(x)[0])(np.stack([X, 2 * X]))
    np.testing.assert_allclose(batched[1], np.sum(np.sin(2 * X) * 2 * X), rtol=1e-5)


def test_make_jaxpr_inside_transformations_and_its_options():
    def outer(w):
        # tracers of grad as arguments become their types; closed over, they are consts
        closed, shapes = stablax.make_jaxpr(lambda x: x * w, return_shape=True)(w * jnp.ones(3))
        assert shapes.shape == (3,) and shapes.dtype == np.float32
        assert len(closed.consts) == 1 and isinstance(closed.consts[0], core.Tracer)
        return jnp.sum(core.eval_jaxpr(closed.jaxpr, closed.consts, jnp.arange(3.0))[0])

    assert stablax.grad(outer)(2.0) == 3.0
    closed = stablax.make_jaxpr(lambda x, n: x * n, static_argnums=1)(1.0, 3)
    assert len(closed.jaxpr.invars) == 1 and closed.eqns[-1].primitive is lax.mul_p
    assert stablax.jit(jnp.cos).trace(1.0).jaxpr.eqns[0].primitive is lax.cos_p
    with pytest.raises(NotImplementedError, match="axis_env"):
        stablax.make_jaxpr(jnp.sin, axis_env=[("i", 2)])(1.0)


def test_checkpoint_policies_see_the_view_s_primitives():
    seen = []

    def policy(prim, *avals, **params):
        seen.append((prim.name, [a.str_short() for a in avals], sorted(params)))
        return prim is lax.dot_general_p

    f = stablax.checkpoint(lambda a, b: jnp.tanh(lax.select(a > 0, a @ b, a)), policy=policy)
    stablax.grad(lambda a: jnp.sum(f(a, a)))(np.eye(2, dtype=np.float32))
    names = [s[0] for s in seen]
    assert "dot_general" in names and "select_n" in names and "tanh" in names
    dot = seen[names.index("dot_general")]
    assert dot[2] == ["dimension_numbers", "out_sharding", "precision", "preferred_element_type"]
    # select_n(pred, on_false, on_true): JAX's operand order
    assert seen[names.index("select_n")][1] == ["bool[2,2]", "float32[2,2]", "float32[2,2]"]
