"""The top-level `jax` module of the alias: stablax's names plus the few only the alias adds.

Submodules that stablax does not export (`jax.sharding`, `jax.core`, `jax.extend`, ...) come from
this compatibility package and are imported on first attribute access, as JAX imports them
eagerly in its `__init__`.
"""

from __future__ import annotations

import importlib
import importlib.util
import types
from typing import Any

import stablax
from stablax._compat import pmap, sharding
from stablax._src.avals import ShapedArray

JAX_API_VERSION = (0, 10, 2)

# Submodules `jax.<name>` reachable as attributes after a bare `import jax`.
_LAZY_SUBMODULES = frozenset(
    {
        "core",  # flax, haiku, chex, equinox: jax.core.Tracer, ShapedArray, ...
        "extend",  # flax, haiku, equinox: jax.extend.core
        "interpreters",  # flax, equinox: jax.interpreters.ad / batching / partial_eval
        "sharding",  # optax, flax, equinox: jax.sharding.NamedSharding, PartitionSpec
        "experimental",  # flax, chex: jax.experimental.checkify, layout
        "stages",  # equinox, flax: jax.stages.Wrapped
        "flatten_util",  # optax, equinox: ravel_pytree
        "scipy",  # optax, equinox: jax.scipy.special
        "_src",  # flax, equinox, chex: JAX's internals (the small part they touch)
    }
)


def _extras() -> dict[str, Any]:
    """Names the alias's `jax` has and `stablax` does not."""
    # optax, flax: `jax.typeof(x).sharding.mesh` (JAX >= 0.7 paths); an aval's sharding is its
    # dims over the mesh in force, as JAX reports it (a key array's `ExtendedShapedArray` too).
    if not hasattr(ShapedArray, "sharding"):
        ShapedArray.sharding = property(sharding.aval_sharding)

    return {
        "__version__": ".".join(map(str, JAX_API_VERSION)),  # flax, chex: version checks
        "__version_info__": JAX_API_VERSION,  # equinox, flax, haiku: version-selected paths
        "pmap": pmap.pmap,  # chex (variants), equinox (filter_pmap; type(pmap(f)) at import)
        # optax, flax: JAX's top-level sharding names (one device; see compat.sharding)
        "P": sharding.PartitionSpec,
        "NamedSharding": sharding.NamedSharding,
        "set_mesh": sharding.set_mesh,
        "reshard": sharding.reshard,
        "__stablax_alias__": True,
    }


def _in_compat(name: str) -> bool:
    return importlib.util.find_spec(f"stablax._compat.{name}") is not None


def _jax_getattr(name: str) -> Any:
    """`jax.<name>` not set at creation: a compat submodule, or a late stablax attribute."""
    if name in _LAZY_SUBMODULES or _in_compat(name):
        return importlib.import_module(f"jax.{name}")
    if hasattr(stablax, name):
        return getattr(stablax, name)
    raise AttributeError(f"module 'jax' (the stablax alias) has no attribute {name!r}")


def make_jax_module() -> types.ModuleType:
    """A fresh module `jax`: stablax's public names, the alias's extras, lazy submodules."""
    module = types.ModuleType("jax", stablax.__doc__)
    for name in dir(stablax):
        value = getattr(stablax, name)
        if name.startswith("__") or (isinstance(value, types.ModuleType) and _in_compat(name)):
            continue  # the compat module of that name is imported on first access
        module.__dict__[name] = value
    module.__dict__.update(_extras())
    module.__path__ = []  # a package: its submodules are found by the alias finder

    module.__getattr__ = _jax_getattr
    return module
