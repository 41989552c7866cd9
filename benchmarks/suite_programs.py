"""Compiled programs: trace+lower time, XLA compile time, compiled step time and the op count
of XLA's optimised program, for every model in `models.py`, and sampling 10**7 normals."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from benchmarks.harness import (
    Row,
    Settings,
    Stopwatch,
    interleaved,
    row_from_samples,
    timed_for,
)
from benchmarks.models import PROGRAMS, Lib, Program

# Targets: compiled step time within 2% of JAX's (the parity bound); no more HLO ops;
# tracing and compiling no slower than JAX.
STEP_TARGET, OPS_TARGET, FRONTEND_TARGET = 1.02, 1.0, 1.0
_UNCOUNTED = {"parameter", "constant", "tuple", "get-tuple-element"}


def hlo_op_counts(hlo_text: str) -> Counter:
    """Instructions of XLA's optimised HLO by opcode (fusion bodies included), parameters,
    constants and tuple plumbing left out."""
    counts: Counter = Counter()
    for line in hlo_text.splitlines():
        match = re.match(r"\s*(?:ROOT\s+)?%?[\w.\-]+ = \S+ ([a-z][\w\-]*)\(", line)
        if match and match.group(1) not in _UNCOUNTED:
            counts[match.group(1)] += 1
    return counts


def canonical_hlo(hlo_text: str) -> list[str]:
    """XLA's optimised program with what names and debug data alone change taken out: value
    and parameter names, metadata, backend configs (their key order varies). Two libraries
    whose canonical programs are equal run the same machine code, so their step times can
    differ only by noise."""
    lines = []
    for line in hlo_text.splitlines():
        line = line.strip()
        if not line or line.startswith("HloModule"):
            continue
        line = re.sub(r",?\s*metadata=\{[^}]*\}", "", line)
        line = re.sub(r"backend_config=\{.*\}", "", line)
        line = re.sub(r"%[\w.\-]+", "%", line)
        line = re.sub(r"[\w.\-]+: ", "", line)  # parameter names in computation signatures
        lines.append(line.rstrip(", "))
    return sorted(lines)


def disable_persistent_cache(lib: Lib) -> None:
    """Compile times must be compiles: no on-disk cache (JAX's flag; stablax's once it has it)."""
    try:
        lib.top.config.update("jax_enable_compilation_cache", False)
    except AttributeError:
        pass


class _Builds:
    """Fresh closures of one program per library, traced, lowered and compiled, with timings."""

    def __init__(self, name: str, lib: Lib, quick: bool) -> None:
        self.name, self.lib, self.quick = name, lib, quick
        self.program: Program | None = None
        self.lower_s: list = []
        self.compile_s: list = []
        self.hlo = ""

    def build(self) -> None:
        lib = self.lib
        self.program = PROGRAMS[self.name](lib, self.quick)  # a new closure: nothing is cached
        lib.top.clear_caches()
        with Stopwatch() as lowering:
            lowered = lib.top.jit(self.program.fn).lower(*self.program.args)
        with Stopwatch() as compiling:
            compiled = lowered.compile()
        self.lower_s.append(lowering.sample)
        self.compile_s.append(compiling.sample)
        self.hlo = compiled.as_text()


def _step(build: _Builds) -> Any:
    lib, program = build.lib, build.program
    step = lib.top.jit(program.fn)
    lib.block(step(*program.args))
    return lambda: step(*program.args)


GROUPS = ("trace+lower", "XLA compile", "HLO ops (optimised)", "compiled step")


def run(settings: Settings) -> list[Row]:
    rows = _program_rows(settings)
    if settings.wants("normal"):
        rows.append(_normals(settings))
    return sorted(rows, key=lambda row: GROUPS.index(row.group))  # stable: models keep order


def _program_rows(settings: Settings) -> list[Row]:
    rows: list[Row] = []
    for lib in settings.libs:
        disable_persistent_cache(lib)
    for name in PROGRAMS:
        if not settings.wants(name):
            continue
        builds = {lib.name: _Builds(name, lib, settings.quick) for lib in settings.libs}
        rounds = 1 if settings.quick else (2 if name == "transformer-12" else 5)
        interleaved({lib: build.build for lib, build in builds.items()}, rounds)
        lower = {lib: b.lower_s for lib, b in builds.items()}
        compile_ = {lib: b.compile_s for lib, b in builds.items()}
        rows.append(row_from_samples("trace+lower", name, "s", lower, FRONTEND_TARGET))
        rows.append(row_from_samples("XLA compile", name, "s", compile_, FRONTEND_TARGET))

        counts = {lib: hlo_op_counts(b.hlo) for lib, b in builds.items()}
        ops = {lib: [float(sum(c.values()))] for lib, c in counts.items()}
        row = row_from_samples("HLO ops (optimised)", name, "ops", ops, OPS_TARGET)
        if "jax" in counts:
            more = counts["stablax"] - counts["jax"]
            row.note = ", ".join(f"{op} +{n}" for op, n in more.most_common(3))
        rows.append(row)

        steps = {lib: _step(b) for lib, b in builds.items()}
        blocks = {lib.name: lib.block for lib in settings.libs}
        seconds = 0.05 if settings.quick else 0.5
        fns = {
            lib: (lambda fn=fn, block=blocks[lib], s=seconds: timed_for(fn, block, s) * 1e3)
            for lib, fn in steps.items()
        }
        step_rounds = settings.rounds if not settings.quick else 1
        samples = interleaved(fns, step_rounds)
        same = "jax" in builds and canonical_hlo(builds["stablax"].hlo) == canonical_hlo(
            builds["jax"].hlo
        )
        note = "same optimised HLO as JAX" if same else ""
        rows.append(row_from_samples("compiled step", name, "ms", samples, STEP_TARGET, note))
    return rows


def _normals(settings: Settings) -> Row:
    size = 1000 if settings.quick else 10**7
    fns = {}
    for lib in settings.libs:
        sample = lib.top.jit(lambda key, lib=lib: lib.random.normal(key, (size,)))
        key = lib.random.PRNGKey(0)
        lib.block(sample(key))
        fns[lib.name] = lambda s=sample, k=key, lib=lib: timed_for(lambda: s(k), lib.block, 0.3)
    samples = interleaved(
        {n: (lambda f=f: f() * 1e3) for n, f in fns.items()}, 1 if settings.quick else 5
    )
    label = f"random.normal(key, ({size},))"
    return row_from_samples("compiled step", label, "ms", samples, STEP_TARGET)
