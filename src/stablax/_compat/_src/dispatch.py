"""`jax._src.dispatch` under the alias (equinox's filter_jit waits for effect tokens)."""

from __future__ import annotations


def wait_for_tokens() -> None:
    """Waits for pending ordered effects: stablax has none, so there is nothing to wait for."""
    return None
