"""stablax.lax: primitives that map one-to-one (or nearly) onto StableHLO operations."""

import importlib as _importlib
import typing as _typing

# Exceptions leaving a public function lose stablax's internal frames (traceback_util.py).
from stablax._src import lax as _src_lax
from stablax._src import traceback_util as _traceback_util
from stablax._src.lax import *  # noqa: F403
from stablax._src.lax import abs, complex, max, min, pow, round, slice
from stablax._src.lax_primitives import *  # noqa: F403  (the *_p primitive objects)
from stablax._src.transforms.lax_map import map
from stablax._src.transforms.solves import custom_linear_solve, custom_root

if _typing.TYPE_CHECKING:  # loaded on first use: see __getattr__ below
    from stablax.lax import linalg

_traceback_util.wrap_public_functions(globals())


def __getattr__(name: str):
    # `lax.linalg` and the op families stablax._src.lax loads on first use (import time).
    if name == "linalg":
        value = _importlib.import_module("stablax.lax.linalg")
    elif name in _src_lax._LAZY_NAMES:
        namespace = {name: getattr(_src_lax, name)}
        _traceback_util.wrap_public_functions(namespace)
        value = namespace[name]
    else:
        raise AttributeError(f"module 'stablax.lax' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"linalg"} | set(_src_lax._LAZY_NAMES))
