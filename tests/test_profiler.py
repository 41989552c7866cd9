"""stablax.profiler: traces written where TensorBoard and Perfetto look, annotations in them,
the single-trace and single-server rules, and device memory profiles."""

from __future__ import annotations

import gzip
import json
import socket

import pytest

import stablax
import stablax.numpy as jnp
from stablax import profiler

# JAX 0.10.2's jax.profiler names.
JAX_NAMES = [
    "ProfileData",
    "ProfileEvent",
    "ProfileOptions",
    "ProfilePlane",
    "StepTraceAnnotation",
    "TraceAnnotation",
    "annotate_function",
    "device_memory_profile",
    "register_subprocess",
    "save_device_memory_profile",
    "start_server",
    "start_trace",
    "stop_server",
    "stop_trace",
    "trace",
]


def test_every_jax_name_is_there():
    assert [n for n in JAX_NAMES if not hasattr(profiler, n)] == []
    assert stablax.profiler is profiler


def _run(log_dir):
    (run,) = (log_dir / "plugins" / "profile").iterdir()
    return run


def _events(run):
    (path,) = run.glob("*.trace.json.gz")
    with gzip.open(path) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """One trace of a jitted step under every kind of annotation (tracing costs ~0.1 s)."""
    log_dir = tmp_path_factory.mktemp("trace")
    x = jnp.ones((64, 64))
    step = stablax.jit(lambda a: jnp.tanh(a @ a).sum())
    step(x).block_until_ready()

    @profiler.annotate_function
    def forward(a):
        return step(a).block_until_ready()

    labelled = profiler.annotate_function(forward, name="labelled", size=64)
    with profiler.trace(log_dir, create_perfetto_trace=True):
        for i in range(2):
            with profiler.StepTraceAnnotation("train", step_num=i):
                with profiler.TraceAnnotation("inner", batch=7):
                    forward(x)
                labelled(x)
    return log_dir


def test_trace_writes_xplane_and_chrome_trace(traced):
    run = _run(traced)
    (xplane,) = run.glob("*.xplane.pb")
    assert xplane.stat().st_size > 0
    events = _events(run)["traceEvents"]
    named = {e.get("name"): e for e in events if e.get("ph") == "X"}
    assert {"train", "inner", "labelled"} <= set(named)
    assert any(name.endswith("forward") for name in named)
    assert named["inner"]["args"] == {"batch": "7"}
    steps = [e for e in events if e.get("name") == "train"]
    assert sorted(e["args"]["step_num"] for e in steps) == ["0", "1"]


def test_perfetto_trace_is_the_chrome_trace_without_metadata(traced):
    run = _run(traced)
    with gzip.open(run / "perfetto_trace.json.gz") as f:
        perfetto = json.load(f)
    chrome = _events(run)
    assert "metadata" in chrome and "metadata" not in perfetto
    assert perfetto["traceEvents"] == chrome["traceEvents"]


def test_profile_data_reads_the_xplane(traced):
    (xplane,) = _run(traced).glob("*.xplane.pb")
    data = profiler.ProfileData.from_file(str(xplane))
    host = data.find_plane_with_name("/host:CPU")
    assert isinstance(host, profiler.ProfilePlane)
    names = {event.name for line in host.lines for event in line.events}
    assert {"train", "inner"} <= names
    event = next(e for line in host.lines for e in line.events if e.name == "inner")
    assert isinstance(event, profiler.ProfileEvent) and event.duration_ns > 0


def test_one_trace_at_a_time(tmp_path):
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    options = profiler.ProfileOptions()
    options.python_tracer_level = 0
    profiler.start_trace(tmp_path, profiler_options=options)
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(tmp_path)
        with profiler.TraceAnnotation("only-host"):
            jnp.ones(3).block_until_ready()
    finally:
        profiler.stop_trace()
    names = {e.get("name", "") for e in _events(_run(tmp_path))["traceEvents"]}
    assert "only-host" in names
    assert not any(n.startswith("$") for n in names)  # no Python function events


def test_server_starts_and_stops_once():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = profiler.start_server(port)
    try:
        assert server is not None
        with pytest.raises(ValueError, match="Only one profiler server"):
            profiler.start_server(port)
    finally:
        profiler.stop_server()
    with pytest.raises(ValueError, match="No active profiler server"):
        profiler.stop_server()


def test_device_memory_profile(tmp_path):
    alive = jnp.arange(4096.0)
    profile = profiler.device_memory_profile()
    assert len(gzip.decompress(profile)) > 0
    path = tmp_path / "memory.prof"
    profiler.save_device_memory_profile(path)
    assert len(gzip.decompress(path.read_bytes())) > 0
    del alive
