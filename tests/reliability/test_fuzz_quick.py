"""The quick form of the fuzz, run in CI: a few hundred calls spread over every public jnp and
lax function, each in a worker process, must end with no crash, no timeout, no undocumented
exception class and no internal (MLIR/XLA) text in a message.

The long form is `python -m tests.reliability.fuzz_runner --calls 100000 --seed S
[--compare-jax]` (or STABLAX_FUZZ_CALLS / STABLAX_FUZZ_SEED for this test).
"""

from __future__ import annotations

import os

from tests.reliability import fuzz_runner


def test_quick_fuzz_finds_no_crash_and_no_internal_message():
    calls = int(os.environ.get("STABLAX_FUZZ_CALLS", 400))
    seed = int(os.environ.get("STABLAX_FUZZ_SEED", 0))
    report = fuzz_runner.run_fuzz(calls, seed)
    summary = report.summary()
    assert summary["counts"]["calls"] == calls
    assert summary["functions_called"] == min(calls, len(fuzz_runner.fuzz_strategies.catalog()))
    findings = [f"{f['category']} {f['fn']}: {f['detail'][:200]}" for f in report.findings]
    assert not report.by_category, "\n".join(findings[:20])
