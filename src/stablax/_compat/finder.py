"""`install_as_jax()`: `import jax` and `import jax.<module>` resolve to stablax in this process.

A meta-path finder maps the module name `jax.X.Y` to `stablax._compat.X.Y` where the
compatibility package has that module (JAX's internals and the modules stablax does not export
publicly, or where JAX's version of a module has a little more: `jax.lax`, `jax.numpy`,
`jax.random`), and to `stablax.X.Y` otherwise. A module of the second kind is the very object
stablax uses (`sys.modules["jax.numpy.linalg"] is stablax.numpy.linalg`), and the compat ones
re-export stablax's functions, so arrays, tracers and pytree registrations are shared. The
top-level `jax` is its own module: stablax's names plus the few that only the alias adds
(`pmap`, `sharding`, `__version_info__`, ...; see `stablax._compat.top`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

_ALIAS = "jax"


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def _target_name(fullname: str) -> str | None:
    """The stablax module that backs `fullname` (`jax...`), or None if there is none."""
    rest = fullname[len(_ALIAS) :]
    compat = "stablax._compat" + rest
    if _exists(compat):
        return compat
    if rest.startswith("._src"):
        return None  # JAX's internals exist only where the compatibility package provides them
    own = "stablax" + rest
    return own if _exists(own) else None


class _AliasLoader(importlib.abc.Loader):
    """Loads `jax.X` as the already-imported stablax module that backs it."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        if spec.name == _ALIAS:
            from stablax._compat import top

            return top.make_jax_module()
        module = importlib.import_module(self.target)
        self._saved = {k: module.__dict__.get(k) for k in ("__spec__", "__loader__")}
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ == _ALIAS:
            return
        # importlib stamped the alias spec onto stablax's module: give it its own back.
        for key, value in self._saved.items():
            setattr(module, key, value)


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds `jax` and `jax.*` in stablax (see the module docstring)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        backing = "stablax" if fullname == _ALIAS else _target_name(fullname)
        if backing is None:
            return None
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(backing), is_package=True, origin=f"alias of {backing}"
        )


_FINDER = _AliasFinder()


def install_as_jax() -> None:
    """Makes `import jax` (and every `import jax.<module>`) resolve to stablax in this process.

    Code written for JAX, including libraries such as optax, flax, equinox, haiku and chex, then
    runs on stablax unchanged. The alias is process-wide and cannot be undone; call it before
    anything imports JAX. Calling it twice is harmless.

    Raises:
      ImportError: the real `jax` is already imported in this process.
    """
    present = sys.modules.get(_ALIAS)
    if present is not None and not getattr(present, "__stablax_alias__", False):
        raise ImportError(
            "stablax.install_as_jax: the real jax is already imported in this process "
            f"({getattr(present, '__file__', present)!r}); call install_as_jax() before anything "
            "imports jax, or run the program with `python -m stablax.as_jax script.py`"
        )
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
