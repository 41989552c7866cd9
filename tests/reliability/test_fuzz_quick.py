"""The quick form of the fuzz, run in CI: two calls of every public jnp and lax function (the
first is hypothesis's simplest, the second drawn from the seed), each in a worker process, must
end with no crash, no timeout, no undocumented exception class and no internal (MLIR/XLA) text
in a message.

The seed is the commit's (fuzz_seed.py), so each CI run draws new calls; it is in the test
session's header and in a failure's message, with the commands that replay the run. The long
form is `python -m tests.reliability.fuzz_runner --calls 100000 --seed S [--compare-jax]`
(STABLAX_FUZZ_CALLS, STABLAX_FUZZ_PER_FUNCTION and STABLAX_FUZZ_SEED set this test's).
"""

from __future__ import annotations

import os

from tests.reliability import fuzz_runner
from tests.reliability.fuzz_seed import quick_fuzz_seed


def test_quick_fuzz_finds_no_crash_and_no_internal_message(tmp_path):
    functions = len(fuzz_runner.fuzz_strategies.catalog())
    per_function = int(os.environ.get("STABLAX_FUZZ_PER_FUNCTION", 2))
    calls = int(os.environ.get("STABLAX_FUZZ_CALLS", per_function * functions))
    seed, origin = quick_fuzz_seed()
    path = os.environ.get("STABLAX_FUZZ_REPORT") or str(tmp_path / "quick_fuzz.json")
    print(f"quick fuzz: seed {seed} ({origin}), {calls} calls, report {path}")
    report = fuzz_runner.run_fuzz(calls, seed, per_function=per_function)
    fuzz_runner.write_report(path, report)
    summary = report.summary()
    assert summary["counts"]["calls"] == calls
    assert summary["functions_called"] == min(-(-calls // per_function), functions)
    findings = [f"{f['category']} {f['fn']}: {f['detail'][:200]}" for f in report.findings]
    replay = (
        f"quick fuzz seed {seed} ({origin}) found {dict(report.by_category)}; replay its "
        f"findings with\n  python -m tests.reliability.fuzz_runner --replay {path}\nor run it "
        f"again with\n  python -m tests.reliability.fuzz_runner --calls {calls} "
        f"--per-function {per_function} --seed {seed} --report quick_fuzz.json\n"
    )
    assert not report.by_category, replay + "\n".join(findings[:20])
