"""Tracebacks without stablax's internal frames, as JAX filters its own.

An exception leaving a public entry point (an `api_boundary`) loses the frames of files inside
the stablax package, so what remains is the user's code, from the call that failed down to the
user's function that raised (under `jit`, `grad`, `vmap`, `lax.scan`, ...). The flag
`jax_traceback_filtering` (env `JAX_TRACEBACK_FILTERING`) picks the mode, with JAX's values:

- "auto" (default): "tracebackhide" under IPython, "quiet_remove_frames" elsewhere;
- "off": tracebacks are left alone;
- "tracebackhide": frames stay but are marked `__tracebackhide__` (IPython and pytest hide them);
- "remove_frames": frames are removed and the unfiltered traceback is attached as the
  exception's `__cause__`;
- "quiet_remove_frames": frames are removed and a note says so.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any, TypeVar

from stablax._src.config import config

C = TypeVar("C", bound=Callable[..., Any])

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_MODES = ("auto", "off", "tracebackhide", "remove_frames", "quiet_remove_frames")

SIMPLIFIED_MESSAGE = (
    "For simplicity, stablax has removed its internal frames from the traceback of the "
    "following exception. Set JAX_TRACEBACK_FILTERING=off to include these."
)
_UNFILTERED_MESSAGE = (
    "The stack trace below excludes stablax-internal frames.\n"
    "The preceding is the original exception that occurred, unmodified.\n"
    "\n--------------------"
)


class UnfilteredStackTrace(Exception):  # noqa: N818 (JAX's name)
    """The exception's complete traceback, attached as its cause in "remove_frames" mode."""


def include_filename(filename: str) -> bool:
    """Whether a frame of `filename` is shown: everything outside the stablax package."""
    return not filename.startswith(_PACKAGE_DIR)


def _include(frame: types.FrameType) -> bool:
    return include_filename(frame.f_code.co_filename)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """A copy of `tb` holding only the frames outside stablax."""
    out = None
    for frame, lineno in reversed(list(traceback.walk_tb(tb))):
        if _include(frame):
            out = types.TracebackType(out, frame, frame.f_lasti, lineno)
    return out


def _mode() -> str:
    mode = config.jax_traceback_filtering
    if mode is None or mode == "auto":
        ipython = "IPython" in sys.modules and hasattr(sys.modules["IPython"], "get_ipython")
        if ipython and sys.modules["IPython"].get_ipython() is not None:
            return "tracebackhide"
        return "quiet_remove_frames"
    if mode not in _MODES:
        raise ValueError(
            f"jax_traceback_filtering={mode!r} is not a valid value; use one of {list(_MODES)}"
        )
    return mode


def _under_another_boundary(frame: types.FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code is _BOUNDARY_CODE:
            return True
        frame = frame.f_back
    return False


def api_boundary(fun: C) -> C:
    """Wraps a public entry point: exceptions leaving the outermost one lose stablax's frames."""

    @functools.wraps(fun)
    def reraise_with_filtered_traceback(*args, **kwargs):
        __tracebackhide__ = True
        try:
            return fun(*args, **kwargs)
        except Exception as error:
            if _under_another_boundary(sys._getframe(1)):
                raise
            mode = _mode()
            if mode == "off":
                raise
            tb = error.__traceback__
            if mode == "tracebackhide":
                for frame, _ in traceback.walk_tb(tb):
                    if not _include(frame):
                        frame.f_locals["__tracebackhide__"] = True
                raise
            error.with_traceback(filter_traceback(tb))
            if mode == "quiet_remove_frames":
                if SIMPLIFIED_MESSAGE not in "".join(getattr(error, "__notes__", ())):
                    error.add_note("--------------------\n" + SIMPLIFIED_MESSAGE)
            else:
                message = "".join(traceback.format_exception_only(type(error), error)).strip()
                unfiltered = UnfilteredStackTrace(f"{message}\n\n{_UNFILTERED_MESSAGE}")
                unfiltered.with_traceback(tb)
                unfiltered.__cause__ = error.__cause__
                unfiltered.__context__ = error.__context__
                unfiltered.__suppress_context__ = error.__suppress_context__
                error.__cause__ = unfiltered
                error.__context__ = None
            del tb
            raise

    return reraise_with_filtered_traceback  # type: ignore[return-value]


_BOUNDARY_CODE = api_boundary(lambda: None).__code__


def transform_boundary(transform: C) -> C:
    """An api_boundary for a transform (`grad`, `vmap`, ...) and for the function it returns."""

    @functools.wraps(transform)
    def wrapped(*args, **kwargs):
        out = transform(*args, **kwargs)
        return api_boundary(out) if isinstance(out, types.FunctionType) else out

    return api_boundary(wrapped)


def wrap_public_functions(namespace: dict[str, Any]) -> None:
    """Makes every plain function of a public module's namespace an api_boundary (in place)."""
    for name, value in list(namespace.items()):
        if name.startswith("_") or not isinstance(value, types.FunctionType):
            continue
        if value.__code__ is _BOUNDARY_CODE:
            continue
        namespace[name] = api_boundary(value)
