"""Whole-process costs, each measured in fresh interpreters: import time, cold start of a jitted
training step (persistent compilation cache empty, then warm) and peak host memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Row, Sample, Settings, interleaved, row_from_samples

ROOT = Path(__file__).resolve().parent.parent

# Runs in a fresh interpreter: import the library, then (unless import_only) one jitted training
# step of a model; prints what it measured as JSON. argv: library, model, quick, cache dir, steps.
_CHILD = r"""
import json, resource, sys, time
start, start_cpu = time.perf_counter(), time.process_time()
name, model, quick, cache_dir = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
steps = int(sys.argv[5])
lib_module = __import__(name)
__import__(name + ".numpy")
imported = time.perf_counter()
report = {"import_s": imported - start, "import_cpu_s": time.process_time() - start_cpu}
if model != "-":
    sys.path.insert(0, sys.argv[6])
    from benchmarks.models import PROGRAMS, Lib
    lib = Lib.load(name)
    flags = {}
    if cache_dir != "-":  # otherwise the library's defaults
        flags = {
            "jax_enable_compilation_cache": True,
            "jax_compilation_cache_dir": cache_dir,
            "jax_persistent_cache_min_compile_time_secs": 0,
            "jax_persistent_cache_min_entry_size_bytes": 0,
        }
    unknown = []
    for flag, value in flags.items():
        try:
            lib.top.config.update(flag, value)
        except AttributeError:
            unknown.append(flag)
    program = PROGRAMS[model](lib, quick)
    step = lib.top.jit(program.fn)
    out = step(*program.args)
    lib.block(out)
    report["first_step_s"] = time.perf_counter() - imported
    for _ in range(steps):
        out = step(*program.args)
    lib.block(out)
    report["unknown_flags"] = unknown
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork and exec.
with open("/proc/self/status") as status:
    hwm = next(line for line in status if line.startswith("VmHWM:"))
report["peak_rss_mb"] = int(hwm.split()[1]) / 1024
usage = resource.getrusage(resource.RUSAGE_SELF)
report["cpu_s"] = usage.ru_utime + usage.ru_stime  # the whole process, interpreter start included
report["in_process_s"] = time.perf_counter() - start
print(json.dumps(report))
"""


def child(lib: str, model: str, quick: bool, cache_dir: str = "-", steps: int = 0) -> dict:
    """Runs `_CHILD` in a new interpreter; adds `wall_s`, the time the parent waited for it."""
    argv = [sys.executable, "-c", _CHILD, lib, model, "1" if quick else "0", cache_dir]
    argv += [str(steps), str(ROOT)]
    env = dict(os.environ)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    env.pop("STABLAX_COMPILATION_CACHE_DIR", None)
    # Both libraries load from bytecode, as installed packages do (pip compiles on install): a
    # source checkout run with PYTHONDONTWRITEBYTECODE would otherwise recompile stablax's
    # source in every child, a cost no user of an installed stablax pays.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child ({lib}, {model}) failed:\n{done.stderr[-4000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["wall_s"] = wall
    return report


def _imported(report: dict) -> Sample:
    return Sample(report["import_s"], report["import_cpu_s"])


def _whole(report: dict) -> Sample:
    return Sample(report["wall_s"], report["cpu_s"])


def run(settings: Settings) -> list[Row]:
    names = [lib.name for lib in settings.libs]
    if settings.quick:
        return _quick(names[0])
    rows: list[Row] = []
    model = "mlp"
    for name in names:  # writes the bytecode of a source checkout once, untimed
        child(name, "-", False)

    if settings.wants("import"):
        samples = interleaved({n: (lambda n=n: _imported(child(n, "-", False))) for n in names}, 5)
        rows.append(row_from_samples("process", "import", "s", samples, 0.5))

    if settings.wants("cold start"):
        # A fresh cache directory per round: the first run fills it, the second finds it warm.
        empty, warm, default, unknown = {}, {}, {}, set()
        for r in range(3):
            for n in names if r % 2 == 0 else reversed(names):
                with tempfile.TemporaryDirectory(prefix=f"bench-cache-{n}-") as cache:
                    first = child(n, model, False, cache_dir=cache)
                    again = child(n, model, False, cache_dir=cache)
                empty.setdefault(n, []).append(_whole(first))
                warm.setdefault(n, []).append(_whole(again))
                unknown.update(again.get("unknown_flags", []))
                if n == "jax":
                    default.setdefault(n, []).append(_whole(child(n, model, False)))
        rows.extend(_cold_start_rows(model, empty, warm, default, unknown))

    if settings.wants("memory"):
        model = "transformer-2"
        samples = interleaved(
            {n: (lambda n=n: child(n, model, False, steps=10)["peak_rss_mb"]) for n in names}, 2
        )
        case = f"peak host memory, {model}: import, compile, 10 steps"
        rows.append(row_from_samples("process", case, "MB", samples, 1.0))
    return rows


def _cold_start_rows(model, empty, warm, default, unknown) -> list[Row]:
    note = "stablax lacks " + ", ".join(sorted(unknown)) if unknown else ""
    both = {"stablax": warm["stablax"], **default}
    return [
        row_from_samples("process", f"cold start, {model} step, cache empty", "s", empty),
        row_from_samples("process", f"cold start, {model} step, cache warm", "s", warm, None, note),
        row_from_samples(
            "process", f"cold start, {model}: stablax warm vs JAX default", "s", both, 0.5
        ),
    ]


def _quick(name: str) -> list[Row]:
    # Two children (cache empty, then warm) give every process figure at once.
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        first = child(name, "mlp", True, cache_dir=cache, steps=2)
        again = child(name, "mlp", True, cache_dir=cache, steps=2)
    rows = [row_from_samples("process", "import", "s", {name: [_imported(first)]})]
    empty, warm = {name: [_whole(first)]}, {name: [_whole(again)]}
    rows.extend(_cold_start_rows("mlp", empty, warm, {}, set(again.get("unknown_flags", []))))
    memory = {name: [again["peak_rss_mb"]]}
    rows.append(row_from_samples("process", "peak host memory, mlp", "MB", memory))
    return rows
