"""Shared fixtures: x64 toggling and a NumPy random generator per test; a session that runs
the quick fuzz ends with its seed (tests/reliability/test_fuzz_quick.py)."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

# The persistent compilation cache of a test session (and of the processes it starts) is its own.
os.environ["STABLAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="stablax-test-cache-")

from stablax._src.config import config
from tests.reliability.fuzz_seed import quick_fuzz_seed


@pytest.fixture
def x64():
    """Runs the test with jax_enable_x64 on, restoring the previous value afterwards."""
    previous = config.jax_enable_x64
    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", previous)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def pytest_terminal_summary(terminalreporter):
    """The quick fuzz's seed, at the end of a session that ran it (also under -q and xdist)."""
    reports = [r for kind in ("passed", "failed") for r in terminalreporter.stats.get(kind, [])]
    if any("test_fuzz_quick.py" in getattr(r, "nodeid", "") for r in reports):
        seed, origin = quick_fuzz_seed()
        terminalreporter.write_line(f"stablax quick fuzz seed: {seed} ({origin})")
