"""The fuzz runner: draws calls with hypothesis, runs them in a worker process, classifies them.

    python -m tests.reliability.fuzz_runner --calls 100000 --seed 1 [--compare-jax] \\
        [--jobs 2] [--x64 on] [--report fuzz_report.json]

Every call runs in a worker process (fuzz_worker.py); a call that kills it (a signal, an abort
in XLA) or runs past the time limit is a finding, and the next call gets a fresh worker. Every
outcome must be a value or an exception of a documented type whose message holds no MLIR/XLA
internals. With --compare-jax (an interpreter with JAX installed, PYTHONPATH=src) each call also
runs through JAX and the two outcomes must agree: result dtypes, shapes, weak types and values,
or exception classes, unless known_differences/ explains the difference. With --jobs N, N
runner processes each take every Nth function of the shuffled order (a function's calls are
the same as in one process: its seed is its place in that order) and the parent merges their
reports.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.reliability import fuzz_compare, fuzz_jobs, fuzz_strategies, fuzz_values

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Exception classes a public function may raise on bad input (their subclasses included, such
# as stablax.errors.ConcretizationTypeError, a TypeError).
DOCUMENTED = {
    "TypeError",
    "ValueError",
    "IndexError",
    "NotImplementedError",
    "NameError",  # an unbound axis name, as JAX
    "OverflowError",
    "MemoryError",  # a result the machine cannot hold, as NumPy (jnp.triu_indices(3, m=2**40))
}
# What must never reach a user: MLIR verifier text, XLA status codes, binding dumps, Python
# internals of the library.
INTERNAL = re.compile(
    "|".join(
        [
            r"MLIRError",
            r"\bstablehlo\.",
            r"\bchlo\.",
            r"\bfunc\.func\b",
            r"tensor<",
            r"INVALID_ARGUMENT",
            r"FAILED_PRECONDITION",
            r"\bINTERNAL:",
            r"UNIMPLEMENTED",
            r"RESOURCE_EXHAUSTED",
            r"incompatible function arguments",
            r"Invoked with types",
            r"tuple index out of range",
            r"list index out of range",
            r"object has no attribute",
            r"has no attribute '",
            r"not subscriptable",
            r"unhashable type",
            r"object is not iterable",
            r"object is not callable",
            r"cannot unpack non-iterable",
            r"missing \d+ required positional argument",
            r"takes \d+ positional arguments? but \d+ (?:was|were) given",
            r"got an unexpected keyword argument",
            r"unsupported operand type",
            r"can only concatenate",
            r"(?:int|float|complex)\(\) argument must be",
            r"has no len\(\)",
            r"_src\.",
            r"jaxlib",
            r"nanobind",
            r"Traceback",
        ]
    )
)
# Error text XLA prints to stderr (its LOG(ERROR) lines) when a program misbehaves.
_XLA_STDERR = re.compile(r"^[EFW]\d{4} |\] Check failed|INVALID_ARGUMENT|Execution of replica")


class WorkerPool:
    """One worker process at a time, restarted after a crash or a timeout."""

    def __init__(self, compare: bool, timeout: float, python: str | None = None) -> None:
        self.compare = compare
        self.timeout = timeout
        self.python = python or sys.executable
        self.proc: subprocess.Popen | None = None
        self.buffer = b""
        self.calls_in_worker = 0
        self.restarts = 0

    def _start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(_ROOT, "src"), _ROOT, env.get("PYTHONPATH", "")]
        )
        env.setdefault("XLA_FLAGS", "")
        env["TF_CPP_MIN_LOG_LEVEL"] = env.get("TF_CPP_MIN_LOG_LEVEL", "1")
        command = [self.python, "-m", "tests.reliability.fuzz_worker"]
        if self.compare:
            command.append("--compare-jax")
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=_ROOT, env=env
        )
        self.buffer = b""
        self.calls_in_worker = 0
        ready = self._read_line(120.0)
        if ready is None or not ready.get("ready"):
            raise RuntimeError(f"fuzz: the worker did not start ({ready})")

    def _read_line(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return {"timeout": True}
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None  # the worker died
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def _stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait()
        self.proc = None
        return code

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
        self._stop()

    def run(self, call: dict) -> dict[str, dict | None]:
        """{"stablax": outcome, "jax": outcome or None}; a crash or timeout is an outcome."""
        if self.proc is None or self.calls_in_worker >= 2000:
            self._stop()
            self._start()
        self.calls_in_worker += 1
        self.proc.stdin.write((json.dumps(call) + "\n").encode())
        self.proc.stdin.flush()
        outcomes: dict[str, dict | None] = {"stablax": None, "jax": None}
        current = None
        while True:
            message = self._read_line(self.timeout)
            if message is None or message.get("timeout"):
                code = self._stop()
                self.restarts += 1
                if message is None:
                    died = {"kind": "crash", "signal": _signal_name(code)}
                else:
                    died = {"kind": "timeout", "seconds": self.timeout}
                if current is not None:
                    outcomes[current] = died
                return outcomes
            if message.get("done"):
                return outcomes
            if message.get("start"):
                current = message["lib"]
            else:
                outcomes[message["lib"]] = message["outcome"]
                current = None


def _signal_name(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


# --- classification ----------------------------------------------------------------------------


_ARITY = re.compile(r"missing \d+ required positional argument|takes \d+ positional argument")


def _has_callable(spec: Any) -> bool:
    if isinstance(spec, dict):
        return "fn" in spec or any(_has_callable(v) for v in spec.values())
    if isinstance(spec, list):
        return any(_has_callable(v) for v in spec)
    return False


def check(outcome: dict | None, call: dict | None = None) -> tuple[str, str] | None:
    """(category, detail) if a stablax outcome breaks a rule, else None."""
    if outcome is None:
        return ("missing", "no outcome")
    kind = outcome["kind"]
    if kind == "crash":
        return ("crash", outcome["signal"])
    if kind == "timeout":
        return ("timeout", f"over {outcome['seconds']} s")
    stderr = outcome.get("stderr", "")
    if any(_XLA_STDERR.search(line) for line in stderr.splitlines()):
        return ("stderr", stderr.strip()[:500])
    # The user's own callable raised, or was called with the arguments it was given for.
    message = outcome.get("message", "")
    user = outcome.get("user_raised") or "<lambda>" in message
    if (
        call is not None
        and _ARITY.search(message)
        and _has_callable([call["args"], call["kwargs"]])
    ):
        user = True  # a callable of the user's called with the arguments it was given for
    if kind == "error" and not user:
        if not DOCUMENTED.intersection(outcome["bases"]):
            return ("exception-type", f"{outcome['type']}: {outcome['message'][:300]}")
        found = INTERNAL.search(outcome["message"])
        if found:
            return ("internal-message", f"{outcome['type']}: {outcome['message'][:400]}")
    return None


def reproducer(call: dict) -> str:
    """A self-contained script that replays `call` (run it from the repository root)."""
    src = fuzz_values.source
    lines = [
        "import ml_dtypes, numpy as np",
        "import stablax as jax, stablax.numpy as jnp, stablax.lax.linalg",
        "from stablax import lax",
        "from tests.reliability import fuzz_values",
    ]
    if call["x64"]:
        lines.append('jax.config.update("jax_enable_x64", True)')
    args = [src(a) for a in call["args"]]
    kwargs = [f"{k}={src(v)}" for k, v in call["kwargs"].items()]
    fn = call["fn"]
    mode = call["mode"]
    if mode == "eager":
        lines.append(f"{fn}({', '.join(args + kwargs)})")
    elif mode == "jit":
        positions = [
            i for i, a in enumerate(call["args"]) if "array" in a and a.get("as") == "array"
        ]
        names = [f"x{i}" for i in positions]
        inner = [f"x{i}" if i in positions else a for i, a in enumerate(args)]
        lines.append(
            f"jax.jit(lambda {', '.join(names)}: {fn}({', '.join(inner + kwargs)}))"
            f"({', '.join(args[i] for i in positions)})"
        )
    elif mode == "grad":
        p = call["grad_arg"]
        inner = ["v" if i == p else a for i, a in enumerate(args)]
        lines.append(
            "leaves = lambda out: [l for l in jax.tree_util.tree_leaves(out) "
            "if jnp.issubdtype(l.dtype, jnp.inexact)]"
        )
        lines.append(
            f"jax.grad(lambda v: sum((jnp.sum(jnp.real(l)).astype(v.dtype) for l in "
            f"leaves({fn}({', '.join(inner + kwargs)}))), jnp.zeros((), v.dtype)))({args[p]})"
        )
    else:
        positions = [b["position"] for b in call["batch"]]
        names = [f"x{i}" for i in positions]
        inner = [f"x{i}" if i in positions else a for i, a in enumerate(args)]
        lines.append(
            f"jax.vmap(lambda {', '.join(names)}: {fn}({', '.join(inner + kwargs)}))"
            f"({', '.join(src(b['spec']) for b in call['batch'])})"
        )
    return "\n".join(lines)


# --- the driver --------------------------------------------------------------------------------


class Report:
    def __init__(self, seed_value: int, calls: int, compare: bool) -> None:
        self.seed = seed_value
        self.requested = calls
        self.compare = compare
        self.counts: collections.Counter = collections.Counter()
        self.findings: list[dict] = []
        self.by_category: collections.Counter = collections.Counter()
        self.explained: collections.Counter = collections.Counter()
        self.start = time.monotonic()
        self.functions: collections.Counter = collections.Counter()

    def add(self, call: dict, outcomes: dict) -> None:
        self.counts["calls"] += 1
        self.functions[call["fn"]] += 1
        stablax_outcome = outcomes["stablax"]
        self.counts[f"stablax_{stablax_outcome['kind'] if stablax_outcome else 'missing'}"] += 1
        problem = check(stablax_outcome, call)
        if problem is None and self.compare:
            jax_outcome = outcomes["jax"]
            if jax_outcome is not None and jax_outcome["kind"] in ("crash", "timeout"):
                self.counts[f"jax_{jax_outcome['kind']}"] += 1
            verdict = fuzz_compare.compare(call, stablax_outcome, jax_outcome)
            if verdict is not None and verdict[0] == "explained":
                self.explained[verdict[1]] += 1
            elif verdict is not None:
                problem = verdict
        if problem is not None:
            category, detail = problem
            self.by_category[category] += 1
            if len(self.findings) < 5000:
                self.findings.append(
                    {
                        "category": category,
                        "fn": call["fn"],
                        "mode": call["mode"],
                        "detail": detail,
                        "call": call,
                        "outcomes": _brief_outcomes(outcomes),
                        "reproducer": reproducer(call),
                    }
                )

    def reclassify(self, findings: list[dict]) -> None:
        """Counts stored findings again (after known_differences/ changed)."""
        for finding in findings:
            outcomes = finding["outcomes"]
            problem = check(outcomes["stablax"], finding["call"])
            if problem is None and self.compare:
                verdict = fuzz_compare.compare(
                    finding["call"], outcomes["stablax"], outcomes["jax"]
                )
                if verdict is not None and verdict[0] == "explained":
                    self.explained[verdict[1]] += 1
                    continue
                problem = verdict
            if problem is not None:
                self.by_category[problem[0]] += 1
                self.findings.append(dict(finding, category=problem[0], detail=problem[1]))

    def summary(self) -> dict:
        return {
            "seed": self.seed,
            "calls": self.counts["calls"],
            "seconds": round(time.monotonic() - self.start, 1),
            "compare_jax": self.compare,
            "counts": dict(self.counts),
            "problems": dict(self.by_category),
            "explained_differences": dict(self.explained),
            "functions_called": len(self.functions),
        }


def _brief_outcomes(outcomes: dict) -> dict:
    # Values are kept whole (the comparison needs them); messages are already cut.
    return {k: v for k, v in outcomes.items()}


def run_fuzz(
    calls: int,
    seed_value: int,
    compare: bool = False,
    timeout: float = 120.0,
    python: str | None = None,
    progress: Any = None,
    functions: dict | None = None,
    per_function: int | None = None,
    shard: tuple[int, int] = (0, 1),
    only: set[str] | None = None,
    x64: bool | None = None,
) -> Report:
    """Runs `calls` calls drawn by hypothesis, spread evenly over the functions (in an order
    shuffled by `seed_value`), and classifies each outcome. With `per_function`, each function
    gets that many calls and a short run covers the first calls / per_function functions of the
    shuffled order (hypothesis's first example of a function is its simplest, so one call per
    function explores little). `shard` (k, n) keeps every nth function from the kth; `only`
    keeps the named functions. Neither changes a function's calls: its seed and its budget are
    its place in the whole order. `x64` (True or False) sets every call's flag, which is
    otherwise drawn with the call."""
    functions = fuzz_strategies.catalog() if functions is None else functions
    order, budgets = _budgets(sorted(functions), seed_value, calls, per_function)
    report = Report(seed_value, calls, compare)
    pool = WorkerPool(compare, timeout, python)
    try:
        for index, (name, budget) in enumerate(zip(order, budgets)):
            if index % shard[1] != shard[0] or budget <= 0:
                continue
            if only is not None and name not in only:
                continue
            function_seed = seed_value * 100_003 + index
            _explore(name, functions[name], budget, function_seed, report, pool, x64)
            if progress is not None:
                progress(report)
    finally:
        pool.close()
    report.counts["worker_restarts"] = pool.restarts
    return report


def _budgets(names: list[str], seed_value: int, calls: int, per_function: int | None):
    """The shuffled order of `names` and each function's number of calls: `per_function`
    (by default `calls` spread evenly) until `calls` are used up."""
    order = list(names)
    random.Random(seed_value).shuffle(order)
    per_function = per_function or max(1, -(-calls // len(order)))
    budgets, left = [], calls
    for _ in order:
        budgets.append(max(0, min(per_function, left)))
        left -= budgets[-1]
    return order, budgets


def _explore(
    name: str, signature: Any, budget: int, seed_value: int, report, pool, x64: bool | None
) -> None:
    @seed(seed_value)
    @settings(
        max_examples=budget,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(fuzz_strategies.calls({name: signature}))
    def explore(call: dict) -> None:
        if x64 is not None:  # the other draws stay those of the drawn flag's call
            call = dict(call, x64=x64)
        report.add(call, pool.run(call))

    explore()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=int(os.environ.get("STABLAX_FUZZ_CALLS", 500)))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("STABLAX_FUZZ_SEED", 0)))
    parser.add_argument("--compare-jax", action="store_true")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--report", default=None, help="write the findings here (JSON)")
    parser.add_argument("--only", default=None, help="comma-separated function names")
    parser.add_argument(
        "--per-function",
        type=int,
        default=None,
        help="calls per function (default: --calls spread over all functions)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="runner processes (one per core)")
    parser.add_argument(
        "--x64",
        choices=("drawn", "on", "off"),
        default="drawn",
        help="jax_enable_x64 for every call (default: drawn with each call)",
    )
    parser.add_argument("--shard", default=None, help=argparse.SUPPRESS)  # "k/n", set by --jobs
    parser.add_argument(
        "--reclassify", default=None, help="count the findings of an earlier report again"
    )
    parser.add_argument(
        "--replay", default=None, help="run the calls of an earlier report's findings again"
    )
    args = parser.parse_args(argv)
    if args.replay:
        return _replay(args)
    if args.reclassify:
        old = json.load(open(args.reclassify))
        report = Report(old["summary"]["seed"], 0, old["summary"]["compare_jax"])
        report.reclassify(old["findings"])
        print(
            json.dumps({"problems": dict(report.by_category), "explained": dict(report.explained)})
        )
        if args.report:
            write_report(args.report, report)
        return 1 if report.by_category else 0
    only = set(args.only.split(",")) if args.only else None
    if args.jobs > 1:
        return fuzz_jobs.run_jobs(args, argv if argv is not None else sys.argv[1:])
    shard = tuple(int(part) for part in args.shard.split("/")) if args.shard else (0, 1)
    last = [time.monotonic()]

    def progress(report: Report) -> None:
        if time.monotonic() - last[0] > 60:
            last[0] = time.monotonic()
            print(json.dumps(report.summary()), flush=True)
            if args.report:
                write_report(args.report, report)

    report = run_fuzz(
        args.calls,
        args.seed,
        args.compare_jax,
        args.timeout,
        progress=progress,
        per_function=args.per_function,
        shard=shard,
        only=only,
        x64={"drawn": None, "on": True, "off": False}[args.x64],
    )
    print(json.dumps(report.summary(), indent=1))
    if args.report:
        write_report(args.report, report)
    for finding in report.findings[:20]:
        print(f"\n[{finding['category']}] {finding['fn']} ({finding['mode']}): {finding['detail']}")
        print(finding["reproducer"])
    return 1 if report.by_category else 0


def _replay(args) -> int:
    """Runs the calls behind an earlier report's findings again (those of --only's functions)
    on this tree, and prints the ones that still break a rule."""
    old = json.load(open(args.replay))
    wanted = set(args.only.split(",")) if args.only else None
    report = Report(old["summary"]["seed"], 0, old["summary"]["compare_jax"])
    pool = WorkerPool(report.compare, args.timeout)
    try:
        for finding in old["findings"]:
            if wanted is None or finding["fn"] in wanted:
                report.add(finding["call"], pool.run(finding["call"]))
    finally:
        pool.close()
    print(json.dumps(report.summary(), indent=1))
    for finding in report.findings:
        print(f"\n[{finding['category']}] {finding['fn']} ({finding['mode']}): {finding['detail']}")
        print(finding["reproducer"])
    if args.report:
        write_report(args.report, report)
    return 1 if report.by_category else 0


def write_report(path: str, report: Report) -> None:
    """Writes `report` (its summary and findings) as JSON, the form --replay reads."""
    fuzz_jobs.write_json(path, {"summary": report.summary(), "findings": report.findings})


if __name__ == "__main__":
    sys.exit(main())
