"""Mutable array references (`stablax.new_ref`, JAX's `jax.Ref`): a box whose array value is read
with `ref[idx]` and replaced with `ref[idx] = value`.

A Ref lives in the transformation level that created it: eagerly, or inside one traced function
(jit, grad, vmap), where its updates become ordinary functional updates of the traced program.
Unlike JAX, a Ref created outside a traced function cannot be used inside it (nor passed to
`jit`): reads would see the value at tracing time and writes could not reach the caller.
"""

from __future__ import annotations

import enum
import types
from typing import Any

from stablax._src import core
from stablax._src.avals import ShapedArray, aval_of
from stablax._src.lax._shapes import full
from stablax._src.numpy._asarray import asarray


class MemorySpace(enum.Enum):
    """Where an array lives: the device's memory, the host's, or wherever (`jax.memory.Space`)."""

    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"


memory = types.SimpleNamespace(Space=MemorySpace)


class AbstractRef:
    """The type of a Ref (what `typeof(ref)` returns): the abstract value it holds."""

    def __init__(self, inner_aval: ShapedArray) -> None:
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbstractRef) and other.inner_aval == self.inner_aval

    def __hash__(self) -> int:
        return hash(("Ref", self.inner_aval))

    def __repr__(self) -> str:
        return f"Ref{{{self.inner_aval.str_short()}}}"


class Ref:
    """A mutable reference to an array: `ref[...]` reads it, `ref[idx] = v` updates part of it."""

    __slots__ = ("_value", "_trace", "_freed")

    def __init__(self, value: Any) -> None:
        self._value = value
        self._trace = core.current_trace()
        self._freed = False

    def _check(self, what: str) -> None:
        if self._freed:
            raise RuntimeError(f"stablax.Ref: {what} of a freed Ref")
        if core.current_trace() is not self._trace:
            raise NotImplementedError(
                f"stablax.Ref: {what} inside a transformed function (jit, grad, vmap) of a Ref "
                "created outside it is not supported: pass the value in and return the new value"
            )

    @property
    def aval(self) -> AbstractRef:
        return AbstractRef(aval_of(self._value).strip_weak_type())

    shape = property(lambda self: aval_of(self._value).shape)
    dtype = property(lambda self: aval_of(self._value).dtype)
    ndim = property(lambda self: len(aval_of(self._value).shape))
    size = property(lambda self: aval_of(self._value).size)

    def __getitem__(self, index: Any) -> Any:
        self._check("reading")
        if index is Ellipsis or index == ():
            return self._value
        return self._value[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        self._check("writing")
        dtype = aval_of(self._value).dtype
        if index is Ellipsis or index == ():
            new = asarray(value, dtype)
            if new.shape != self.shape:
                new = self._value.at[...].set(new)
            self._value = new
        else:
            self._value = self._value.at[index].set(value)

    def addupdate(self, delta: Any, index: Any = Ellipsis) -> None:
        """`ref[index] += delta`."""
        self._check("updating")
        self._value = self._value.at[index].add(delta)

    def get(self, index: Any = Ellipsis) -> Any:
        return self[index]

    def set(self, value: Any, index: Any = Ellipsis) -> None:
        self[index] = value

    def swap(self, value: Any, index: Any = Ellipsis) -> Any:
        """Writes `value` at `index` and returns what was there."""
        old = self[index]
        self[index] = value
        return old

    def __len__(self) -> int:
        return len(self._value)

    def __repr__(self) -> str:
        if self._freed:
            return "Ref(<freed>)"
        text = repr(self._value)
        return "Ref" + text[text.index("(") :] if text.startswith("Array(") else f"Ref({text})"


def new_ref(init_val: Any, *, memory_space: Any = None, kind: str | None = None) -> Ref:
    """A new mutable reference holding (a copy of) `init_val`.

    Args:
      init_val: an array (or anything `jnp.asarray` accepts).
      memory_space: None, `memory.Space.Device` or `memory.Space.Any` (host memory is not
        supported).
      kind: accepted for JAX compatibility and ignored.
    """
    if memory_space is MemorySpace.Host:
        raise NotImplementedError("new_ref: host memory refs are not supported")
    return Ref(asarray(init_val))


def empty_ref(ty: Any, memory_space: Any = None) -> Ref:
    """A new Ref of the shape and dtype of `ty` (a ShapeDtypeStruct or abstract value), zeros."""
    if memory_space is MemorySpace.Host:
        raise NotImplementedError("empty_ref: host memory refs are not supported")
    return Ref(full(tuple(ty.shape), 0, ty.dtype))


def freeze(ref: Ref) -> Any:
    """The value a Ref holds, as an (immutable) array."""
    return ref[...]


def free_ref(ref: Ref) -> None:
    """Releases a Ref's memory now; using the Ref afterwards raises."""
    ref._check("freeing")
    value = ref._value
    ref._value, ref._freed = None, True
    if core.current_trace() is None and hasattr(value, "delete"):
        value.delete()
