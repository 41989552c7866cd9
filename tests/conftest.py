"""Shared fixtures: x64 toggling and a NumPy random generator per test."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

# The persistent compilation cache of a test session (and of the processes it starts) is its own.
os.environ["STABLAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="stablax-test-cache-")

from stablax._src.config import config


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
