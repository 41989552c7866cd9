"""`jax.sharding` under the alias: meshes, partition specs and shardings for one device.

stablax runs every computation on one device, so a mesh here has axes of size 1 only (its
devices are that one device) and every sharding places the whole array on it. The classes carry
JAX's attributes (`mesh.shape`, `spec`, `shard_shape`, `are_all_axes_explicit`, ...) that
optax, flax and equinox read; multi-device meshes raise NotImplementedError naming the feature.
"""

from __future__ import annotations

import abc
import contextlib
import enum
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from stablax._src import runtime

_MULTI = "later issue: parallelism (meshes and sharding over several devices)"


class AxisType(enum.Enum):
    """How a mesh axis is partitioned: by the compiler, explicitly, or by hand."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()


class Sharding(abc.ABC):  # noqa: B024 (abstract by registration, as stablax.Array)
    """The placement of an array's data on devices."""

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    @property
    def addressable_devices(self) -> set[Any]:
        return set(self.device_set)

    def shard_shape(self, global_shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(global_shape)

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict[Any, tuple[slice, ...]]:
        full = tuple(slice(None) for _ in global_shape)
        return {d: full for d in self.device_set}

    def is_equivalent_to(self, other: Any, ndim: int) -> bool:
        return isinstance(other, Sharding) and self.device_set == other.device_set


# The sharding of every concrete stablax array (`x.sharding`) is one of these.
SingleDeviceSharding = runtime.SingleDeviceSharding
Sharding.register(SingleDeviceSharding)
for _name in ("num_devices", "addressable_devices", "shard_shape", "devices_indices_map"):
    if not hasattr(SingleDeviceSharding, _name):
        setattr(SingleDeviceSharding, _name, getattr(Sharding, _name))
SingleDeviceSharding.is_equivalent_to = Sharding.is_equivalent_to


def make_single_device_sharding(device: Any) -> Any:
    """The sharding that puts a whole array on `device`."""
    return runtime.sharding_for(device)


class PartitionSpec(tuple):
    """How each dimension of an array is split over mesh axes (None: not split)."""

    __slots__ = ()

    def __new__(cls, *partitions: Any, unreduced: Any = frozenset(), reduced: Any = frozenset()):
        if unreduced or reduced:
            raise NotImplementedError(f"jax.sharding.PartitionSpec(unreduced=, reduced=): {_MULTI}")
        return super().__new__(cls, partitions)

    unreduced = frozenset()
    reduced = frozenset()

    def __repr__(self) -> str:
        return "P(" + ", ".join(repr(p) for p in self) + ")"

    def __getitem__(self, item: Any) -> Any:
        out = super().__getitem__(item)
        return PartitionSpec(*out) if isinstance(item, slice) else out

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, tuple):
            n = max(len(self), len(other))
            pad = (None,) * n
            return (tuple(self) + pad)[:n] == (tuple(other) + pad)[:n]
        return NotImplemented

    def __hash__(self) -> int:
        trimmed = tuple(self)
        while trimmed and trimmed[-1] is None:
            trimmed = trimmed[:-1]
        return hash(trimmed)

    def _normalized_spec_for_aval(self, ndim: int) -> PartitionSpec:
        return PartitionSpec(*(tuple(self) + (None,) * (ndim - len(self))))


runtime.one_device_specs.append(PartitionSpec)


class AbstractMesh:
    """A mesh's axis names, sizes and types, without devices."""

    def __init__(
        self,
        axis_sizes: Sequence[int] = (),
        axis_names: Sequence[str] = (),
        *,
        axis_types: Any = None,
    ) -> None:
        if len(axis_sizes) != len(axis_names):
            raise ValueError(
                f"AbstractMesh: axis_sizes {tuple(axis_sizes)} and axis_names "
                f"{tuple(axis_names)} differ in length"
            )
        self.axis_sizes = tuple(int(s) for s in axis_sizes)
        self.axis_names = tuple(axis_names)
        if axis_types is None:
            axis_types = (AxisType.Explicit,) * len(self.axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(self.axis_names)
        self.axis_types = tuple(axis_types)

    @property
    def shape(self) -> dict[str, int]:
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def shape_tuple(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        return not self.axis_names

    def _axes_of(self, kind: AxisType) -> tuple[str, ...]:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t == kind)

    @property
    def explicit_axes(self) -> tuple[str, ...]:
        return self._axes_of(AxisType.Explicit)

    @property
    def auto_axes(self) -> tuple[str, ...]:
        return self._axes_of(AxisType.Auto)

    @property
    def manual_axes(self) -> tuple[str, ...]:
        return self._axes_of(AxisType.Manual)

    @property
    def are_all_axes_explicit(self) -> bool:
        return bool(self.axis_types) and all(t == AxisType.Explicit for t in self.axis_types)

    @property
    def are_all_axes_auto(self) -> bool:
        return bool(self.axis_types) and all(t == AxisType.Auto for t in self.axis_types)

    @property
    def abstract_mesh(self) -> AbstractMesh:
        return self

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, AbstractMesh)
            and self.shape_tuple == other.shape_tuple
            and self.axis_types == other.axis_types
        )

    def __hash__(self) -> int:
        return hash((self.shape_tuple, self.axis_types))

    def __repr__(self) -> str:
        return f"AbstractMesh({self.axis_sizes}, axis_names={self.axis_names})"


