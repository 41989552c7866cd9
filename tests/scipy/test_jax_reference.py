"""stablax against outputs recorded from JAX 0.10.2 (tests/scipy/reference_cases.py): the same
number of results, each of the same shape and dtype, and equal values (exactly for integers
and booleans, within the case's tolerance for floats: LAPACK and XLA round CPU-specifically).
"""

from __future__ import annotations

import pathlib
import types

import numpy as np
import pytest

import stablax
import stablax.experimental.ode
import stablax.lax.linalg
import stablax.numpy
import stablax.scipy
from stablax._src.config import config
from tests.scipy.reference_cases import CASES

DATA = np.load(pathlib.Path(__file__).parent.parent / "data" / "scipy" / "reference.npz")
STABLAX = types.SimpleNamespace(
    lax=stablax.lax, numpy=stablax.numpy, scipy=stablax.scipy, ode=stablax.experimental.ode,
    random=stablax.random,
)  # fmt: skip


def _recorded(name: str, kind: str) -> list[np.ndarray]:
    out, i = [], 0
    while f"{name}/{kind}{i}" in DATA:
        out.append(DATA[f"{name}/{kind}{i}"])
        i += 1
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_jax(case):
    previous = config.jax_enable_x64
    config.update("jax_enable_x64", case.x64)
    try:
        inputs = _recorded(case.name, "in")
        actual = [np.asarray(a) for a in stablax.tree_util.tree_leaves(case.fn(STABLAX, *inputs))]
    finally:
        config.update("jax_enable_x64", previous)
    expected = _recorded(case.name, "out")
    assert len(actual) == len(expected), f"{len(actual)} results, JAX gave {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert a.shape == e.shape and a.dtype == e.dtype, (i, a.shape, a.dtype, e.shape, e.dtype)
        if e.dtype.kind in "biu":
            np.testing.assert_array_equal(a, e, err_msg=f"result {i}")
        else:
            wide = e.dtype in (np.float64, np.complex128)
            tol = case.rtol if case.rtol is not None else (1e-10 if wide else 1e-5)
            scale = max(1.0, float(np.nanmax(np.abs(e)))) if e.size else 1.0
            np.testing.assert_allclose(a, e, rtol=tol, atol=tol * scale, err_msg=f"result {i}")
