"""Libraries that walk `make_jaxpr`'s jaxprs, unchanged, under the alias (in subprocesses).

haiku's `jaxpr_info` (module summaries and its FLOP counter) runs its own shipped tests; equinox
builds `filter_make_jaxpr` and `filter_closure_convert` on `ClosedJaxpr.jaxpr`/`.consts` and
`jax.core.eval_jaxpr`. A library that is not installed skips its test.
"""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

from tests.ecosystem.test_compat import _run


def _needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")


def test_haiku_jaxpr_info_shipped_tests():
    _needs("haiku")
    # haiku is not imported here: it imports jax, which only the subprocess's alias provides
    haiku_dir = pathlib.Path(importlib.util.find_spec("haiku").origin).parent
    tests = haiku_dir / "_src" / "jaxpr_info_test.py"
    # test_haiku_module_loss compares the name stacks JAX gives a gradient's equations
    # ("jvp(my_model)", "transpose(jvp(...))"); stablax's rewrites keep the scopes of the
    # traced function only (and the test reads jax.version first).
    # addopts emptied: where the library lives under this checkout (a CI virtualenv), pytest
    # would read this project's options too, and -q twice hides the count of passed tests.
    args = (
        "-m",
        "stablax.as_jax",
        "-m",
        "pytest",
        "-o",
        "addopts=",
        "-q",
        "-p",
        "no:cacheprovider",
    )
    proc = _run("", *args, str(tests), "-k", "not test_haiku_module_loss")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "3 passed" in proc.stdout


def test_equinox_make_jaxpr_and_closure_convert():
    _needs("equinox")
    proc = _run(
        """
        from stablax import install_as_jax
        install_as_jax()
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        jaxpr, out, static = eqx.filter_make_jaxpr(lambda x, s: jnp.sin(x) * 2.0)(
            jnp.ones(3), "static"
        )
        assert [e.primitive.name for e in jaxpr.eqns][0] == "sin", jaxpr.eqns
        assert out.shape == (3,) and static is None

        def outer(w):
            g = eqx.filter_closure_convert(lambda x: jnp.sum(x * w), jnp.ones(3))
            # a traced w it closes over is a const of its jaxpr, as in JAX
            assert len(jax.tree.leaves(g.consts)) == isinstance(w, jax.core.Tracer)
            return g(jnp.arange(3.0))

        print(outer(2.0), jax.grad(outer)(2.0), jax.jit(jax.grad(outer))(2.0))
        """
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.split() == ["6.0", "3.0", "3.0"]
