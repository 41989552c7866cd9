"""`jax.experimental.hijax` under the alias: hi-primitives (`VJPHiPrimitive`, stablax's own),
and what flax nnx defines its "hijax" variables with.

flax nnx builds its optional hijax variable mode (`nnx.use_hijax(True)` / `hijax=True`) on JAX's
high-level-type machinery, which stablax does not have. The classes and decorators here let
flax define those classes at import; making or binding one raises NotImplementedError. flax's
default variables (and everything the tests use) do not touch them.
"""

from __future__ import annotations

from typing import Any

from stablax._compat.primitives import Zero, instantiate_zeros, is_undefined_primal  # noqa: F401
from stablax._src.avals import ShapedArray  # noqa: F401 (the tutorial's avals)
from stablax._src.avals import ShapedArray as AbstractValue  # noqa: F401
from stablax.experimental.hijax import GradAccum, VJPHiPrimitive  # noqa: F401

_HIJAX = (
    "stablax has no high-level types (JAX's hijax); flax nnx's hijax variables need them: "
    "use flax's default variables"
)


class HiPrimitive:
    """A primitive on high-level types (flax's NewVariable/GetVariable/SetVariable)."""

    def __init__(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.name = name

    def bind(self, *args: Any, **params: Any) -> Any:
        raise NotImplementedError(f"hijax primitive {self.name}.bind (stablax alias): {_HIJAX}")


class MutableHiType:
    """A mutable high-level type (flax's AbstractVariable subclasses it)."""


class AvalQDD:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"jax.experimental.hijax.AvalQDD (stablax alias): {_HIJAX}")


class AvalMutableQDD(AvalQDD):
    pass


class aval_method:  # noqa: N801 (JAX's name)
    """Marks a method of a high-level type's aval (a plain method here)."""

    def __init__(self, fun: Any) -> None:
        self.fun = fun

    def __get__(self, instance: Any, owner: Any) -> Any:
        return self.fun if instance is None else self.fun.__get__(instance, owner)


class aval_property(property):  # noqa: N801 (JAX's name)
    """A property of a high-level type's aval (a plain property here)."""


class _EffectTypes(set):
    def add_type(self, effect_type: type) -> None:
        self.add(effect_type)


control_flow_allowed_effects = _EffectTypes()  # flax: its VariableEffect is allowed in loops
_hitypes: dict[type, Any] = {}


def register_hitype(cls: type, to_aval: Any) -> None:
    """Records `cls` as a high-level type (flax's HijaxVariable); stablax never traces one."""
    _hitypes[cls] = to_aval
