"""The benchmark harness (`python -m benchmarks`) in its quick mode, so it cannot rot: every
suite runs, every case gives a positive figure, the table and the JSON report agree."""

from __future__ import annotations

import json

from benchmarks.__main__ import main
from benchmarks.models import PROGRAMS
from benchmarks.suite_programs import hlo_op_counts

GROUPS = {
    "eager dispatch",
    "eager indexing",
    "jit dispatch",
    "trace+lower",
    "XLA compile",
    "HLO ops (optimised)",
    "compiled step",
    "process",
    "debugging",
}


def test_quick_run_covers_every_suite(tmp_path, capsys):
    path = tmp_path / "bench.json"
    rows = main(["--quick", "--no-jax", "--json", str(path)])
    printed = capsys.readouterr().out
    report = json.loads(path.read_text())
    assert report["quick"] and report["machine"]["cpus"] >= 1
    assert {row["group"] for row in report["rows"]} == GROUPS
    assert len(report["rows"]) == len(rows)
    for row in report["rows"]:
        assert row["stablax"] > 0, row
        assert row["group"] == "HLO ops (optimised)" or row["unit"] == "MB" or row["wall_samples"]
        assert row["jax"] is None and row["ratio"] is None  # --no-jax
    compiled = {r["case"] for r in report["rows"] if r["group"] == "compiled step"}
    assert set(PROGRAMS) <= compiled
    assert "| x[i:i+10], 50 Python ints |" in printed.replace("  ", " ")
    assert "| case | stablax | JAX | ratio (range) | wall-clock ratio | target |" in printed


def test_hlo_op_counts_reads_fusion_bodies():
    text = """
HloModule m
%fused (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %e = f32[4]{0} exponential(%p)
  ROOT %n = f32[4]{0} negate(%e)
}
ENTRY %main (a: f32[4]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %c = f32[] constant(1)
  ROOT %f = f32[4]{0} fusion(%a), kind=kLoop, calls=%fused
}
"""
    assert hlo_op_counts(text) == {"exponential": 1, "negate": 1, "fusion": 1}
