"""`jax._src.traceback_util` under the alias (equinox, flax: hide their frames from tracebacks).

stablax does not filter tracebacks, so registering an exclusion records it and changes nothing;
`api_boundary` returns the function unchanged, as JAX's does when filtering is off.
"""

from __future__ import annotations

from typing import Any

_exclude_paths: list[str] = []


def register_exclusion(path: str) -> None:
    """Records `path` as a file whose frames JAX would hide (equinox, flax)."""
    _exclude_paths.append(path)


def api_boundary(fun: Any = None, **unused: Any) -> Any:
    """`fun` itself: stablax keeps full tracebacks (flax decorates its transforms with it)."""
    if fun is None:
        return lambda f: f
    return fun


def include_frame(frame: Any) -> bool:
    """Whether JAX would show `frame` (equinox): every frame outside the excluded files."""
    filename = getattr(getattr(frame, "f_code", frame), "co_filename", "")
    return not any(filename.startswith(p) for p in _exclude_paths)
