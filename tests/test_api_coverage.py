"""The public API against JAX's name lists: every name is implemented or listed as missing.

`tests/api/<module>.txt` are the names JAX 0.10.2 exports from `<module>` (`jax.txt` for the top
level); `jax.X` is looked for in `stablax.X`. `tests/api/missing.txt` lists, with a reason, the
ones stablax does not provide yet: `jax.lax.psum_p: reason` for one name, or `jax.nn.*: reason`
for a whole module that does not exist yet. A name on neither list fails, and so does a listed
name (or module) that has since been implemented, so the missing list stays short and true.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

API = Path(__file__).parent / "api"
MODULES = {p.stem: "stablax" + p.stem[len("jax") :] for p in API.glob("jax*.txt")}


def _missing() -> dict[str, str]:
    """`module.name` -> reason, from lines `jax.numpy.name: reason` (# starts a comment)."""
    entries = {}
    for line in (API / "missing.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, reason = line.partition(":")
            assert name.strip() not in entries, f"{name} is listed twice"
            entries[name.strip()] = reason.strip()
    return entries


def _targets(module: str) -> list[str]:
    return [n.strip() for n in (API / f"{module}.txt").read_text().splitlines() if n.strip()]


def _import(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is not None and module.startswith(err.name):
            return None  # the module (or a parent) does not exist yet
        raise


@pytest.mark.parametrize("jax_module", sorted(MODULES))
def test_every_name_is_implemented_or_listed_missing(jax_module):
    ours = _import(MODULES[jax_module])
    missing = _missing()
    whole_module = f"{jax_module}.*" in missing
    if ours is None:
        assert whole_module, f"{MODULES[jax_module]} does not exist: implement or list it"
        return
    assert not whole_module, f"{MODULES[jax_module]} exists now: list its missing names one by one"
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
    targets |= {f"{m}.*" for m in MODULES}
    for name, reason in _missing().items():
        assert name in targets, f"{name} is not a name of a module in tests/api"
        assert len(reason) > 10, f"{name} needs a reason"
