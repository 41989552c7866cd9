"""The suite runs ruff, so lint failures fail the tests as CI sees them."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    if shutil.which("ruff"):
        return ["ruff"]
    return [sys.executable, "-m", "ruff"]


def test_ruff_check_is_clean():
    try:
        result = subprocess.run(
            [*_ruff(), "check", "src", "tests", "benchmarks", "examples"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except FileNotFoundError:
        pytest.fail("ruff is not installed; install the test extra: pip install -e '.[test]'")
    assert result.returncode == 0, result.stdout + result.stderr
