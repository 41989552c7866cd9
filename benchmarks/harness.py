"""Timing, rows and reporting for the benchmark suites.

Every comparison is taken in one process with the two libraries interleaved round by round, so
a change in the machine's load hits both alike; a row keeps every round's figures and reports
the median, and the ratio as the median of the per-round ratios with their range.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks.models import Lib


@dataclass
class Settings:
    """What a run does: `quick` shrinks every size and repeat so the whole suite takes seconds."""

    quick: bool
    rounds: int
    libs: list[Lib]
    only: str | None = None

    @property
    def with_jax(self) -> bool:
        return len(self.libs) > 1

    def wants(self, case: str) -> bool:
        return self.only is None or self.only in case


@dataclass
class Row:
    """One case: a figure per library (lower is better), their ratio and the target it has."""

    group: str
    case: str
    unit: str
    stablax: float
    jax: float | None = None
    ratio: float | None = None
    ratio_range: tuple[float, float] | None = None
    target: float | None = None  # the ratio stablax / JAX must not exceed
    note: str = ""
    samples: dict[str, list[float]] = field(default_factory=dict)  # CPU time, or the figure
    wall_samples: dict[str, list[float]] = field(default_factory=dict)
    wall_ratio: float | None = None  # the median per-round ratio of wall-clock times

    @property
    def meets(self) -> bool | None:
        if self.target is None or self.ratio is None:
            return None
        return self.ratio <= self.target


class Sample:
    """One measurement: wall-clock and process CPU seconds (all threads) of the same interval.

    On a loaded machine the wall clock also counts the time other processes held the CPUs; the
    CPU time counts only this process's work, so the rows compare CPU times and keep both.
    """

    __slots__ = ("cpu", "wall")

    def __init__(self, wall: float, cpu: float) -> None:
        self.wall, self.cpu = wall, cpu

    def __mul__(self, factor: float) -> Sample:
        return Sample(self.wall * factor, self.cpu * factor)

    def __truediv__(self, divisor: float) -> Sample:
        return Sample(self.wall / divisor, self.cpu / divisor)


class Stopwatch:
    """`with Stopwatch() as watch: ...`, then `watch.sample`. As `timeit` does, the garbage of
    earlier work is collected first and the collector is paused while the clock runs, so one
    library does not pay for the other's garbage."""

    def __enter__(self) -> Stopwatch:
        gc.collect()
        self._enabled = gc.isenabled()
        gc.disable()
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.sample = Sample(time.perf_counter() - self._wall, time.process_time() - self._cpu)
        if self._enabled:
            gc.enable()


def _ratios(ours: list[float], theirs: list[float]) -> list[float]:
    return [a / b for a, b in zip(ours, theirs, strict=False) if b > 0]


def row_from_samples(
    group: str,
    case: str,
    unit: str,
    samples: dict[str, list[Any]],
    target: float | None = None,
    note: str = "",
) -> Row:
    """A row from per-round figures of each library (rounds taken in turn): the median of each,
    and the median and range of the per-round ratios. `Sample`s count by their CPU time."""
    cpu = {
        n: [v.cpu if isinstance(v, Sample) else float(v) for v in vs] for n, vs in samples.items()
    }
    ours = cpu["stablax"]
    row = Row(group, case, unit, statistics.median(ours), target=target, note=note)
    row.samples = cpu
    row.wall_samples = {
        n: [v.wall for v in vs] for n, vs in samples.items() if vs and isinstance(vs[0], Sample)
    }
    theirs = cpu.get("jax")
    if theirs:
        row.jax = statistics.median(theirs)
        ratios = _ratios(ours, theirs)
        if ratios:
            row.ratio = statistics.median(ratios)
            row.ratio_range = (min(ratios), max(ratios))
        if "jax" in row.wall_samples:
            wall = _ratios(row.wall_samples["stablax"], row.wall_samples["jax"])
            row.wall_ratio = statistics.median(wall) if wall else None
    return row


def per_call(fn: Callable[[], Any], calls: int, block: Callable[[Any], Any]) -> Sample:
    """One call's share of `calls` back-to-back calls, the last result awaited."""
    out = None
    with Stopwatch() as watch:
        for _ in range(calls):
            out = fn()
        block(out)
    return watch.sample / calls


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, list[Any]]:
    """Calls each library's measurement once per round, in turn; returns every figure."""
    samples: dict[str, list[Any]] = {name: [] for name in fns}
    for r in range(rounds):
        order = list(fns) if r % 2 == 0 else list(reversed(fns))  # neither always goes first
        for name in order:
            samples[name].append(fns[name]())
    return samples


def timed_for(fn: Callable[[], Any], block: Callable[[Any], Any], seconds: float) -> Sample:
    """One call's share of calling `fn` (and awaiting it) until `seconds` have passed."""
    calls, start = 0, time.perf_counter()
    with Stopwatch() as watch:
        while calls < 2 or time.perf_counter() - start < seconds:
            block(fn())
            calls += 1
    return watch.sample / calls


# --- the machine and the report ---------------------------------------------------------------


def machine() -> dict[str, Any]:
    import jaxlib

    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "jaxlib": jaxlib.__version__,
        "load_average": list(os.getloadavg()),
    }
    try:
        import jax

        info["jax"] = jax.__version__
    except ImportError:
        pass
    return info


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"
    if unit == "ms":
        return f"{value:.2f} ms" if value < 100 else f"{value:.0f} ms"
    if unit == "us":
        return f"{value:.1f} us"
    if unit == "MB":
        return f"{value:.0f} MB"
    return f"{value:g}"


def _ratio(row: Row) -> str:
    if row.ratio is None:
        return "-"
    text = f"{row.ratio:.2f}"
    if row.ratio_range is not None and row.unit != "ops":
        lo, hi = row.ratio_range
        text += f" ({lo:.2f}-{hi:.2f})"
    return text


def _verdict(row: Row) -> str:
    if row.meets is None:
        return "" if row.target is None else f"<= {row.target:g}"
    return f"<= {row.target:g} {'yes' if row.meets else 'NO'}"


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table: case, stablax, JAX (CPU time, or the figure), their ratio
    (per-round range), the wall-clock ratio and the target."""
    lines = [
        "| case | stablax | JAX | ratio (range) | wall-clock ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    group = None
    for row in rows:
        if row.group != group:
            group = row.group
            lines.append(f"| **{group}** | | | | | |")
        case = row.case + (f" ({row.note})" if row.note else "")
        wall = "-" if row.wall_ratio is None else f"{row.wall_ratio:.2f}"
        lines.append(
            f"| {case} | {_fmt(row.stablax, row.unit)} | {_fmt(row.jax, row.unit)} | "
            f"{_ratio(row)} | {wall} | {_verdict(row)} |"
        )
    return "\n".join(lines)


def write_json(path: str, rows: Sequence[Row], settings: Settings, info: dict[str, Any]) -> None:
    report = {
        "machine": info,
        "quick": settings.quick,
        "rounds": settings.rounds,
        "rows": [{**asdict(row), "meets": row.meets} for row in rows],
    }
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
