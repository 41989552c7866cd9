"""Every script in examples/ runs in its quick setting (a subprocess, as a user runs it) and
prints what it promises: JAX's values where they are known, accuracies and agreements.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def _number(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in:\n{text}"
    return float(match.group(1))


def check_quickstart(out: str) -> None:
    assert "grad(tanh)(1.0)                = 0.4199743" in out
    assert "grad(abs_val)(1.0)  = 1.0" in out and "grad(abs_val)(-1.0) = -1.0" in out
    assert "normal(key, (3,))         = [ 1.6226422   2.0252647  -0.43359444]" in out  # JAX's
    assert _number(r"jit \(1 fused kernel\): +([\d.]+) ms", out) > 0
    assert _number(r"from a Python loop of grad calls: ([\d.e+-]+)", out) < 1e-5
    assert "jax.devices()         = [" in out


def check_mnist(out: str) -> None:
    assert len(re.findall(r"epoch +\d+ in +[\d.]+ s", out)) == 3
    assert _number(r"test accuracy ([\d.]+)%", out) > 90.0


def check_cnn(out: str) -> None:
    assert _number(r"test accuracy ([\d.]+)%", out) > 60.0


def check_per_example(out: str) -> None:
    assert _number(r"between vmap and the loop: ([\d.e+-]+)", out) < 1e-4
    assert _number(r"vmap is (\d+)x faster", out) >= 1


def check_hessian(out: str) -> None:
    errors = [float(e) for e in re.findall(r"central differences ([\d.e+-]+)", out)]
    assert len(errors) == 2 and max(errors) < 1e-6


def check_logistic_regression(out: str) -> None:
    # the first JAX README's numbers (JAX 0.10.2 prints the same)
    assert "Initial loss: 2.77" in out and "Trained loss: 0.17" in out


EXAMPLES = [
    ("quickstart.py", ("--quick",), check_quickstart),
    ("mnist_classifier.py", ("--quick",), check_mnist),
    ("stax_cnn.py", ("--quick",), check_cnn),
    ("per_example_grads.py", ("--quick",), check_per_example),
    ("hessian.py", ("--quick",), check_hessian),
    ("logistic_regression.py", (), check_logistic_regression),
]


@pytest.mark.parametrize("script, args, check", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example_runs(script, args, check):
    check(_run(script, *args))


def test_every_example_is_tested():
    scripts = {p.name for p in (ROOT / "examples").glob("*.py")} - {"digits_data.py"}
    assert scripts == {e[0] for e in EXAMPLES}
