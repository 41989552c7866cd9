"""Transfer guards (`jax_transfer_guard*`): log or refuse copies between host and device.

Implicit transfers are those stablax makes on its own: a NumPy array or Python scalar passed to
an operation or a `jit` function, an Array converted with `np.asarray`/`float`/`print` (device
to host; CPU arrays already live on the host, so as in JAX they are never guarded). Explicit
ones are `device_put` and `device_get`. Levels: "allow", "log" and "disallow" apply to implicit
transfers, "log_explicit" and "disallow_explicit" to explicit ones too.
"""

from __future__ import annotations

import logging

from stablax._src.config import config
from stablax._src.runtime import XlaRuntimeError

logger = logging.getLogger("stablax")

_DIRECTIONS = ("host_to_device", "device_to_host", "device_to_device")
# Whether any guard is set per direction: one module attribute read on the transfer paths.
active = dict.fromkeys(_DIRECTIONS, False)


def _level(direction: str) -> str:
    level = config.read(f"jax_transfer_guard_{direction}") or config.jax_transfer_guard
    return level or "allow"


def _refresh() -> None:
    for direction in _DIRECTIONS:
        active[direction] = _level(direction) != "allow"


config.on_change(_refresh)
_refresh()


def check(direction: str, what: str, explicit: bool = False) -> None:
    """Logs or refuses a transfer according to the guard level of `direction`."""
    level = _level(direction)
    if level == "allow" or (explicit and level in ("log", "disallow")):
        return
    kind = direction.replace("_to_", "-to-").replace("_", "-")
    if level.startswith("disallow"):
        raise XlaRuntimeError(f"INVALID_ARGUMENT: Disallowed {kind} transfer: {what}")
    logger.warning("%s transfer: %s", kind, what)
