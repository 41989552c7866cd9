"""Bounded caches: every cache of compiled or traced programs is an `LRUCache` whose size is a
`stablax.config` flag, and `clear_all()` (behind `stablax.clear_caches()`) empties them all.

Entries are looked up far more often than added, so a hit costs a dict lookup and a move to the
end; thread safety needs no lock (concurrent misses may both compute an entry; one is kept).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from stablax._src.config import config

_all_caches: weakref.WeakSet[LRUCache] = weakref.WeakSet()
_clear_callbacks: list[Callable[[], None]] = []


class LRUCache:
    """A dict holding at most `config.<size_flag>` entries, dropping the least recently used."""

    __slots__ = ("_data", "_size_flag", "on_evict", "__weakref__")

    def __init__(self, size_flag: str, on_evict: Callable[[], None] | None = None) -> None:
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._size_flag = size_flag
        self.on_evict = on_evict
        _all_caches.add(self)

    def get(self, key: Hashable) -> Any:
        data = self._data
        value = data.get(key)
        if value is not None:
            try:
                data.move_to_end(key)
            except KeyError:  # evicted by another thread in between
                pass
        return value

    def __setitem__(self, key: Hashable, value: Any) -> None:
        data = self._data
        data[key] = value
        limit = config.read(self._size_flag)
        evicted = False
        while len(data) > limit:
            try:
                data.popitem(last=False)
            except KeyError:
                break
            evicted = True
        if evicted and self.on_evict is not None:
            self.on_evict()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def keys(self) -> list:
        return list(self._data)

    def values(self) -> list:
        return list(self._data.values())

    def clear(self) -> None:
        self._data.clear()
        if self.on_evict is not None:
            self.on_evict()


def on_clear(callback: Callable[[], None]) -> None:
    """Registers a callback of `clear_all` for caches that are not LRUCaches (small tables)."""
    _clear_callbacks.append(callback)


def clear_all() -> None:
    """Empties every cache of compiled executables and traced programs in the process."""
    for cache in list(_all_caches):
        cache.clear()
    for callback in _clear_callbacks:
        callback()