class Mesh(AbstractMesh):
    """Devices laid out on named axes. With one device, every axis has size 1."""

    def __init__(self, devices: Any, axis_names: Any, *, axis_types: Any = None) -> None:
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        self.devices = np.asarray(devices, dtype=object)
        if self.devices.ndim != len(axis_names):
            raise ValueError(
                f"Mesh: devices has {self.devices.ndim} dimensions but {len(axis_names)} axis "
                f"names {tuple(axis_names)} were given"
            )
        if self.devices.size > 1:
            raise NotImplementedError(
                f"jax.sharding.Mesh over {self.devices.size} devices (stablax alias): {_MULTI}"
            )
        super().__init__(self.devices.shape, axis_names, axis_types=axis_types)
        self._stack: list[Any] = []

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self) -> list[Any]:
        return list(self.devices.flat)

    @property
    def abstract_mesh(self) -> AbstractMesh:
        return AbstractMesh(self.axis_sizes, self.axis_names, axis_types=self.axis_types)

    def __enter__(self) -> Mesh:
        self._stack.append(_state.push(self))
        return self

    def __exit__(self, *exc: Any) -> None:
        _state.pop(self._stack.pop())

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, Mesh)
            and super().__eq__(other)
            and list(self.devices.flat) == list(other.devices.flat)
        )

    def __hash__(self) -> int:
        return hash((self.shape_tuple, tuple(self.devices.flat)))

    def __repr__(self) -> str:
        return f"Mesh({self.shape!r}, axis_types={self.axis_types})"


class NamedSharding(Sharding):
    """An array split over `mesh`'s named axes as `spec` says (one device: not split)."""

    def __init__(self, mesh: AbstractMesh, spec: Any = None, *, memory_kind: Any = None) -> None:
        spec = PartitionSpec() if spec is None else spec
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec)
        for entry in spec:
            names = entry if isinstance(entry, tuple) else (entry,)
            for name in names:
                if name is not None and name not in mesh.axis_names:
                    raise ValueError(
                        f"NamedSharding: spec {spec!r} names axis {name!r}, which mesh "
                        f"{mesh!r} does not have"
                    )
        self.mesh = mesh
        self.spec = spec
        self.memory_kind = memory_kind

    @property
    def device_set(self) -> set[Any]:
        if isinstance(self.mesh, Mesh):
            return set(self.mesh.devices.flat)
        return {runtime.default_device()}

    @property
    def _device_assignment(self) -> tuple[Any, ...]:
        return tuple(self.device_set)

    is_fully_replicated = True
    is_fully_addressable = True

    def with_spec(self, spec: Any) -> NamedSharding:
        return NamedSharding(self.mesh, spec, memory_kind=self.memory_kind)

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, NamedSharding)
            and self.mesh == other.mesh
            and self.spec == other.spec
            and self.memory_kind == other.memory_kind
        )

    def __hash__(self) -> int:
        return hash((self.mesh, self.spec, self.memory_kind))

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"


class _MeshState:
    """The mesh set by `set_mesh` / `with mesh:` / `use_abstract_mesh` (a stack)."""

    def __init__(self) -> None:
        self.stack: list[AbstractMesh] = []

    def push(self, mesh: AbstractMesh) -> int:
        self.stack.append(mesh)
        return len(self.stack)

    def pop(self, depth: int) -> None:
        del self.stack[depth - 1 :]


_state = _MeshState()
_EMPTY = AbstractMesh()


def get_abstract_mesh() -> AbstractMesh:
    """The abstract mesh in force (an empty one outside any mesh context)."""
    return _state.stack[-1].abstract_mesh if _state.stack else _EMPTY


def get_mesh() -> Any:
    """The concrete mesh set by `set_mesh` (an empty mesh when none is)."""
    for mesh in reversed(_state.stack):
        if isinstance(mesh, Mesh):
            return mesh
    return _EMPTY


@contextlib.contextmanager
def _mesh_context(mesh: AbstractMesh) -> Iterator[AbstractMesh]:
    depth = _state.push(mesh)
    try:
        yield mesh
    finally:
        _state.pop(depth)


def set_mesh(mesh: Mesh) -> Any:
    """Sets `mesh` as the mesh in force; usable as a context manager."""
    return _mesh_context(mesh)


def use_abstract_mesh(mesh: AbstractMesh) -> Any:
    """A context in which `get_abstract_mesh()` is `mesh`."""
    return _mesh_context(mesh)


def reshard(xs: Any, out_shardings: Any) -> Any:
    """Places `xs` as `out_shardings` say: with one device, the arrays are already so placed."""
    return xs


def _not_one_device(name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"jax.sharding.{name} (stablax alias): {_MULTI}")

    fn.__name__ = name
    return fn


auto_axes = _not_one_device("auto_axes")  # explicit-sharding code only
explicit_axes = _not_one_device("explicit_axes")  # explicit-sharding code only
AbstractDevice = runtime.Device  # the alias has concrete devices only
ManualAxisType = AxisType


def aval_sharding(aval: Any) -> NamedSharding:
    """The sharding `jax.typeof(x).sharding` reports: `aval`'s dims over the mesh in force."""
    return NamedSharding(get_abstract_mesh(), PartitionSpec(*(None,) * len(aval.shape)))
