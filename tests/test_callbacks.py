"""Host callbacks: debug.print/callback/breakpoint, pure_callback and io_callback, inside jit,
vmap, loops, branches and autodiff; what each prints and in which order (JAX 0.10.2's output for
the same programs, as literals)."""

from __future__ import annotations

import gc
import io
import resource
import sys

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax
from stablax._src import runtime_effects
from stablax.experimental import io_callback


def _printed(capsys) -> list[str]:
    jax.effects_barrier()
    return capsys.readouterr().out.splitlines()


def _show(fmt):
    def fun(x):
        jax.debug.print(fmt, x)
        return x * 2

    return fun


# --- debug.print -------------------------------------------------------------------------------


def test_print_runs_at_every_execution_of_a_jitted_function(capsys):
    f = jax.jit(_show("Printing value of {} during execution"))
    f(jnp.array([1, 2, 3]))
    f(jnp.array([1, 2, 4]))
    assert _printed(capsys) == [
        "Printing value of [1 2 3] during execution",
        "Printing value of [1 2 4] during execution",
    ]


def test_print_eagerly_and_with_keywords_and_static_values(capsys):
    jax.debug.print("x = {x}, n = {n}, s = {}", "text", x=jnp.arange(3.0), n=7)
    jax.debug.print("no placeholders", jnp.int32(4))
    assert _printed(capsys) == ["x = [0. 1. 2.], n = 7, s = text", "no placeholders 4"]


def test_print_under_vmap_prints_each_example(capsys):
    out = jax.vmap(_show("x={}"))(jnp.arange(3.0))
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])
    assert _printed(capsys) == ["x=0.0", "x=1.0", "x=2.0"]


def test_print_under_grad_prints_the_forward_values(capsys):
    g = jax.grad(lambda x: _show("x={}")(x).sum())(jnp.arange(3.0))
    np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])
    assert _printed(capsys) == ["x=[0. 1. 2.]"]


def _scan_body(c, x):
    jax.debug.print("c={} x={}", c, x)
    return c + x, c


def test_print_in_a_scan_prints_every_iteration_under_jit_and_grad(capsys):
    jax.jit(lambda xs: lax.scan(_scan_body, 0.0, xs))(jnp.arange(3.0))
    expected = ["c=0.0 x=0.0", "c=0.0 x=1.0", "c=1.0 x=2.0"]
    assert _printed(capsys) == expected
    g = jax.grad(lambda xs: lax.scan(_scan_body, 0.0, xs)[0])(jnp.arange(3.0))
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])
    assert _printed(capsys) == expected


def test_print_in_fori_and_while_loops(capsys):
    def body(i, c):
        jax.debug.print("iter {} carry {}", i, c)
        return c + i

    assert int(jax.jit(lambda n: lax.fori_loop(0, n, body, 0))(3)) == 3
    assert _printed(capsys) == ["iter 0 carry 0", "iter 1 carry 0", "iter 2 carry 1"]

    def cond(c):
        jax.debug.print("test {}", c)
        return c < 2

    lax.while_loop(cond, lambda c: c + 1, 0)
    assert _printed(capsys) == ["test 0", "test 1", "test 2"]


def test_print_in_cond_and_switch_prints_the_taken_branch_only(capsys):
    def branch(name):
        return lambda x: (jax.debug.print(name + " {}", x), x)[1]

    f = jax.jit(lambda p, x: lax.cond(p, branch("true"), branch("false"), x))
    f(True, 1.0)
    f(False, 2.0)
    lax.switch(2, [branch("zero"), branch("one"), branch("two")], 3.0)
    assert _printed(capsys) == ["true 1.0", "false 2.0", "two 3.0"]


def test_print_in_nested_transformations(capsys):
    def per_row(row):
        return lax.scan(_scan_body, 0.0, row)[0]

    jax.jit(jax.vmap(per_row))(jnp.arange(4.0).reshape(2, 2))
    # vmap of a scan: each iteration prints each example, iteration by iteration.
    assert _printed(capsys) == ["c=0.0 x=0.0", "c=0.0 x=2.0", "c=0.0 x=1.0", "c=2.0 x=3.0"]
    jax.jvp(_show("x={}"), (1.0,), (1.0,))
    assert _printed(capsys) == ["x=1.0"]


def test_ordered_prints_keep_program_order_over_many_calls(capsys):
    @jax.jit
    def f(x):
        for i in range(3):
            jax.debug.print("call {} step {}", x, i, ordered=True)
        return x

    for call in range(20):
        f(jnp.int32(call))
    expected = [f"call {c} step {s}" for c in range(20) for s in range(3)]
    assert _printed(capsys) == expected


def test_ordered_prints_around_a_loop_stay_in_order(capsys):
    def body(i, c):
        jax.debug.print("inside {}", i, ordered=True)
        return c

    @jax.jit
    def f(x):
        jax.debug.print("before", ordered=True)
        x = lax.fori_loop(0, 2, body, x)
        jax.debug.print("after", ordered=True)
        return x

    f(1.0)
    assert _printed(capsys) == ["before", "inside 0", "inside 1", "after"]


def test_print_two_call_form_and_format_errors(capsys):
    jax.debug.print(ordered=True)("two-call {}", 1)
    assert _printed(capsys) == ["two-call 1"]
    with pytest.raises(IndexError):
        jax.debug.print("{} {}", 1)
    with pytest.raises(TypeError, match="unexpected arguments in the two-call form"):
        jax.debug.print(None, 1)


