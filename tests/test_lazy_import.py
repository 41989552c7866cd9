"""`import stablax` loads what a first program needs; the other libraries load on first use and
are then ordinary attributes (issue 16, point 8: import time)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

# (attribute path, module that must stay unloaded until it is touched)
LAZY = [
    ("nn", "stablax._src.nn.activations"),
    ("scipy", "stablax._src.scipy"),
    ("random", "stablax._src.random.continuous"),
    ("image", "stablax._src.image"),
    ("profiler", "stablax._src.profiler"),
    ("example_libraries", "stablax.example_libraries"),
    ("numpy.linalg", "stablax.numpy.linalg"),
    ("numpy.fft", "stablax.numpy.fft"),
    ("array_api", "stablax.array_api"),
    ("lax.linalg", "stablax.lax.linalg"),
]


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=_SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_first_import_leaves_libraries_unloaded():
    # difflib: only a pytree-prefix error message uses it.
    modules = [m for _, m in LAZY] + ["stablax._src.lax._fft", "stablax._src.lax._conv", "difflib"]
    loaded = _run(
        "import sys, stablax, stablax.numpy\n"
        f"print(','.join(m for m in {modules!r} if m in sys.modules))"
    )
    assert loaded == ""


@pytest.mark.parametrize("path,module", LAZY, ids=[p for p, _ in LAZY])
def test_attribute_access_loads_the_library(path, module):
    leaf = path.split(".")[-1]
    code = (
        "import sys, stablax, stablax.numpy\n"
        f"obj = stablax.{path}\n"
        "parent = sys.modules[obj.__name__.rpartition('.')[0]]\n"
        f"print(obj.__name__, {module!r} in sys.modules, {leaf!r} in dir(parent))"
    )
    name, loaded, listed = _run(code).split()
    assert name == f"stablax.{path}" and loaded == "True" and listed == "True"


def test_unknown_attribute_raises_attribute_error():
    import stablax

    with pytest.raises(AttributeError, match="no_such_thing"):
        stablax.no_such_thing  # noqa: B018
    with pytest.raises(AttributeError, match="no_such_thing"):
        stablax.numpy.no_such_thing  # noqa: B018


def test_import_skips_what_stablax_never_calls_at_first():
    """opt_einsum loads with the first einsum; the generated op classes of the stablehlo and
    func dialects not during import (stablax builds ops by name)."""
    code = (
        "import sys, stablax, stablax.numpy as jnp\n"
        "skipped = ['opt_einsum', 'jaxlib.mlir.dialects._stablehlo_ops_gen',\n"
        "           'jaxlib.mlir.dialects._func_ops_gen']\n"
        "print('loaded:' + ','.join(m for m in skipped if m in sys.modules))\n"
        "jnp.einsum('ij,jk->ik', jnp.ones((2, 3)), jnp.ones((3, 4)))\n"
        "print('opt_einsum' in sys.modules)"
    )
    loaded, einsum_loaded = _run(code).split("\n")
    assert loaded == "loaded:" and einsum_loaded == "True"


def test_numpy_families_load_on_first_use_of_a_name():
    """`jnp.histogram` loads its family on first use, wrapped as the eager names are (JAX's list
    check, the traceback filter); `dir(jnp)` lists every lazy name from the start."""
    code = (
        "import sys, stablax.numpy as jnp\n"
        "families = ['stablax._src.numpy.' + f for f in jnp._LAZY_FAMILIES]\n"
        "print('loaded:' + ','.join(m for m in families if m in sys.modules))\n"
        "print(all(n in dir(jnp) for n in jnp._LAZY_NAMES))\n"
        "print(float(jnp.nanmean(jnp.array([1.0, float('nan'), 3.0]))))\n"
        "print('stablax._src.numpy._nanfuncs' in sys.modules, 'nanmax' in vars(jnp))\n"
        "try:\n"
        "    jnp.nanmax([1.0])\n"
        "except TypeError as e:\n"
        "    print(type(e).__name__)\n"
        "from stablax.numpy import einsum\n"
        "print(einsum is jnp.einsum)"
    )
    loaded, listed, value, family, error, same = _run(code).split("\n")
    assert loaded == "loaded:" and listed == "True" and value == "2.0"
    assert family == "True True" and error == "TypeError" and same == "True"


def test_a_lax_family_brings_every_rule_of_its_ops():
    """An op family stablax.lax defers (fft, conv, rng, ...) loads with the first use of one of
    its names and registers every rule of its ops itself: differentiating and batching an fft
    loads no other deferred family, and the tables know nothing of a family not yet loaded."""
    code = (
        "import sys, stablax, stablax.numpy as jnp\n"
        "from stablax._src import op_rules\n"
        "print('stablehlo.fft' in op_rules.jvp_rules, 'stablehlo.fft' in op_rules.batch_rules)\n"
        "f = lambda v: stablax.lax.fft(v.astype(jnp.complex64), 'FFT', (4,)).real.sum()\n"
        "g = stablax.grad(f)\n"
        "print(float(g(jnp.ones(4))[0]), stablax.vmap(g)(jnp.ones((2, 4))).shape)\n"
        "print('stablax._src.lax._fft' in sys.modules, 'stablax._src.lax._conv' in sys.modules)\n"
        "print(op_rules.batch_rules.get('stablehlo.convolution'))"
    )
    before, value, families, conv = _run(code).split("\n")
    assert before == "False False" and value == "4.0 (2, 4)"
    assert families == "True False" and conv == "None"
