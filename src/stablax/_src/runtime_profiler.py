"""jaxlib's profiler bindings (sessions, the trace server, TraceMe, profile data): a part of the
runtime, and the one module that imports `jaxlib._profiler` and `jaxlib._profile_data`. The
user-facing API over it is profiler.py."""

from __future__ import annotations

from typing import Any

from jaxlib import _profile_data, _profiler

ProfileOptions = _profiler.ProfileOptions
TraceMe = _profiler.TraceMe  # a scoped trace event; free when no trace is being collected
ProfileData = _profile_data.ProfileData
ProfileEvent = _profile_data.ProfileEvent
ProfilePlane = _profile_data.ProfilePlane


def start_profiler_session(options: Any) -> Any:
    """Starts collecting host (and device) events; `stop_profiler_session` writes them out."""
    return _profiler.ProfilerSession(options)


def stop_profiler_session(session: Any, log_dir: str) -> None:
    """Stops `session` and writes `plugins/profile/<run>/<host>.xplane.pb` and `.trace.json.gz`."""
    session.stop_and_export(log_dir)


def start_profiler_server(port: int) -> Any:
    """A gRPC server that TensorBoard or `perfetto` can ask for a trace of this process."""
    return _profiler.start_server(port)


def register_profiler_subprocess(pid: int, port: int) -> Any:
    """Adds the profiler server of process `pid` to this one's traces; returns the undo."""
    return _profiler.register_subprocess(pid, port)


def set_profiler_metadata(key: str, value: str) -> None:
    _profiler.set_metadata(key, value)


def clear_profiler_metadata() -> None:
    _profiler.clear_metadata()
