"""The public API against JAX's name lists: every name is implemented or listed as missing.

`tests/api/<module>.txt` are the names JAX 0.10.2 exports; `tests/api/missing.txt` lists, with a
reason, the ones stablax does not provide yet. A name on neither list fails, and so does a listed
name that has since been implemented, so the missing list stays short and true.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

API = Path(__file__).parent / "api"
MODULES = {
    "jax.numpy": "stablax.numpy",
    "jax.numpy.linalg": "stablax.numpy.linalg",
    "jax.numpy.fft": "stablax.numpy.fft",
    "jax.random": "stablax.random",
}


def _missing() -> dict[str, str]:
    """`module.name` -> reason, from lines `jax.numpy.name: reason` (# starts a comment)."""
    entries = {}
    for line in (API / "missing.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, reason = line.partition(":")
            entries[name.strip()] = reason.strip()
    return entries


def _targets(module: str) -> list[str]:
    return [n.strip() for n in (API / f"{module}.txt").read_text().splitlines() if n.strip()]


@pytest.mark.parametrize("jax_module", sorted(MODULES))
def test_every_name_is_implemented_or_listed_missing(jax_module):
    ours = importlib.import_module(MODULES[jax_module])
    missing = _missing()
    unaccounted = [
        n
        for n in _targets(jax_module)
        if not hasattr(ours, n) and f"{jax_module}.{n}" not in missing
    ]
    assert not unaccounted, f"{MODULES[jax_module]} lacks {unaccounted}: implement or list them"
    stale = [n for n in _targets(jax_module) if hasattr(ours, n) and f"{jax_module}.{n}" in missing]
    assert not stale, f"listed as missing but implemented: {stale}"


def test_every_missing_entry_has_a_reason_and_a_target():
    targets = {f"{m}.{n}" for m in MODULES for n in _targets(m)}
    for name, reason in _missing().items():
        assert name in targets, f"{name} is not a name of {sorted(MODULES)}"
        assert len(reason) > 10, f"{name} needs a reason"
