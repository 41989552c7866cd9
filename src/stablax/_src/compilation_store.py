"""The persistent compilation cache: serialized executables on disk, so a second run of a program
compiles nothing.

Entries are keyed by the program's fingerprint, the platform and device kind, jaxlib's version
and the compile options; the directory is `jax_compilation_cache_dir` (default: the user's cache
directory). Each file is written to a temporary name and renamed into place, so concurrent writers
never expose a partial entry; a file that is truncated or corrupt fails its checksum and is
removed and rewritten, never trusted. The directory is kept under
`jax_compilation_cache_max_size` bytes by removing the least recently used entries.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import zlib

from stablax._src.config import config

logger = logging.getLogger("stablax")

_MAGIC = b"STABLAX-EXECUTABLE-1\n"
_DIGEST = 32  # sha256 of the compressed payload, after the magic
_SUFFIX = ".xla"


def directory() -> str | None:
    """Where entries live, or None when the persistent cache is off."""
    if not config.read("jax_enable_compilation_cache"):
        return None
    configured = config.read("jax_compilation_cache_dir")
    if configured:
        return str(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "stablax", "compilation")


def entry_key(*parts: str) -> str:
    """The file name of an entry: a digest of everything the executable depends on."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def load(key: str) -> bytes | None:
    """The serialized executable stored under `key`, or None (missing or damaged)."""
    root = directory()
    if root is None:
        return None
    path = os.path.join(root, key + _SUFFIX)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    header = len(_MAGIC) + _DIGEST
    body = data[header:]
    if data[: len(_MAGIC)] != _MAGIC or hashlib.sha256(body).digest() != data[len(_MAGIC) : header]:
        logger.warning("stablax: ignoring a damaged compilation cache entry %s", path)
        _remove(path)
        return None
    try:
        payload = zlib.decompress(body)
    except zlib.error:
        _remove(path)
        return None
    try:
        os.utime(path)  # recently used: evicted last
    except OSError:
        pass
    return payload


def would_store(compile_seconds: float) -> bool:
    """Whether a compile that took this long is stored at all (the cache is on and the compile
    long enough): callers skip serializing the executable otherwise."""
    return directory() is not None and compile_seconds >= config.read(
        "jax_persistent_cache_min_compile_time_secs"
    )


def store(key: str, payload: bytes, compile_seconds: float) -> None:
    """Writes an entry (if the compile was long enough and the entry big enough), atomically."""
    root = directory()
    if root is None or not would_store(compile_seconds):
        return
    body = zlib.compress(payload)
    if len(body) < config.read("jax_persistent_cache_min_entry_size_bytes"):
        return
    try:
        os.makedirs(root, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=root, prefix=".writing-", suffix=_SUFFIX)
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(body).digest() + body)
        os.replace(temporary, os.path.join(root, key + _SUFFIX))
    except OSError as err:  # a read-only or full disk costs the cache, never the program
        logger.warning("stablax: could not write the compilation cache in %s: %s", root, err)
        return
    _evict(root)


def _evict(root: str) -> None:
    limit = config.read("jax_compilation_cache_max_size")
    if limit is None or limit < 0:
        return
    entries = []
    try:
        for name in os.listdir(root):
            if name.endswith(_SUFFIX) and not name.startswith(".writing-"):
                path = os.path.join(root, name)
                stat = os.stat(path)
                entries.append((stat.st_mtime, stat.st_size, path))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        _remove(path)
        total -= size


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
