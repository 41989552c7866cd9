"""--jobs N of the fuzz runner: N runner processes over disjoint shards of the shuffled function
order, their reports merged into one as they are written."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import tempfile
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write_json(path: str, content: dict) -> None:
    """Writes `content` as JSON through a temporary file: a reader never sees half of it."""
    with open(path + ".tmp", "w") as f:
        json.dump(content, f, indent=1)
    os.replace(path + ".tmp", path)


def run_jobs(args, argv: list[str]) -> int:
    """Runs args.jobs runner processes over disjoint shards and merges their reports."""
    out_dir = tempfile.mkdtemp(prefix="stablax-fuzz-")
    base = _drop_option(_drop_option(argv, "--jobs"), "--report")
    shards = []
    for k in range(args.jobs):
        path = os.path.join(out_dir, f"shard{k}.json")
        command = [sys.executable, "-m", "tests.reliability.fuzz_runner", *base]
        command += ["--shard", f"{k}/{args.jobs}", "--report", path]
        log = open(os.path.join(out_dir, f"shard{k}.log"), "w")
        shards.append((subprocess.Popen(command, cwd=_ROOT, stdout=log, stderr=log), path))
    start = time.monotonic()
    print(f"fuzz: {args.jobs} shards writing to {out_dir}", flush=True)
    while True:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(proc.poll() is None for proc, _ in shards):
            time.sleep(1)
        running = any(proc.poll() is None for proc, _ in shards)
        merged = _merge([path for _, path in shards], time.monotonic() - start)
        if merged is not None and args.report:
            write_json(args.report, merged)
        if not running:
            break
        if merged is not None:
            print(json.dumps(merged["summary"]), flush=True)
    failed = [proc.returncode for proc, _ in shards if proc.returncode not in (0, 1)]
    if merged is None or failed:
        print(f"fuzz: a shard failed (exit codes {failed}); its log is in {out_dir}")
        return 2
    print(json.dumps(merged["summary"], indent=1))
    for finding in merged["findings"][:20]:
        print(f"\n[{finding['category']}] {finding['fn']} ({finding['mode']}): {finding['detail']}")
        print(finding["reproducer"])
    return 1 if merged["summary"]["problems"] else 0


def _drop_option(argv: list[str], option: str) -> list[str]:
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == option:
            skip = True
        elif not a.startswith(option + "="):
            kept.append(a)
    return kept


def _merge(paths: list[str], seconds: float) -> dict | None:
    """The shards' reports as one: counts summed, findings concatenated."""
    parts = []
    for path in paths:
        try:
            with open(path) as f:
                parts.append(json.load(f))
        except (OSError, ValueError):
            continue  # not written yet
    if not parts:
        return None
    summary = dict(parts[0]["summary"], seconds=round(seconds, 1), shards=len(paths))
    for key in ("counts", "problems", "explained_differences"):
        total: collections.Counter = collections.Counter()
        for part in parts:
            total.update(part["summary"][key])
        summary[key] = dict(total)
    summary["calls"] = sum(part["summary"]["calls"] for part in parts)
    summary["functions_called"] = sum(part["summary"]["functions_called"] for part in parts)
    summary["shards_reporting"] = len(parts)
    return {"summary": summary, "findings": [f for part in parts for f in part["findings"]]}
