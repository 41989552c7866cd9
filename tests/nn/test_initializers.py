"""stablax.nn.initializers against JAX's draws recorded by scripts/record_nn_reference.py.

Every initializer consumes its key exactly as JAX does, so the bits match; orthogonal matrices
come from a QR factorisation whose last ulps depend on the CPU's LAPACK (see
tests/random/test_reference.py) and are compared within 1e-6.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import stablax
from stablax import random
from stablax.nn import initializers

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "nn"
CASES = json.loads((DATA / "initializers.json").read_text())
VALUES = np.load(DATA / "values.npz")


def _draw(case):
    factory = getattr(initializers, case["factory"])
    init = factory if case["factory"] in ("zeros", "ones") else factory(**case["kwargs"])
    key = random.PRNGKey(case["seed"])
    shape = tuple(case["shape"])
    return init(key, shape) if case["dtype"] is None else init(key, shape, case["dtype"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['factory']}-{c['id']}")
def test_initializer_matches_jax(case):
    previous = stablax.config.jax_enable_x64
    stablax.config.update("jax_enable_x64", case["x64"])
    try:
        out = _draw(case)
        assert str(out.dtype) == case["result_dtype"]
        got = np.asarray(out)
    finally:
        stablax.config.update("jax_enable_x64", previous)
    want = VALUES[case["id"]]
    if got.dtype.name == "bfloat16":
        got = got.view(np.uint16)
    assert got.shape == want.shape
    if "orthogonal" in case["factory"]:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def test_every_initializer_has_a_recorded_case():
    recorded = {c["factory"] for c in CASES}
    assert set(initializers.__all__) - {"Initializer"} <= recorded


def test_orthogonal_columns_are_orthonormal():
    q = np.asarray(initializers.orthogonal(scale=3.0)(random.PRNGKey(3), (6, 4)))
    np.testing.assert_allclose(q.T @ q, 9.0 * np.eye(4), atol=1e-5)


def test_delta_orthogonal_is_zero_off_centre():
    w = np.array(initializers.delta_orthogonal()(random.PRNGKey(0), (3, 3, 2, 4)))
    centre = w[1, 1]
    np.testing.assert_allclose(centre @ centre.T, np.eye(2), atol=1e-6)
    w[1, 1] = 0
    assert not w.any()


def test_initializer_protocol_and_errors():
    assert isinstance(initializers.glorot_normal(), initializers.Initializer)
    key = random.PRNGKey(0)
    with pytest.raises(ValueError, match="at least 2D or specify in_axis"):
        initializers.lecun_normal()(key, (5,))
    with pytest.raises(ValueError, match="invalid mode"):
        initializers.variance_scaling(1.0, "fan_sideways", "normal")(key, (2, 2))
    with pytest.raises(ValueError, match="invalid distribution"):
        initializers.variance_scaling(1.0, "fan_in", "cauchy")(key, (2, 2))
    with pytest.raises(ValueError, match="at least a 2D shape"):
        initializers.orthogonal()(key, (3,))
    with pytest.raises(ValueError, match="3D, 4D or 5D"):
        initializers.delta_orthogonal()(key, (3, 3))
    with pytest.raises(ValueError, match="fan_in"):
        initializers.delta_orthogonal()(key, (3, 4, 2))
    assert np.asarray(initializers.orthogonal()(key, (0, 3))).shape == (0, 3)


def test_variance_scaling_statistics():
    # 4096 draws of a fan_in = 64 layer: the sample variance is scale / fan_in within 10%.
    for distribution in ("normal", "truncated_normal", "uniform"):
        init = initializers.variance_scaling(2.0, "fan_in", distribution)
        w = np.asarray(init(random.PRNGKey(1), (64, 64)))
        assert abs(w.var() / (2.0 / 64) - 1) < 0.1, distribution
