"""`jit(f).trace(*args, **kwargs)` -> `stages.Traced` -> `.lower()` -> `.compile()`, as in JAX.

Arguments are passed as to the function itself (static ones included); the stages keep the
argument and output structure (`args_info`, `out_info`), and no stage traces again.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
import pytest

import stablax
import stablax.numpy as jnp
from stablax import stages
from tests.helpers import close


@partial(stablax.jit, static_argnums=1, donate_argnums=0)
def _f(x, n, *, y):
    return {"a": x * n + y, "b": (jnp.sum(x),)}


X = np.arange(3.0, dtype=np.float32)


def _want(x, n, y):
    return {"a": x * n + y, "b": (np.sum(x),)}


def test_trace_takes_the_function_arguments():
    traced = _f.trace(X, 2, y=1.0)
    assert isinstance(traced, stages.Traced)
    assert traced.fun_name == "_f"
    (x_info,), kw_info = traced.args_info
    assert x_info.shape == (3,) and x_info.dtype == np.float32 and x_info.donated
    assert kw_info["y"].shape == () and not kw_info["y"].donated
    assert traced.donate_argnums == (0,)
    out = traced.out_info
    assert out["a"] == stablax.ShapeDtypeStruct((3,), jnp.float32)
    assert out["b"][0].shape == ()
    assert traced.out_avals["a"].shape == (3,)
    assert "stablehlo.multiply" in str(traced.jaxpr)


def test_trace_lower_compile_chain_runs():
    calls = []

    @stablax.jit
    def g(x, y):
        calls.append(1)
        return jnp.sin(x) * y

    traced = g.trace(X, 2.0)
    lowered = traced.lower()
    assert isinstance(lowered, stages.Lowered)
    assert lowered.args_info[0][0].shape == (3,)
    assert lowered.out_info.shape == (3,)
    compiled = lowered.compile()
    assert isinstance(compiled, stages.Compiled)
    close(compiled(X, 2.0), np.sin(X) * 2)
    close(traced(X, 3.0), np.sin(X) * 3)
    assert len(calls) == 1  # traced once; lower and compile reuse the trace
    close(g.lower(X, 2.0).compile()(X, 4.0), np.sin(X) * 4)


@pytest.mark.parametrize("n", [1, 3])
def test_static_and_keyword_arguments_through_the_stages(n):
    compiled = _f.trace(X, n, y=0.5).lower().compile()
    got = compiled(np.array(X), y=0.5)  # static arguments are not passed to a Compiled
    want = _want(X, n, 0.5)
    close(got["a"], want["a"])
    close(got["b"][0], want["b"][0])
    shapes = _f.eval_shape(X, n, y=0.5)
    assert shapes["a"] == stablax.ShapeDtypeStruct((3,), jnp.float32)


def test_compiled_refuses_another_signature():
    compiled = stablax.jit(lambda x: x + 1).trace(X).lower().compile()
    with pytest.raises(TypeError, match="different signature"):
        compiled(np.ones(4, np.float32))


def test_traced_jaxpr_evaluates():
    closed = (
        stablax.jit(lambda a, b: (a @ b, a + b)).trace(np.eye(2, dtype=np.float32), X[:2]).jaxpr
    )
    got = stablax.core.eval_jaxpr(closed.jaxpr, closed.consts, np.eye(2, dtype=np.float32), X[:2])
    close(got[0], X[:2])
    close(got[1], np.eye(2) + X[:2])


# --- compiler_ir('hlo'), as_text, compile().as_text() -------------------------------------------

# XLA's HLO for these functions, as JAX 0.10.2's `compiler_ir('hlo').as_hlo_text()` prints it.
# Instruction names differ (JAX names them after its primitives and argument names, stablax
# after the HLO opcodes: `sin.1` / `sine.1`, `x.1` / `Arg_0.1`); everything else is the same.
JAX_HLO = {
    "sin_times_2": """HloModule jit__lambda, entry_computation_layout={(f32[3]{0})->f32[3]{0}}

ENTRY main.1 {
  x.1 = f32[3]{0} parameter(0)
  sin.1 = f32[3]{0} sine(x.1)
  constant.1 = f32[] constant(2)
  broadcast.1 = f32[3]{0} broadcast(constant.1), dimensions={}
  ROOT mul.1 = f32[3]{0} multiply(sin.1, broadcast.1)
}

