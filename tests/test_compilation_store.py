"""The persistent compilation cache: a second run compiles nothing; concurrent writers, damaged
files and the size bound are handled; the flags turn it off or narrow it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

_STEP = """
    import sys
    import stablax, stablax.numpy as jnp
    from stablax._src import runtime

    @stablax.jit
    def step(w, x):
        g = stablax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w)
        return w - 0.1 * g

    w = jnp.ones((16, 16)) * 0.1
    x = jnp.ones((4, 16))
    for _ in range(3):
        w = step(w, x)
    total = float(w.sum())
    print(runtime.compile_count, total)
"""


def _run(cache_dir, *flags: str) -> tuple[int, float]:
    env = dict(os.environ, STABLAX_COMPILATION_CACHE_DIR=str(cache_dir))
    for flag in flags:
        name, value = flag.split("=")
        env[name] = value
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_STEP)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=600,
    ).stdout.split()
    return int(out[0]), float(out[1])


def _entries(cache_dir) -> list[str]:
    return sorted(n for n in os.listdir(cache_dir) if n.endswith(".xla"))


def test_a_second_run_compiles_nothing(tmp_path):
    compiles, value = _run(tmp_path)
    assert compiles > 0 and len(_entries(tmp_path)) == compiles
    again, same = _run(tmp_path)
    assert again == 0 and same == value


def test_damaged_entries_are_ignored_and_rewritten(tmp_path):
    _, value = _run(tmp_path)
    names = _entries(tmp_path)
    for i, name in enumerate(names):
        path = tmp_path / name
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] if i % 2 else b"garbage" + data[7:])
    compiles, same = _run(tmp_path)
    assert compiles == len(names) and same == value
    assert _run(tmp_path)[0] == 0  # rewritten whole


def test_concurrent_writers(tmp_path):
    env = dict(os.environ, STABLAX_COMPILATION_CACHE_DIR=str(tmp_path))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(_STEP)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    values = [float(p.communicate(timeout=600)[0].split()[1]) for p in procs]
    assert all(p.returncode == 0 for p in procs) and len(set(values)) == 1
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".writing-")]
    assert _run(tmp_path)[0] == 0


def test_size_bound_and_flags(tmp_path):
    limited = tmp_path / "limited"
    _run(limited, "STABLAX_COMPILATION_CACHE_MAX_SIZE=20000")
    sizes = [os.path.getsize(limited / n) for n in _entries(limited)]
    assert 0 < sum(sizes) <= 20000
    off = tmp_path / "off"
    _run(off, "STABLAX_ENABLE_COMPILATION_CACHE=0")
    assert not off.exists()
    slow_only = tmp_path / "slow_only"
    _run(slow_only, "STABLAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=1000")
    assert not slow_only.exists() or not _entries(slow_only)


_IN_PROCESS = """
    import numpy as np
    import stablax, stablax.numpy as jnp
    from stablax._src import compilation_store, runtime

    found = []
    load = runtime._load_stored

    def spy(*args):
        loaded = load(*args)
        found.append(loaded is not None)
        return loaded

    runtime._load_stored = spy
    f = stablax.jit(lambda a: jnp.cumsum(a * 3.5))
    want = np.asarray(f(np.arange(5.0, dtype=np.float32)))
    first = list(found)
    stablax.clear_caches()
    found.clear()
    got = np.asarray(f(np.arange(5.0, dtype=np.float32)))
    assert (got == want).all()
    print(first, found, compilation_store.directory())
"""


def test_in_process_entries_match_a_fresh_compile(tmp_path):
    # Entries written by this process load again after clear_caches(): every program of the
    # second call comes from disk. In a fresh process: a full test session's earlier tests once
    # made the second call miss one entry (not understood yet; see the closing note of #13).
    env = dict(os.environ, STABLAX_COMPILATION_CACHE_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_IN_PROCESS)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=600,
    ).stdout
    assert out.strip() == f"[False] [True] {tmp_path}", out
