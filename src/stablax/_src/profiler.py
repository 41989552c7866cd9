"""stablax.profiler: traces that TensorBoard and Perfetto open, trace annotations, a profiler
server, and device memory profiles, all collected by jaxlib's profiler (runtime_profiler.py).
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import pathlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jaxlib

from stablax._src import runtime, runtime_profiler

ProfileData = runtime_profiler.ProfileData
ProfileEvent = runtime_profiler.ProfileEvent
ProfilePlane = runtime_profiler.ProfilePlane

PERFETTO_PORT = 9001  # where ui.perfetto.dev looks for a trace served from this machine


class ProfileOptions(runtime_profiler.ProfileOptions):
    """What a trace collects: `host_tracer_level` (0-3), `python_tracer_level` (0/1),
    `enable_hlo_proto`, `include_dataset_ops`, `duration_ms`, `start_timestamp_ns`,
    `repository_path`, `session_id`, `raise_error_on_start_failure` and
    `advanced_configuration` (a dict of backend-specific options)."""


class _Session:
    """The one trace being collected in this process, and where it goes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.session: Any = None
        self.log_dir: str | None = None
        self.perfetto_trace = False
        self.perfetto_link = False


_active = _Session()
_server: Any = None


def start_server(port: int, requires_backend: bool = True) -> Any:
    """Starts a profiler server on `port`, so TensorBoard can capture traces of this process.

    Args:
      port: the TCP port to listen on.
      requires_backend: create the backends first, so the device tracers attach to them (as
        JAX); False starts the server without waiting for them.

    Returns:
      The server; `stop_server` stops it.

    Raises:
      ValueError: a server is already running.
    """
    global _server
    if _server is not None:
        raise ValueError("Only one profiler server can be active at a time.")
    if requires_backend:
        runtime.backends()  # the device tracers attach to the backends, so create them first
    _server = runtime_profiler.start_profiler_server(port)
    return _server


def stop_server() -> None:
    """Stops the server `start_server` started.

    Raises:
      ValueError: no server is running.
    """
    global _server
    if _server is None:
        raise ValueError("No active profiler server.")
    _server = None  # dropping jaxlib's server object shuts it down


def register_subprocess(pid: int, port: int) -> Callable[[], None]:
    """Includes the profiler server of subprocess `pid` (listening on `port`) in the traces this
    process collects.

    Returns:
      A function that undoes the registration.
    """
    return runtime_profiler.register_profiler_subprocess(pid, port)


def _set_metadata() -> None:
    runtime_profiler.clear_profiler_metadata()
    runtime_profiler.set_profiler_metadata("jaxlib_version", jaxlib.__version__)
    for platform in runtime.backends():
        runtime_profiler.set_profiler_metadata(
            f"{platform}_version", runtime.platform_version(platform)
        )


def start_trace(
    log_dir: os.PathLike | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: ProfileOptions | None = None,
) -> None:
    """Starts collecting a trace of host and device activity; `stop_trace` writes it.

    The trace lands in `log_dir/plugins/profile/<run>/` as `<host>.xplane.pb` (TensorBoard's
    profile plugin) and `<host>.trace.json.gz` (Chrome trace format).

    Args:
      log_dir: the directory to write to (usually a TensorBoard log directory).
      create_perfetto_link: also serve `perfetto_trace.json.gz` to ui.perfetto.dev when the
        trace stops, printing the link and waiting until Perfetto has loaded it.
      create_perfetto_trace: also write `perfetto_trace.json.gz`, which Perfetto opens.
      profiler_options: what to collect (`ProfileOptions`).

    Raises:
      RuntimeError: a trace is already being collected.
    """
    with _active.lock:
        if _active.session is not None:
            raise RuntimeError(
                "Profile has already been started. Only one profile may be run at a time."
            )
        runtime.backends()  # as in start_server: device tracers need the clients
        _set_metadata()
        options = ProfileOptions() if profiler_options is None else profiler_options
        _active.session = runtime_profiler.start_profiler_session(options)
        _active.log_dir = os.fspath(log_dir)
        _active.perfetto_trace = create_perfetto_trace or create_perfetto_link
        _active.perfetto_link = create_perfetto_link


