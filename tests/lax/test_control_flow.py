"""Structured control flow against plain-Python references, eagerly and under jit; errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablax
import stablax.numpy as jnp
from stablax import lax
from stablax._src import core
from stablax._src.avals import ShapedArray
from stablax._src.interpreters.interpret import body, interpret
from stablax._src.op_rules import op_key

MODES = ["eager", "jit"]


def run(mode, fun, *args):
    return (stablax.jit(fun) if mode == "jit" else fun)(*args)


def python_scan(f, init, xs, reverse=False):
    carry, ys = init, []
    order = range(len(xs))[::-1] if reverse else range(len(xs))
    for i in order:
        carry, y = f(carry, xs[i])
        ys.append(y)
    return carry, np.stack(ys[::-1] if reverse else ys)


# --- scan --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", [1, 2, 3, True])
def test_scan_matches_python_loop(mode, reverse, unroll):
    xs = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)

    def step(c, x):
        return c * 0.5 + x, c.sum() * x

    def np_step(c, x):
        return c * np.float32(0.5) + x, c.sum() * x

    carry, ys = run(
        mode, lambda xs: lax.scan(step, jnp.zeros(3), xs, reverse=reverse, unroll=unroll), xs
    )
    ref_carry, ref_ys = python_scan(np_step, np.zeros(3, np.float32), xs, reverse)
    np.testing.assert_allclose(carry, ref_carry, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ys, ref_ys, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_scan_pytrees_length_and_no_xs(mode):
    def fun(a):
        def step(c, x):
            (i, acc) = c
            return (i + 1, {"s": acc["s"] + x["v"] * i}), (x["v"] * 2, i)

        return lax.scan(step, (0, {"s": a}), {"v": jnp.arange(4.0)})

    (i, acc), (doubled, steps) = run(mode, fun, 1.0)
    assert int(i) == 4
    np.testing.assert_allclose(acc["s"], 1.0 + sum(v * k for k, v in enumerate(range(4))))
    np.testing.assert_array_equal(doubled, [0, 2, 4, 6])
    np.testing.assert_array_equal(steps, [0, 1, 2, 3])
    carry, ys = run(mode, lambda a: lax.scan(lambda c, _: (c * 2, c), a, None, length=3), 1.0)
    assert float(carry) == 8.0
    np.testing.assert_array_equal(ys, [1, 2, 4])


def test_scan_zero_length_and_dtypes():
    init = jnp.full(2, 3, jnp.int32)
    carry, ys = lax.scan(lambda c, x: (c + x, x * 2), init, jnp.zeros((0, 2), jnp.int32))
    np.testing.assert_array_equal(carry, [3, 3])
    assert ys.shape == (0, 2) and ys.dtype == np.int32
    carry, ys = lax.scan(lambda c, x: (c | x, ~x), False, jnp.array([False, True, False]))
    assert bool(carry) and ys.dtype == np.bool_
    np.testing.assert_array_equal(ys, [True, False, True])


def test_scan_weak_carry_promotes_as_in_jax():
    carry, _ = lax.scan(lambda c, x: (c + x, x), 0, jnp.ones(4, jnp.float32))
    assert carry.dtype == np.float32 and not carry.aval.weak_type
    carry, _ = lax.scan(lambda c, x: (c + 1, x), 0.0, jnp.ones(4))
    assert carry.dtype == np.float32 and carry.aval.weak_type


@pytest.mark.parametrize("mode", MODES)
def test_scan_closes_over_outer_values(mode):
    def fun(w, xs):
        return lax.scan(lambda c, x: (c * w + x, c), 1.0, xs)

    carry, ys = run(mode, fun, 2.0, jnp.arange(3.0))
    ref_carry, ref_ys = python_scan(lambda c, x: (c * 2.0 + x, c), 1.0, np.arange(3.0))
    np.testing.assert_allclose(carry, ref_carry)
    np.testing.assert_allclose(ys, ref_ys)


def test_scan_errors():
    with pytest.raises(
        TypeError, match=r"the body returned float32\[3\] where the carry c is float32\[\]"
    ):
        lax.scan(lambda c, x: (jnp.ones(3), x), 0.0, jnp.ones(4))
    with pytest.raises(TypeError, match=re.escape(__file__)):
        stablax.jit(lambda: lax.scan(lambda c, x: (c.astype(jnp.int32), x), 0.0, jnp.ones(4)))()
    with pytest.raises(TypeError, match="same pytree structure"):
        lax.scan(lambda c, x: ((c, c), x), 0.0, jnp.ones(4))
    with pytest.raises(TypeError, match="scan body output must be a pair"):
        lax.scan(lambda c, x: c, 0.0, None, length=3)
    with pytest.raises(ValueError, match="disagrees with leading axis sizes"):
        lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(4), length=5)
    with pytest.raises(ValueError, match="different leading axis sizes: 4, 3"):
        lax.scan(lambda c, x: (c, x), 0.0, [jnp.ones(4), jnp.ones(3)])
    with pytest.raises(ValueError, match="no values to scan over"):
        lax.scan(lambda c, x: (c, x), 0.0, None)


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 7),
    unroll=st.integers(1, 8),
    reverse=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_scan_cumulative_product_property(n, unroll, reverse, seed):
    xs = np.random.default_rng(seed).uniform(0.5, 1.5, n).astype(np.float32)
    carry, ys = lax.scan(lambda c, x: (c * x, c * x), 1.0, xs, reverse=reverse, unroll=unroll)
    ref = np.cumprod(xs[::-1])[::-1] if reverse else np.cumprod(xs)
    np.testing.assert_allclose(ys, ref, rtol=1e-5)
    np.testing.assert_allclose(carry, np.prod(xs), rtol=1e-5)


# --- cond and switch ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pred", [True, False, 0, 3])
def test_cond_picks_the_branch(mode, pred):
    def fun(p, x, y):
        return lax.cond(p, lambda a, b: (a + b, {"k": a * 2}), lambda a, b: (a - b, {"k": b}), x, y)

    out, extra = run(mode, fun, pred, np.float32(3.0), np.float32(1.5))
    if pred:
        assert float(out) == 4.5 and float(extra["k"]) == 6.0
    else:
        assert float(out) == 1.5 and float(extra["k"]) == 1.5


@pytest.mark.parametrize("mode", MODES)
def test_cond_without_operands_and_closures(mode):
    def fun(x):
        return lax.cond(x > 1, lambda: x * 10, lambda: -x)

    assert float(run(mode, fun, 2.0)) == 20.0
    assert float(run(mode, fun, 0.5)) == -0.5


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("index", [-3, 0, 1, 2, 7])
def test_switch_clamps_index(mode, index):
    branches = [lambda x: x + 1, lambda x: x * 10, lambda x: x - 100]
    out = run(mode, lambda i, x: lax.switch(i, branches, x), index, np.float32(2.0))
    assert float(out) == branches[min(max(index, 0), 2)](2.0)


def test_cond_errors():
    with pytest.raises(TypeError, match=r"true_fun has type float32\[\] but the corresponding "):
        lax.cond(True, lambda x: x, lambda x: x * jnp.ones(2), 1.0)
    with pytest.raises(TypeError, match="dtypes do not match"):
        lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), 1.0)
    with pytest.raises(TypeError, match="pytree structure"):
        lax.cond(True, lambda x: x, lambda x: (x, x), 1.0)
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        lax.cond(jnp.ones(2) > 0, lambda x: x, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="Index type must be an integer"):
        lax.switch(1.0, [lambda x: x, lambda x: x], 1.0)
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(1, [], 1.0)


def test_cond_weak_types_join():
    out = lax.cond(True, lambda: 1.0, lambda: jnp.float32(2))
    assert out.dtype == np.float32 and not out.aval.weak_type
    assert lax.cond(True, lambda: 1.0, lambda: 2.0).aval.weak_type


# --- while_loop and fori_loop ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_matches_python(mode):
    def fun(limit, x):
        return lax.while_loop(lambda c: c[0] < limit, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))

    i, value = run(mode, fun, 5, 1.5)
    assert int(i) == 5
    np.testing.assert_allclose(value, 1.5**5, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_fori_loop_static_and_dynamic_bounds(mode):
    ref = sum(i * i for i in range(2, 7))
    out = run(mode, lambda x: lax.fori_loop(2, 7, lambda i, c: c + i * i, x), 0)
    assert int(out) == ref
    out = run(mode, lambda lo, hi: lax.fori_loop(lo, hi, lambda i, c: c + i * i, 0), 2, 7)
    assert int(out) == ref
    assert float(lax.fori_loop(5, 2, lambda i, c: c + 1.0, 0.0)) == 0.0


def test_while_loop_max_steps_stops_early_and_caps():
    out = lax.while_loop(lambda c: c < 10, lambda c: c * 2, 1, max_steps=100)
    assert int(out) == 16
    out = lax.while_loop(lambda c: c < 10, lambda c: c * 2, 1, max_steps=2)
    assert int(out) == 4


def test_while_loop_errors():
    with pytest.raises(TypeError, match=r"the body returned float32\[3\] where the carry c is"):
        lax.while_loop(lambda c: c < 3, lambda c: jnp.ones(3), 0.0)
    with pytest.raises(TypeError, match=r"cond_fun must return a boolean scalar"):
        lax.while_loop(lambda c: jnp.ones(2) > 0, lambda c: c + 1, 0)
    assert lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0).dtype == np.float32


# --- map, associative_scan, piecewise ----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("batch_size", [None, 1, 2, 5, 8])
def test_map(mode, batch_size):
    xs = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    out = run(mode, lambda x: lax.map(lambda r: (r.sum(), r * 2), x, batch_size=batch_size), xs)
    np.testing.assert_allclose(out[0], xs.sum(1))
    np.testing.assert_allclose(out[1], xs * 2)


@pytest.mark.parametrize(
    "mode, n, reverse",
    [("jit", 1, False), ("jit", 5, False), ("jit", 8, True), ("jit", 5, True), ("eager", 3, True)],
)
def test_associative_scan_matrix_products(mode, n, reverse):
    m = np.random.default_rng(n).uniform(-1, 1, (n, 2, 2)).astype(np.float32)
    out = run(mode, lambda x: lax.associative_scan(jnp.matmul, x, reverse=reverse), m)
    ref = []
    for i in range(n):
        acc = np.eye(2, dtype=np.float32)
        for j in range(n - 1, i - 1, -1) if reverse else range(i + 1):
            acc = acc @ m[j]
        ref.append(acc)
    np.testing.assert_allclose(out, np.stack(ref), rtol=1e-4, atol=1e-5)


def test_associative_scan_pytree_and_axis():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    out = stablax.jit(
        lambda x: lax.associative_scan(lambda a, b: {"s": a["s"] + b["s"]}, {"s": x}, axis=1)
    )(x)
    np.testing.assert_allclose(out["s"], np.cumsum(x, 1))


@pytest.mark.parametrize("mode", MODES)
def test_piecewise(mode):
    x = np.arange(-3, 4)
    funcs = [lambda v: v * 1.5, lambda v: v * 2, 7]
    out = run(mode, lambda v: jnp.piecewise(v, [v < 0, v > 1], funcs), x)
    np.testing.assert_array_equal(out, [-4, -3, -1, 7, 7, 4, 6])  # JAX's values (int output)
    xf = x.astype(np.float32)
    out = run(mode, lambda v: jnp.piecewise(v, [v < 0, v > 1], funcs), xf)
    np.testing.assert_allclose(out, np.piecewise(xf, [xf < 0, xf > 1], funcs))
    with pytest.raises(ValueError, match="either 1 or 2 functions are expected; got 3"):
        jnp.piecewise(x, [x < 0], [1, 2, 3])


# --- the constructs under rewrites -------------------------------------------------------------


def _traced(fun, *avals):
    return core.trace_to_func(lambda *xs: list(fun(*xs)), list(avals))


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: lax.scan(lambda c, y: (c + y * x[0], c), 0.0, x),
        lambda x: [lax.cond(x[0] > 0, jnp.sin, jnp.cos, x)],
        lambda x: [lax.while_loop(lambda c: c.sum() < 10, lambda c: c * 2 + x, x)],
        lambda x: [lax.switch(2, [jnp.sin, jnp.cos, lambda v: v * x], x)],
    ],
)
def test_reinterpretation_reproduces_constructs(fun):
    traced = _traced(fun, ShapedArray((3,), np.float32))
    again = core.trace_to_func(lambda *xs: interpret(traced, xs), traced.in_avals)
    assert again.text() == traced.text()
    keys = {op_key(op) for op in body(traced)[1]}
    assert keys & {"stablax.scan", "stablehlo.case", "stablehlo.while"}


def test_python_loops_and_recursion_unroll_under_jit():
    def power(x, n):
        return 1.0 if n == 0 else x * power(x, n - 1)

    @stablax.jit
    def fun(x):
        total = 0.0
        for i in range(4):
            total = total + power(x, i)
        return total

    assert float(fun(2.0)) == 1 + 2 + 4 + 8


def test_eager_scan_compiles_once_per_signature():
    from stablax._src import runtime

    def f(c, x):
        return c + x, c

    lax.scan(f, 0.0, jnp.arange(3.0))
    before = runtime.compile_count
    lax.scan(f, 0.0, jnp.arange(3.0))
    lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))  # a new function, the same program
    assert runtime.compile_count == before
