"""`jax_debug_nans` and `jax_debug_infs`: a NaN or an Inf in an output raises FloatingPointError
naming the op that made it, the user's line ("# line: tag" comments below mark the lines the
errors must name) and the loop iteration, eagerly, under jit, grad and vmap and inside loops and
branches. With the flags off nothing is checked and nothing more is compiled."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import stablax as jax
import stablax.numpy as jnp
from stablax import lax
from stablax._src import runtime
from stablax.experimental import io_callback

_SOURCE = open(__file__).read().splitlines()


def line_of(tag: str) -> str:
    """`file:line` of the line of this file marked `# line: tag`."""
    (number,) = [i + 1 for i, text in enumerate(_SOURCE) if text.endswith(f"# line: {tag}")]
    return f"{__file__}:{number}"


def raises(kind: str, op: str, tag: str, rest: str = ""):
    """Expects FloatingPointError for a `kind` value made by `op` at the line marked `tag`."""
    message = f"invalid value ({kind}) encountered in {op} at {line_of(tag)}{rest}"
    return pytest.raises(FloatingPointError, match="^" + re.escape(message))


@pytest.fixture
def nans():
    with jax.debug_nans(True):
        yield


@pytest.fixture
def infs():
    with jax.debug_infs(True):
        yield


# --- where the op runs -------------------------------------------------------------------------


def test_eager_op(nans):
    with raises("nan", "log", "eager-lax"):
        lax.log(jnp.array(-1.0))  # line: eager-lax
    with raises("nan", "log", "eager-jnp"):
        jnp.log(jnp.array([1.0, -1.0]))  # line: eager-jnp


def test_eager_grad_of_a_function_with_a_nan_forward(nans):
    with raises("nan", "sqrt", "grad-sqrt"):
        jax.grad(jnp.sqrt)(-1.0)  # line: grad-sqrt


def test_eager_vmap(nans):
    with raises("nan", "log", "vmap-log"):
        jax.vmap(jnp.log)(jnp.array([-1.0, 2.0]))  # line: vmap-log


def test_jit_names_the_op_not_the_program(nans):
    def f(x):
        y = x * 2.0
        return jnp.sin(jnp.log(y)) + 1.0  # line: jit-log

    with raises("nan", "log", "jit-log", ", inside jit(f)"):
        jax.jit(f)(-1.0)
    # The compiled stage checks the same way.
    with raises("nan", "log", "jit-log"):
        jax.jit(f).lower(-1.0).compile()(-1.0)


def test_jit_of_grad(nans):
    def loss(x):
        return jnp.sum(jnp.sqrt(x - 1.0))  # line: jit-grad

    with raises("nan", "sqrt", "jit-grad", ", inside jit(loss)"):
        jax.jit(loss)(jnp.array([0.0]))
    with raises("nan", "sqrt", "jit-grad"):
        jax.jit(jax.grad(loss))(jnp.array([0.0, 2.0]))


def test_the_backward_pass_is_checked_too(nans):
    # sqrt(0) is fine forward; its derivative divides the cotangent 0 (of x * 0) by sqrt(0), a
    # NaN: the op named is the backward pass's, at the line of the op it differentiates.
    def f(x):
        return jnp.sqrt(x) * 0.0  # line: backward

    assert jax.jit(f)(0.0) == 0.0
    with raises("nan", "div", "backward"):
        jax.grad(f)(0.0)


def test_scan_names_the_iteration(nans):
    def body(c, _):
        c = c - 1.0
        return c, jnp.sqrt(c)  # line: scan-sqrt

    with raises("nan", "sqrt", "scan-sqrt", ", in loop iteration 2 (counting from 0)"):
        lax.scan(body, 2.5, None, length=5)
    with raises("nan", "sqrt", "scan-sqrt", ", in loop iteration 2 (counting from 0)"):
        jax.jit(lambda c: lax.scan(body, c, None, length=5))(2.5)
    # Under grad, the forward pass made it first.
    with raises("nan", "sqrt", "scan-sqrt", ", in loop iteration 2 (counting from 0)"):
        jax.grad(lambda c: lax.scan(body, c, None, length=5)[1].sum())(2.5)


def test_while_loop(nans):
    def body(carry):
        i, x = carry
        return i + 1, jnp.log(x - i)  # line: while-log

    def f(x):
        return lax.while_loop(lambda c: c[0] < 5, body, (0, x))

    with raises("nan", "log", "while-log", ", in loop iteration 2 (counting from 0)"):
        jax.jit(f)(3.0)


def test_fori_loops_nested(nans):
    def inner(j, d):
        return jnp.log(d - 1.0)  # line: nested

    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: lax.fori_loop(0, 3, inner, c), x)

    with raises("nan", "log", "nested", ", in its run 2 over 2 nested loops (from 0)"):
        jax.jit(f)(5.0)


def test_cond_names_the_branch_taken(nans):
    def f(x):
        return lax.cond(x > 0, jnp.log, lambda x: jnp.sqrt(x) + 1.0, x)  # line: cond

    with raises("nan", "sqrt", "cond"):
        jax.jit(f)(-2.0)
    with raises("nan", "sqrt", "cond"):
        f(-2.0)
    assert not np.isnan(jax.jit(f)(2.0))


def test_switch_and_vmap_of_cond(nans):
    def f(i, x):
        return lax.switch(i, [jnp.exp, jnp.log, jnp.cos], x)  # line: switch

    with raises("nan", "log", "switch"):
        jax.jit(f)(1, -1.0)
    with raises("nan", "log", "switch"):
        jax.vmap(f)(jnp.array([0, 1]), jnp.array([-1.0, -1.0]))


def test_function_called_by_a_loop(nans):
    @jax.jit
    def step(x):
        return jnp.arccos(x)  # line: called

    def f(x):  # acos(1) + 0.5, acos(0.5) + 0.5, acos(1.547...): NaN
        return lax.fori_loop(0, 4, lambda i, c: step(c) + 0.5, x)

    with raises("nan", "acos", "called", ", in loop iteration 2 (counting from 0)"):
        jax.jit(f)(1.0)


def test_complex_values(nans):
    def f(z):
        return jnp.log(z) / jnp.abs(z)  # line: complex

    with raises("nan", "div", "complex"):
        jax.jit(f)(jnp.array(0j))


# --- Infs ---------------------------------------------------------------------------------------


def test_infs_eager_jit_and_grad(infs):
    with raises("inf", "log", "inf-eager"):
        jnp.log(jnp.array(0.0))  # line: inf-eager
    with raises("inf", "div", "inf-jit"):
        jax.jit(lambda x: 1.0 / x)(0.0)  # line: inf-jit
    with raises("inf", "log", "inf-grad"):
        jax.grad(lambda x: jnp.log(x))(0.0)  # line: inf-grad
    # NaNs are not Infs: only debug_nans catches them.
    assert np.isnan(jax.jit(jnp.log)(-1.0))


def test_nans_are_not_infs(nans):
    assert np.isinf(jax.jit(lambda x: 1.0 / x)(0.0))


def test_flag_forms_config_update_and_environment():
    jax.config.update("jax_debug_infs", True)
    try:
        with pytest.raises(FloatingPointError, match=r"\(inf\) encountered in exp"):
            jax.jit(jnp.exp)(1000.0)
    finally:
        jax.config.update("jax_debug_infs", False)
    assert np.isinf(jax.jit(jnp.exp)(1000.0))
    program = (
        "import stablax as jax, stablax.numpy as jnp\n"
        "try:\n"
        "    jax.jit(lambda x: jnp.log(x))(-1.0)\n"
        "except FloatingPointError as e:\n"
        "    print(e)\n"
    )
    env = {**os.environ, "JAX_DEBUG_NANS": "1"}
    out = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True)
    assert out.stdout.startswith("invalid value (nan) encountered in log at <string>:3"), out


# --- what the culprit search reports when no op made the value -------------------------------


def test_an_argument_that_held_a_nan(nans):
    with pytest.raises(FloatingPointError, match=r"in add at .*, from operands that held it"):
        jax.jit(lambda x: x + 1.0)(jnp.nan)
    with pytest.raises(FloatingPointError, match=r"encountered in jit\(ident\): an argument"):

        def ident(x):
            return x

        jax.jit(ident)(jnp.nan)


def test_donated_arguments_cannot_be_run_again(nans):
    f = jax.jit(lambda x: jnp.log(x), donate_argnums=0)
    with pytest.raises(FloatingPointError, match="donates its arguments"):
        f(jnp.array([-1.0]))


def test_host_callbacks_are_named_and_effects_not_repeated(nans, capsys):
    def f(x):
        jax.debug.print("x={}", x)
        io_callback(lambda v: None, None, x)
        nan = jax.pure_callback(  # line: callback
            lambda v: np.asarray(v) * np.float32("nan"), jax.ShapeDtypeStruct((), jnp.float32), x
        )
        return nan + x

    with raises("nan", "pure_callback", "callback"):
        jax.jit(f)(1.0)
    jax.effects_barrier()
    assert capsys.readouterr().out == "x=1.0\n"  # printed by the run, not again by the search


# --- what checks cost -----------------------------------------------------------------------


def test_no_checks_without_the_flags_and_one_compile_when_one_fires():
    f = jax.jit(lambda x: jnp.log(x) * 2.0)
    assert np.isnan(f(-1.0))
    before = runtime.compile_count
    assert np.isnan(f(-1.0))
    assert runtime.compile_count == before  # the plain program, nothing more
    with jax.debug_nans(True):
        assert f(2.0) == pytest.approx(2 * np.log(2.0))
        checked = runtime.compile_count  # the checked signature (the flag is part of the key)
        with pytest.raises(FloatingPointError):
            f(-1.0)
        assert runtime.compile_count == checked + 1  # the tested program, for this failure only
        for _ in range(3):  # a failure that repeats runs the tested program it compiled
            with pytest.raises(FloatingPointError, match="log"):
                f(-2.0)
        assert runtime.compile_count == checked + 1


def test_a_nan_made_but_not_output_is_not_reported(nans):
    def f(x):
        return jnp.where(x > 0, jnp.log(x), 0.0)

    assert jax.jit(f)(-1.0) == 0.0
