"""stablax.scipy.spatial.transform: Rotation and Slerp against SciPy, as pytrees under jit/vmap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation as SciPyRotation
from scipy.spatial.transform import Slerp as SciPySlerp

import stablax
import stablax.numpy as jnp
from stablax.scipy.spatial.transform import Rotation, Slerp
from stablax.test_util import check_grads


def _quats(n, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal((n, 4)).astype(dtype)


def _close(actual, expected, tol=2e-5):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=tol, atol=tol)


CONVERSIONS = [
    ("as_matrix", lambda r: r.as_matrix()),
    ("as_rotvec", lambda r: r.as_rotvec()),
    ("as_rotvec_degrees", lambda r: r.as_rotvec(degrees=True)),
    ("as_mrp", lambda r: r.as_mrp()),
    ("as_quat_canonical", lambda r: r.as_quat(canonical=True)),
    ("as_quat_scalar_first", lambda r: r.as_quat(scalar_first=True)),
    ("as_euler_xyz", lambda r: r.as_euler("xyz")),
    ("as_euler_ZYZ_degrees", lambda r: r.as_euler("ZYZ", degrees=True)),
    ("as_euler_yxz", lambda r: r.as_euler("yxz")),
    ("magnitude", lambda r: r.magnitude()),
    ("inv", lambda r: r.inv().as_matrix()),
    ("compose", lambda r: (r * r.inv()[::-1]).as_matrix()),
    ("apply", lambda r: r.apply(np.arange(len(r) * 3.0).reshape(-1, 3))),
    ("apply_inverse", lambda r: r.apply(np.arange(3.0), inverse=True)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_conversions_match_scipy(case, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    _, fn = case
    q = _quats(5, dtype)
    tol = 1e-10 if dtype == np.float64 else 5e-5
    _close(fn(Rotation.from_quat(q)), fn(SciPyRotation.from_quat(q)), tol)


CONSTRUCTORS = [
    ("from_euler_intrinsic", lambda m, x: m.from_euler("XYZ", x[:, :3]), 3),
    ("from_euler_extrinsic_degrees", lambda m, x: m.from_euler("zx", 40 * x[:, :2], True), 2),
    ("from_euler_single_axis", lambda m, x: m.from_euler("y", x[:, :1]), 1),  # JAX: (N, 1)
    ("from_rotvec", lambda m, x: m.from_rotvec(x[:, :3]), 3),
    ("from_rotvec_small", lambda m, x: m.from_rotvec(1e-5 * x[:, :3]), 3),
    ("from_mrp", lambda m, x: m.from_mrp(x[:, :3] / 3), 3),
    ("from_matrix", lambda m, x: m.from_matrix(SciPyRotation.from_quat(x).as_matrix()), 4),
]


@pytest.mark.parametrize("case", CONSTRUCTORS, ids=[c[0] for c in CONSTRUCTORS])
def test_constructors_match_scipy(case):
    _, build, _ = case
    x = _quats(6).astype(np.float64)
    ours, theirs = build(Rotation, x.astype(np.float32)), build(SciPyRotation, x)
    _close(ours.as_matrix(), theirs.as_matrix(), 5e-5)


def test_mean_concatenate_identity_and_indexing():
    q = _quats(4)
    r, s = Rotation.from_quat(q), SciPyRotation.from_quat(q)
    _close(np.abs(r.mean().as_matrix()), np.abs(s.mean().as_matrix()), 5e-5)
    weights = np.array([1.0, 2.0, 0.5, 1.0], np.float32)
    _close(r.mean(weights).as_matrix(), s.mean(weights).as_matrix(), 5e-5)
    assert len(Rotation.concatenate([r, r[1:]])) == 7
    _close(Rotation.identity().as_matrix(), np.eye(3))
    assert Rotation.from_quat(q[0]).single and not r.single
    with pytest.raises(TypeError, match="not subscriptable"):
        Rotation.from_quat(q[0])[0]
    with pytest.raises(NotImplementedError):
        Rotation.random(None)


def test_slerp_matches_scipy():
    q = _quats(4)
    times = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
    ours, theirs = (
        Slerp.init(times, Rotation.from_quat(q)),
        SciPySlerp(times, SciPyRotation.from_quat(q)),
    )
    at = np.array([0.0, 0.3, 1.7, 2.5, 3.99], np.float32)
    _close(ours(at).as_matrix(), theirs(at).as_matrix(), 5e-5)
    assert ours(1.2).single
    with pytest.raises(ValueError, match="at least 2 rotations"):
        Slerp.init(times[:1], Rotation.from_quat(q[:1]))


def test_rotations_are_pytrees_under_jit_vmap_and_grad(x64):
    q = _quats(3, np.float64)
    expected = SciPyRotation.from_quat(q).as_euler("xyz")
    _close(stablax.jit(lambda r: r.as_euler("xyz"))(Rotation.from_quat(q)), expected, 1e-10)
    _close(stablax.vmap(lambda x: Rotation.from_quat(x).as_rotvec())(q),
           SciPyRotation.from_quat(q).as_rotvec(), 1e-10)  # fmt: skip
    check_grads(lambda x: Rotation.from_quat(x).apply(jnp.ones(3)), (q,), order=1)
    check_grads(lambda x: Rotation.from_rotvec(x).as_quat(), (q[:, :3],), order=1)


def test_sequence_errors():
    with pytest.raises(ValueError, match="consecutive axes"):
        Rotation.from_euler("xxy", np.zeros(3))
    with pytest.raises(ValueError, match="Expected axes"):
        Rotation.from_euler("xYz", np.zeros(3))
    with pytest.raises(ValueError, match="Expected 3 axes"):
        Rotation.from_quat(_quats(1)).as_euler("xy")
