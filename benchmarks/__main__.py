"""Every benchmark, stablax side by side with JAX: `python -m benchmarks [--quick] [--json PATH]`.

With JAX installed (`pip install ".[bench]"`) each case runs on both libraries in this one
process, interleaved round by round, and the table gives stablax / JAX ratios with their
per-round range and the target each must meet. `--quick` uses tiny sizes and one round and needs
no JAX: tests/test_benchmarks.py runs it so the harness cannot rot.
"""

from __future__ import annotations

import argparse
import importlib.util
import time

from benchmarks import suite_debugging, suite_dispatch, suite_process, suite_programs
from benchmarks.harness import Settings, machine, table, write_json
from benchmarks.models import Lib

SUITES = {
    "dispatch": suite_dispatch,
    "programs": suite_programs,
    "process": suite_process,
    "debugging": suite_debugging,
}


def main(argv: list[str] | None = None) -> list:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round, seconds")
    parser.add_argument("--no-jax", action="store_true", help="stablax alone")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (7)")
    parser.add_argument("--only", default=None, help="cases whose name contains this")
    parser.add_argument("--suite", choices=sorted(SUITES), action="append", help="(repeatable)")
    parser.add_argument("--json", default="benchmarks.json", help="where to write the results")
    args = parser.parse_args(argv)

    libs = [Lib.load("stablax")]
    if not args.no_jax and importlib.util.find_spec("jax") is not None:
        libs.append(Lib.load("jax"))
    rounds = args.rounds if args.rounds is not None else (1 if args.quick else 7)
    settings = Settings(quick=args.quick, rounds=rounds, libs=libs, only=args.only)
    info = machine()
    start = time.perf_counter()
    rows = []
    for name in args.suite or list(SUITES):
        rows.extend(SUITES[name].run(settings))
    info["load_average_after"] = list(__import__("os").getloadavg())
    info["seconds"] = round(time.perf_counter() - start, 1)
    print(table(rows))
    print(
        f"\n{info['processor']}, {info['cpus']} CPUs, {info['platform']}; jaxlib {info['jaxlib']}"
        + (f", jax {info['jax']}" if "jax" in info else ", no jax")
        + f"; load average {info['load_average'][0]:.1f} before, "
        f"{info['load_average_after'][0]:.1f} after; {info['seconds']} s"
    )
    write_json(args.json, rows, settings, info)
    return rows


if __name__ == "__main__":
    main()
