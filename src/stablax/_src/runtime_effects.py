"""The host-callback effects of dispatched programs: their completion tokens, which
`effects_barrier` waits for, and the order of the ordered ones."""

from __future__ import annotations

import threading
from typing import Any


class _PendingEffects:
    """Completion tokens of the executions whose callbacks may still run (effects_barrier), and
    the last ordered one, which the next ordered execution waits for.

    jaxlib's tokens cannot be polled, so the list is bounded by waiting for its older half once it
    reaches `_MAX_TOKENS`: those executions are that many dispatches behind and have run already
    in all but a pathological queue, and memory stays flat over any number of calls.
    """

    _MAX_TOKENS = 128

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tokens: list[Any] = []
        self.last_ordered: Any = None

    def run(self, executable: Any, buffers: list[Any]) -> list[Any]:
        """Executes `executable` (a runtime.Executable that calls back into Python) with tokens."""
        if executable.effects == "ordered":
            with self.lock:
                previous = self.last_ordered
            if previous is not None:
                previous.block_until_ready()
        results = executable.loaded.execute_sharded(buffers, with_tokens=True)
        token = results.consume_token()
        with self.lock:
            self.tokens.append(token)
            if executable.effects == "ordered":
                self.last_ordered = token
            finished = None
            if len(self.tokens) >= self._MAX_TOKENS:
                half = self._MAX_TOKENS // 2
                finished, self.tokens = self.tokens[:half], self.tokens[half:]
        for old in finished or ():
            old.block_until_ready()
        return results.consume_with_handlers(executable.handlers)

    def wait(self) -> None:
        with self.lock:
            tokens, self.tokens, self.last_ordered = self.tokens, [], None
        for token in tokens:
            token.block_until_ready()


pending_effects = _PendingEffects()


def effects_barrier() -> None:
    """Waits until every program dispatched so far has run its host callbacks."""
    pending_effects.wait()