""",
    "dot_highest": (
        "HloModule jit__lambda, "
        "entry_computation_layout={(f32[2,3]{1,0}, f32[3,4]{1,0})->f32[2,4]{1,0}}\n"
        "\n"
        "ENTRY main.1 {\n"
        "  x.1 = f32[2,3]{1,0} parameter(0)\n"
        "  y.1 = f32[3,4]{1,0} parameter(1)\n"
        "  ROOT dot_general.1 = f32[2,4]{1,0} dot(x.1, y.1), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}, operand_precision={highest,highest}\n"
        "}\n"
        "\n"
    ),
    "square": """HloModule jit_square, entry_computation_layout={(f32[3]{0})->f32[3]{0}}

ENTRY main.1 {
  x.1 = f32[3]{0} parameter(0)
  ROOT square.1 = f32[3]{0} multiply(x.1, x.1)
}

""",
    "sum_axis_0": """HloModule jit__lambda, entry_computation_layout={(f32[2,3]{1,0})->f32[3]{0}}

region_0.1 {
  reduce_sum.3 = f32[] parameter(0)
  reduce_sum.4 = f32[] parameter(1)
  ROOT reduce_sum.5 = f32[] add(reduce_sum.3, reduce_sum.4)
}

ENTRY main.2 {
  x.1 = f32[2,3]{1,0} parameter(0)
  constant.1 = f32[] constant(0)
  ROOT reduce_sum.7 = f32[3]{0} reduce(x.1, constant.1), dimensions={0}, to_apply=region_0.1
}

""",
}

HLO_CALLS = {
    "sin_times_2": (lambda x: jnp.sin(x) * 2, (np.ones(3, np.float32),)),
    "dot_highest": (
        lambda x, y: jnp.dot(x, y, precision=stablax.lax.Precision.HIGHEST),
        (np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)),
    ),
    "square": (jnp.square, (np.ones(3, np.float32),)),
    "sum_axis_0": (lambda x: jnp.sum(x, axis=0), (np.ones((2, 3), np.float32),)),
}


def _renamed(hlo: str) -> str:
    """The HLO text with its instruction and computation names replaced by n0, n1, ... in order
    of first appearance."""
    names: dict[str, str] = {}
    return re.sub(
        r"\b[A-Za-z_]\w*\.\d+\b", lambda m: names.setdefault(m.group(), f"n{len(names)}"), hlo
    )


@pytest.mark.parametrize("name", sorted(JAX_HLO))
def test_compiler_ir_hlo_is_what_jax_lowers(name):
    fun, args = HLO_CALLS[name]
    lowered = stablax.jit(fun).lower(*args)
    hlo = lowered.compiler_ir("hlo").as_hlo_text()
    assert _renamed(hlo) == _renamed(JAX_HLO[name])
    assert lowered.as_text("hlo") == hlo


def test_x_squared_lowers_alike_every_way():
    # optax's abs_sq test compares HLO so: the same program for x * x, square and x ** 2.
    def entry(f):
        hlo = stablax.jit(f).lower(np.ones(3, np.float32)).compiler_ir(dialect="hlo").as_hlo_text()
        return _renamed(hlo[hlo.index("ENTRY") :])

    assert entry(lambda x: x * x) == entry(jnp.square) == entry(lambda x: x**2)


def test_compiler_ir_dialects_and_compiled_text():
    lowered = stablax.jit(lambda x: jnp.sin(x) * 2).lower(np.ones(3, np.float32))
    module = lowered.compiler_ir()
    assert module is lowered.compiler_ir("stablehlo")  # an ir.Module, as in JAX
    assert "stablehlo.sine" in str(module) and lowered.as_text() == lowered.as_text("stablehlo")
    with pytest.raises(ValueError, match="unknown dialect: foo"):
        lowered.compiler_ir("foo")
    compiled = lowered.compile().as_text()  # XLA's optimized, scheduled HLO
    assert compiled.startswith("HloModule ") and "is_scheduled=true" in compiled
    assert "sine(" in compiled and "multiply(" in compiled