def stop_trace() -> None:
    """Stops the trace `start_trace` started and writes it to its `log_dir`.

    Raises:
      RuntimeError: no trace is being collected.
    """
    with _active.lock:
        if _active.session is None:
            raise RuntimeError("No profile started")
        try:
            runtime_profiler.stop_profiler_session(_active.session, _active.log_dir)
            if _active.perfetto_trace:
                path = write_perfetto_trace(_active.log_dir)
                if _active.perfetto_link:
                    _serve_to_perfetto(path)
        finally:
            _active.__init__()
            runtime_profiler.clear_profiler_metadata()


@contextmanager
def trace(
    log_dir: os.PathLike | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: ProfileOptions | None = None,
) -> Iterator[None]:
    """A trace of the enclosed code: `start_trace` on entry, `stop_trace` on exit.

    Example:
      >>> with stablax.profiler.trace("/tmp/tensorboard"):
      ...     step(params, batch).block_until_ready()
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


def latest_run(log_dir: os.PathLike | str) -> pathlib.Path:
    """The folder of the most recent trace written under `log_dir`."""
    runs = [p for p in (pathlib.Path(log_dir) / "plugins" / "profile").iterdir() if p.is_dir()]
    return max(runs, key=lambda p: p.stat().st_mtime)


def write_perfetto_trace(log_dir: os.PathLike | str) -> pathlib.Path:
    """Writes `perfetto_trace.json.gz` beside the latest trace in `log_dir` and returns its path.

    It is the Chrome-format trace without its `metadata` entry, which Perfetto rejects.
    """
    run = latest_run(log_dir)
    traces = list(run.glob("*.trace.json.gz"))
    if len(traces) != 1:
        raise ValueError(f"stablax.profiler: expected one *.trace.json.gz in {run}, got {traces}")
    with gzip.open(traces[0], "rb") as f:
        events = json.load(f)
    events.pop("metadata", None)
    path = run / "perfetto_trace.json.gz"
    with gzip.open(path, "wb") as f:
        f.write(json.dumps(events).encode())
    return path


def _serve_to_perfetto(path: pathlib.Path) -> None:
    # Deferred: http.server costs more to import than the rest of stablax.profiler.
    import http.server
    import socketserver

    served = {"last": None}

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(path.parent), **kwargs)

        def end_headers(self) -> None:
            self.send_header("Access-Control-Allow-Origin", "*")  # the page is on another origin
            super().end_headers()

        def do_GET(self) -> None:
            served["last"] = self.path
            super().do_GET()

        def log_message(self, *args: Any) -> None:
            pass

    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.TCPServer(("127.0.0.1", PERFETTO_PORT), Handler) as server:
        url = f"http://127.0.0.1:{PERFETTO_PORT}/{path.name}"
        print(f"Open URL in browser: https://ui.perfetto.dev/#!/?url={url}")
        while served["last"] != f"/{path.name}":
            server.handle_request()


class TraceAnnotation(runtime_profiler.TraceMe):
    """A named event spanning the enclosed code on the trace timeline.

    Keyword arguments become the event's arguments. Costs almost nothing when no trace is
    being collected.

    Example:
      >>> with stablax.profiler.TraceAnnotation("forward", batch=3):
      ...     loss = model(params, batch)
    """


class StepTraceAnnotation(TraceAnnotation):
    """A training-step event: TensorBoard's step analysis groups the trace by these.

    Example:
      >>> for step in range(num_steps):
      ...     with stablax.profiler.StepTraceAnnotation("train", step_num=step):
      ...         params = train_step(params, batch)
    """

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, _r=1, **kwargs)  # _r=1 marks the event as a step root


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs: Any):
    """Wraps `func` so that every call is a `TraceAnnotation` named after it.

    Args:
      func: the function.
      name: the event name (default: the function's qualified name).
      **decorator_kwargs: arguments recorded with every event.

    Returns:
      The wrapped function.
    """
    label = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)

    return wrapper


def device_memory_profile(backend: str | None = None) -> bytes:
    """A snapshot of the device buffers and executables alive, as a gzipped `pprof` profile.

    Args:
      backend: the backend to profile (default: the default backend).

    Returns:
      Bytes that `pprof` reads (`pprof --web profile.prof`).
    """
    return gzip.compress(runtime.heap_profile(backend))


def save_device_memory_profile(filename: os.PathLike | str, backend: str | None = None) -> None:
    """Writes `device_memory_profile(backend)` to `filename`."""
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)