def test_debug_callback_and_log(capsys, caplog):
    seen = []
    f = jax.jit(
        lambda x: (jax.debug.callback(lambda v, k: seen.append((v.tolist(), k)), x, k=3), x)[1]
    )
    f(jnp.arange(2))
    jax.effects_barrier()
    assert seen == [([0, 1], 3)]
    with caplog.at_level("INFO", logger="stablax.debug"):
        jax.jit(lambda x: jax.debug.log("logged {}", x))(2.5)
        jax.effects_barrier()
    assert [r.getMessage() for r in caplog.records] == ["logged 2.5"]
    assert caplog.records[0].filename == "test_callbacks.py"


def test_breakpoint_needs_a_terminal_and_runs_pdb_on_the_values(monkeypatch, capsys):
    def f(x):
        y = x + 1
        jax.debug.breakpoint()
        return y

    with pytest.raises(RuntimeError, match="not a terminal"):
        f(jnp.float32(1))

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal("p y\nc\n"))
    jax.jit(f)(jnp.float32(1))
    out = "\n".join(_printed(capsys))
    assert "Entering stablax.debug.breakpoint" in out and "(Pdb) Array(2., dtype=float32)" in out


def test_visualize_array_sharding(capsys):
    jax.debug.visualize_array_sharding(jnp.ones((4, 4)), use_color=False)
    lines = _printed(capsys)
    assert len(lines) == 3 and lines[1].strip() == "CPU 0"


# --- pure_callback -----------------------------------------------------------------------------


def _sin(x):
    return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def test_pure_callback_eager_jit_and_in_control_flow():
    x = jnp.linspace(0.0, 1.0, 5)
    np.testing.assert_allclose(_sin(x), np.sin(np.asarray(x)), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(_sin)(x), np.sin(np.asarray(x)), rtol=1e-6)
    out = lax.fori_loop(0, 3, lambda i, c: _sin(c), x)
    np.testing.assert_allclose(out, np.sin(np.sin(np.sin(np.asarray(x)))), rtol=1e-5)
    tree = jax.pure_callback(
        lambda a, b: {"s": a + b, "d": a - b},
        {"s": jax.ShapeDtypeStruct((), np.float32), "d": jax.ShapeDtypeStruct((), np.float32)},
        1.0,
        b=jnp.float32(2),
    )
    assert float(tree["s"]) == 3.0 and float(tree["d"]) == -1.0


@pytest.mark.parametrize(
    "method", ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all"]
)
def test_pure_callback_vmap_methods_match_the_loop(method, capsys):
    def host(a, b):
        print(np.shape(a), np.shape(b))
        return a * 2 + b

    def f(x, y):
        return jax.pure_callback(
            host, jax.ShapeDtypeStruct(np.shape(x), np.float32), x, y, vmap_method=method
        )

    xs = jnp.arange(4.0)
    out = jax.vmap(f, in_axes=(0, None))(xs, jnp.float32(1))
    np.testing.assert_array_equal(out, [f(x, jnp.float32(1)) for x in xs])
    shapes = {"expand_dims": "(4,) (1,)", "broadcast_all": "(4,) (4,)"}
    printed = _printed(capsys)[:4]
    if method in shapes:
        assert printed[0] == shapes[method]
    else:
        assert printed == ["() ()"] * 4


def test_pure_callback_errors_as_jax():
    with pytest.raises(NotImplementedError, match="vmap_method=None"):
        jax.vmap(_sin)(jnp.ones(3))
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jax.grad(lambda x: _sin(x).sum())(jnp.ones(2))
    with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
        jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), np.float32), 1.0, vmap_method="x")
    bad = jax.jit(
        lambda x: jax.pure_callback(lambda v: v[:1], jax.ShapeDtypeStruct((2,), x.dtype), x)
    )
    with pytest.raises(Exception, match=r"pure_callback: result 0 of the callback is float32\[1\]"):
        bad(jnp.ones(2)).block_until_ready()


def test_pure_callback_differentiable_through_custom_jvp():
    @jax.custom_jvp
    def f(x):
        return _sin(x)

    f.defjvp(lambda p, t: (f(p[0]), jnp.cos(p[0]) * t[0]))
    np.testing.assert_allclose(jax.grad(f)(0.5), np.cos(0.5), rtol=1e-6)


# --- io_callback -------------------------------------------------------------------------------


def test_io_callback_order_and_refusals():
    log = []

    def record(x):
        log.append(int(x))
        return np.int32(len(log))

    f = jax.jit(lambda x: io_callback(record, jax.ShapeDtypeStruct((), np.int32), x, ordered=True))
    results = [int(f(i)) for i in range(10)]
    assert log == list(range(10)) and results == list(range(1, 11))
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
        jax.vmap(f)(jnp.arange(3))
    unordered = lambda x: io_callback(record, jax.ShapeDtypeStruct((), np.int32), x)  # noqa: E731
    log.clear()
    jax.vmap(unordered)(jnp.arange(3))
    assert log == [0, 1, 2]
    with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
        jax.grad(lambda x: io_callback(np.sin, jax.ShapeDtypeStruct((), np.float32), x))(1.0)


# --- memory ------------------------------------------------------------------------------------


def _peak_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_callbacks_leave_no_memory_behind(capsys):
    f = jax.jit(_show("{}"))
    for _ in range(300):  # warm-up: caches at their working size
        f(jnp.float32(1))
    jax.effects_barrier()
    capsys.readouterr()
    gc.collect()
    before = _peak_kb()
    for _ in range(3000):
        f(jnp.float32(1))
    assert len(runtime_effects.pending_effects.tokens) < 128  # completion tokens do not pile up
    for i in range(200):  # distinct jitted functions, each compiled with its own callback
        jax.jit(lambda x, i=i: _show(str(i))(x))(jnp.float32(i))
    jax.effects_barrier()
    capsys.readouterr()
    gc.collect()
    assert _peak_kb() - before < 30_000  # kB: the executables are bounded by jit's caches
