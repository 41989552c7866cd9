"""The quick fuzz's seed: one per commit, so that each CI run draws new calls, and printed so
that a failing run can be replayed (`python -m tests.reliability.fuzz_runner --seed S ...`)."""

from __future__ import annotations

import os
import re
import subprocess
import zlib

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def quick_fuzz_seed(root: str = _ROOT) -> tuple[int, str]:
    """(seed, where it came from) for the quick fuzz.

    STABLAX_FUZZ_SEED when set; else the first 8 hex digits of `git rev-parse HEAD` (a clean
    clone, as CI's, has its .git); else, where git or the history is missing (an unpacked
    sdist), a CRC-32 of the checkout's Python sources, still the same for the same checkout.

    Example:
      >>> quick_fuzz_seed()  # doctest: +SKIP
      (1245042947, 'commit 4a3f9c03e1b2')
    """
    given = os.environ.get("STABLAX_FUZZ_SEED")
    if given:
        return int(given), "STABLAX_FUZZ_SEED"
    commit = _head_commit(root)
    if commit is not None:
        return int(commit[:8], 16), f"commit {commit[:12]}"
    return _source_checksum(root), "CRC-32 of the checkout's sources (no git history)"


def _head_commit(root: str) -> str | None:
    if not os.path.exists(os.path.join(root, ".git")):
        return None
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40}", commit) else None


def _source_checksum(root: str) -> int:
    crc = 0
    for top in ("src", "tests"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    crc = zlib.crc32(os.path.relpath(path, root).encode(), crc)
                    with open(path, "rb") as f:
                        crc = zlib.crc32(f.read(), crc)
    return crc
