"""scipy.spatial.transform: 3-D rotations stored as unit quaternions (x, y, z, w), and spherical
linear interpolation between them. Both are NamedTuples, hence pytrees.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from stablax import numpy as jnp
from stablax._src.jit import jit


def _vectorize(signature: str):
    # One compiled program per kernel and shape: the eager path dispatches it once.
    return lambda fn: jit(jnp.vectorize(fn, signature=signature))


def _check_sequence(seq: str, lengths: range) -> tuple[bool, bool]:
    if len(seq) not in lengths:
        raise ValueError(
            f"Expected axis specification to be a non-empty string of upto 3 characters, got {seq}"
        )
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError(
            f"Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], got {seq}"
        )
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic, extrinsic


def _axis_index(axis: str) -> int:
    if axis not in "xyz":
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return "xyz".index(axis)


class Rotation(NamedTuple):
    """Rotations in 3 dimensions (scipy.spatial.transform.Rotation), one or a stack.

    Build one with the `from_*` class methods; `quat` holds the (..., 4) scalar-last unit
    quaternions.
    """

    quat: Any

    @classmethod
    def concatenate(cls, rotations: Sequence[Rotation]) -> Rotation:
        """The rotations of several stacks, one after the other."""
        return cls(jnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles: Any, degrees: bool = False) -> Rotation:
        """From Euler angles about the axes of `seq` ("xyz": extrinsic, "XYZ": intrinsic)."""
        intrinsic, _ = _check_sequence(seq, range(1, 4))
        angles = jnp.atleast_1d(angles)
        axes = jnp.array([_axis_index(a) for a in seq.lower()])
        return cls(_elementary_quat_compose(angles, axes, intrinsic, degrees))

    @classmethod
    def from_matrix(cls, matrix: Any) -> Rotation:
        """From (..., 3, 3) rotation matrices."""
        return cls(_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp: Any) -> Rotation:
        """From (..., 3) modified Rodrigues parameters."""
        return cls(_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat: Any) -> Rotation:
        """From (..., 4) scalar-last quaternions (normalized)."""
        return cls(_normalize_quaternion(quat))

    @classmethod
    def from_rotvec(cls, rotvec: Any, degrees: bool = False) -> Rotation:
        """From (..., 3) rotation vectors (axis times angle)."""
        return cls(_from_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype: Any = float) -> Rotation:
        """The identity rotation (a single one: `num` must be None, as in JAX)."""
        assert num is None
        return cls(jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key: Any, num: int | None = None) -> Rotation:
        """Not implemented in JAX either."""
        raise NotImplementedError()

    def __getitem__(self, indexer: Any) -> Rotation:
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self) -> int:
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other: Rotation) -> Rotation:  # type: ignore[override]
        """The composition: apply `other` first, then self."""
        return Rotation.from_quat(_compose_quat(self.quat, other.quat))

    def apply(self, vectors: Any, inverse: bool = False) -> Any:
        """Rotates (..., 3) vectors (by the inverse rotation when `inverse`)."""
        return _apply(self.as_matrix(), vectors, inverse)

    def as_euler(self, seq: str, degrees: bool = False) -> Any:
        """Euler angles (..., 3) about the three axes of `seq`."""
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        _, extrinsic = _check_sequence(seq, range(3, 4))
        axes = jnp.array([_axis_index(a) for a in seq.lower()])
        return _euler_from_quat(self.quat, axes, extrinsic, degrees)

    def as_matrix(self) -> Any:
        """(..., 3, 3) rotation matrices."""
        return _as_matrix(self.quat)

    def as_mrp(self) -> Any:
        """(..., 3) modified Rodrigues parameters."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False) -> Any:
        """(..., 3) rotation vectors."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False) -> Any:
        """(..., 4) quaternions: canonical ones have w >= 0 (ties broken on x, y, z)."""
        quat = _make_canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self) -> Rotation:
        """The inverse rotations."""
        return Rotation(_inv(self.quat))

    def magnitude(self) -> Any:
        """The rotation angles, in [0, pi]."""
        return _magnitude(self.quat)

    def mean(self, weights: Any = None) -> Rotation:
        """The (weighted) mean rotation: the dominant eigenvector of sum w q q^T."""
        w = (
            jnp.ones(self.quat.shape[0], dtype=self.quat.dtype)
            if weights is None
            else jnp.asarray(weights, dtype=self.quat.dtype)
        )
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError(
                "Expected `weights` to have number of values equal to number of rotations, got "
                f"{w.shape[0]} values and {len(self)} rotations."
            )
        k = jnp.dot(w[np.newaxis, :] * self.quat.T, self.quat)
        _, v = jnp.linalg.eigh(k)
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        """Whether this is one rotation (not a stack)."""
        return self.quat.ndim == 1


class Slerp(NamedTuple):
    """Spherical linear interpolation of rotations (scipy.spatial.transform.Slerp).

    Build with `Slerp.init(times, rotations)`; call with the times to interpolate at.
    """

    times: Any
    timedelta: Any
    rotations: Rotation
    rotvecs: Any

    @classmethod
    def init(cls, times: Any, rotations: Rotation) -> Slerp:
        """The interpolator of `rotations` (at least 2) given at increasing `times`."""
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError(
                "Expected times to be specified in a 1 dimensional array, got "
                f"{times.ndim} dimensions."
            )
        if times.shape[0] != len(rotations):
            raise ValueError(
                "Expected number of rotations to be equal to number of timestamps given, got "
                f"{len(rotations)} rotations and {times.shape[0]} timestamps."
            )
        starts = Rotation(rotations.as_quat()[:-1])
        steps = (starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec()
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times: Any) -> Rotation:
        """The interpolated rotations at `times` (a scalar gives a single rotation)."""
        at = jnp.asarray(times, dtype=self.times.dtype)
        if at.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = at.ndim == 0
        at = jnp.atleast_1d(at)
        index = jnp.maximum(jnp.searchsorted(self.times, at) - 1, 0)
        alpha = (at - self.times[index]) / self.timedelta[index]
        result = self.rotations[index] * Rotation.from_rotvec(self.rotvecs[index] * alpha[:, None])
        return result[0] if single else result


# --- per-quaternion kernels, vectorized over leading axes ----------------------------------------


@_vectorize("(m,m),(m),()->(m)")
def _apply(matrix, vector, inverse):
    return jnp.where(inverse, matrix.T, matrix) @ vector


@_vectorize("(m)->(n,n)")
def _as_matrix(quat):
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return jnp.array(
        [
            [+x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2],
        ]
    )


@_vectorize("(m)->(n)")
def _as_mrp(quat):
    sign = jnp.where(quat[3] < 0, -1.0, 1.0)
    return sign * quat[:3] / (1.0 + sign * quat[3])


@_vectorize("(m),()->(n)")
def _as_rotvec(quat, degrees):
    quat = jnp.where(quat[3] < 0, -quat, quat)
    angle = 2.0 * jnp.arctan2(_vector_norm(quat[:3]), quat[3])
    angle2 = angle * angle
    small = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880  # Taylor series of angle / sin(angle/2)
    scale = jnp.where(angle <= 1e-3, small, angle / jnp.sin(angle / 2))
    scale = jnp.where(degrees, jnp.rad2deg(scale), scale)
    return scale * jnp.array(quat[:3])


@_vectorize("(n),(n)->(n)")
def _compose_quat(p, q):
    cross = jnp.cross(p[:3], q[:3])
    return jnp.array(
        [
            p[3] * q[0] + q[3] * p[0] + cross[0],
            p[3] * q[1] + q[3] * p[1] + cross[1],
            p[3] * q[2] + q[3] * p[2] + cross[2],
            p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2],
        ]
    )


@_vectorize("(m),(l),(),()->(n)")
def _euler_from_quat(quat, axes, extrinsic, degrees):
    # Bernardes and Viollet (2022), "Quaternion to Euler angles conversion".
    first = jnp.where(extrinsic, 0, 2)
    third = jnp.where(extrinsic, 2, 0)
    axes = jnp.where(extrinsic, axes, axes[::-1])
    i, j, k = axes[0], axes[1], axes[2]
    symmetric = i == k
    k = jnp.where(symmetric, 3 - i - j, k)
    sign = jnp.array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)
    eps = 1e-7
    a = jnp.where(symmetric, quat[3], quat[3] - quat[j])
    b = jnp.where(symmetric, quat[i], quat[i] + quat[k] * sign)
    c = jnp.where(symmetric, quat[j], quat[j] + quat[3])
    d = jnp.where(symmetric, quat[k] * sign, quat[k] * sign - quat[i])
    angles = jnp.empty(3, dtype=quat.dtype)
    angles = angles.at[1].set(2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b)))
    # Gimbal lock: case 1 at angle 0, case 2 at pi.
    case = jnp.where(jnp.abs(angles[1] - np.pi) <= eps, 2, 0)
    case = jnp.where(jnp.abs(angles[1]) <= eps, 1, case)
    half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
    angles = angles.at[0].set(
        jnp.where(case == 1, 2 * half_sum, 2 * half_diff * jnp.where(extrinsic, -1, 1))
    )
    angles = angles.at[first].set(jnp.where(case == 0, half_sum - half_diff, angles[first]))
    angles = angles.at[third].set(jnp.where(case == 0, half_sum + half_diff, angles[third]))
    angles = angles.at[third].set(jnp.where(symmetric, angles[third], angles[third] * sign))
    angles = angles.at[1].set(jnp.where(symmetric, angles[1], angles[1] - np.pi / 2))
    angles = (angles + np.pi) % (2 * np.pi) - np.pi
    return jnp.where(degrees, jnp.rad2deg(angles), angles)


@_vectorize("(m),(m),(),()->(n)")
def _elementary_quat_compose(angles, axes, intrinsic, degrees):
    angles = jnp.where(degrees, jnp.deg2rad(angles), angles)
    result = _make_elementary_quat(axes[0], angles[0])
    for index in range(1, len(axes)):
        quat = _make_elementary_quat(axes[index], angles[index])
        result = jnp.where(intrinsic, _compose_quat(result, quat), _compose_quat(quat, result))
    return result


@_vectorize("(m),()->(n)")
def _from_rotvec(rotvec, degrees):
    rotvec = jnp.where(degrees, jnp.deg2rad(rotvec), rotvec)
    angle = _vector_norm(rotvec)
    angle2 = angle * angle
    small = 0.5 - angle2 / 48 + angle2 * angle2 / 3840  # Taylor series of sin(angle/2) / angle
    scale = jnp.where(angle <= 1e-3, small, jnp.sin(angle / 2) / angle)
    return jnp.hstack([scale * rotvec, jnp.cos(angle / 2)])


@_vectorize("(m,m)->(n)")
def _from_matrix(matrix):
    # Shepperd's method: build the quaternion from its largest component.
    trace = matrix[0, 0] + matrix[1, 1] + matrix[2, 2]
    decision = jnp.array([matrix[0, 0], matrix[1, 1], matrix[2, 2], trace], dtype=matrix.dtype)
    choice = jnp.argmax(decision)
    i = choice
    j = (i + 1) % 3
    k = (j + 1) % 3
    from_diagonal = jnp.empty(4, dtype=matrix.dtype)
    from_diagonal = from_diagonal.at[i].set(1 - decision[3] + 2 * matrix[i, i])
    from_diagonal = from_diagonal.at[j].set(matrix[j, i] + matrix[i, j])
    from_diagonal = from_diagonal.at[k].set(matrix[k, i] + matrix[i, k])
    from_diagonal = from_diagonal.at[3].set(matrix[k, j] - matrix[j, k])
    from_trace = jnp.empty(4, dtype=matrix.dtype)
    from_trace = from_trace.at[0].set(matrix[2, 1] - matrix[1, 2])
    from_trace = from_trace.at[1].set(matrix[0, 2] - matrix[2, 0])
    from_trace = from_trace.at[2].set(matrix[1, 0] - matrix[0, 1])
    from_trace = from_trace.at[3].set(1 + decision[3])
    return _normalize_quaternion(jnp.where(choice != 3, from_diagonal, from_trace))


@_vectorize("(m)->(n)")
def _from_mrp(mrp):
    squared_plus_one = jnp.dot(mrp, mrp) + 1
    return jnp.hstack([2 * mrp[:3], 2 - squared_plus_one]) / squared_plus_one


@_vectorize("(n)->(n)")
def _inv(quat):
    return quat * jnp.array([-1, -1, -1, 1], dtype=quat.dtype)


@_vectorize("(n)->()")
def _magnitude(quat):
    return 2.0 * jnp.arctan2(_vector_norm(quat[:3]), jnp.abs(quat[3]))


@_vectorize("(),()->(n)")
def _make_elementary_quat(axis, angle):
    quat = jnp.zeros(4, dtype=angle.dtype)
    quat = quat.at[3].set(jnp.cos(angle / 2.0))
    return quat.at[axis].set(jnp.sin(angle / 2.0))


@_vectorize("(n)->(n)")
def _normalize_quaternion(quat):
    return quat / _vector_norm(quat)


@_vectorize("(n)->()")
def _vector_norm(vector):
    return jnp.sqrt(jnp.dot(vector, vector))


@_vectorize("(n)->(n)")
def _make_canonical(quat):
    negative, zero = quat < 0, quat == 0
    flip = (
        negative[3]
        | (zero[3] & negative[0])
        | (zero[3] & zero[0] & negative[1])
        | (zero[3] & zero[0] & zero[1] & negative[2])
    )
    return jnp.where(flip, -quat, quat)
