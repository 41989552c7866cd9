"""`jit(f).trace(*args, **kwargs)` -> `stages.Traced` -> `.lower()` -> `.compile()`, as in JAX.

Arguments are passed as to the function itself (static ones included); the stages keep the
argument and output structure (`args_info`, `out_info`), and no stage traces again.
"""

from __future__ import annotations

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
